package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSummary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "summary.json")
	s, err := loadSummary(file, "example.com/m")
	if err != nil || len(s.Targets) != 0 {
		t.Fatalf("a missing summary: %v, %v", s, err)
	}
	cov := []pkgCoverage{{Package: "example.com/m/a", Covered: 7, Statements: 10, Percent: 70, Reached: true},
		{Package: "example.com/m/c", Statements: 4},
		{Package: "example.com/m/internal/testkit/fuzzcorpus", Covered: 1, Statements: 2, Percent: 50, Reached: true}} // test machinery
	s.Targets["p.FuzzX"] = &record{Target: "p.FuzzX", Runs: []*run{
		{Commit: "0123456789abcdef0123", Status: "interrupted", CPUSeconds: 600, WallSeconds: 700, Execs: 10, NewEntries: 1},
		{Commit: "0123456789abcdef0123", Status: "error", CPUSeconds: 100, WallSeconds: 100, Execs: 1},
		{Commit: "fedcba9876543210fedc+dirty", Status: "ok", CPUSeconds: 1500, WallSeconds: 2000, Execs: 20, NewEntries: 2,
			TestdataFiles: 3, CacheFiles: 40, Coverage: cov},
	}}
	s.Targets["p.FuzzY"] = &record{Target: "p.FuzzY", Runs: []*run{
		{Commit: "abc", Status: "failed", CPUSeconds: 5, Reproducer: "/m/p/testdata/fuzz/FuzzY/0011"}}}
	if err := s.save(file); err != nil {
		t.Fatal(err)
	}
	s, err = loadSummary(file, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	x := s.Targets["p.FuzzX"]
	// The error run's CPU time does not count towards the budget.
	if x.cpu() != 35*time.Minute || x.failed() != nil || s.Targets["p.FuzzY"].failed() == nil {
		t.Errorf("cpu %v, failed %v", x.cpu(), x.failed())
	}
	var b strings.Builder
	s.markdown(&b, regexp.MustCompile(defaultExclude))
	t.Log("\n" + b.String())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	if want := "| `p.FuzzX` | 35m00s | 46m40s | 31 | 3 | 3 + 40 | a 70.0% (7/10) | 1 ok, 1 interrupted, 1 error run(s) | 0123456789ab, fedcba987654+dirty |"; lines[2] != want {
		t.Errorf("row\n%s\nwant\n%s", lines[2], want)
	}
	if !strings.Contains(lines[3], "FAILED, 0011") {
		t.Errorf("failed row: %s", lines[3])
	}
	if _, err := loadSummary(file, "example.com/other"); err == nil {
		t.Error("a summary of another module was accepted")
	}
	if got := dur(3723); got != "1h02m03s" {
		t.Errorf("dur(3723) = %s", got)
	}
}
