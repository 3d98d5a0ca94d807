package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRun runs fuzz with the test binary as a fake fuzz binary in mode
// (see fakeFuzzer) and a budget of 300ms of CPU time.
func fakeRun(t *testing.T, mode string) (*runResult, string) {
	t.Helper()
	t.Setenv("FUZZCAMPAIGN_HELPER", mode)
	dir := t.TempDir()
	tg := target{Pkg: "example.com/m/p", Dir: dir, Rel: "p", Name: "FuzzX"}
	var log strings.Builder
	o := runOpts{budget: 300 * time.Millisecond, parallel: 2, nice: 0, cacheRoot: t.TempDir(), grace: time.Second, check: 100 * time.Millisecond}
	res, err := fuzz(tg, os.Args[0], o, &log, nil)
	if err != nil {
		t.Fatal(err)
	}
	status, msg, note := classify(res, "LOG")
	t.Logf("%s: %+v\nstatus %s, error %q, note %q", mode, *res, status, msg, note)
	return res, status
}

func TestFuzzBudget(t *testing.T) {
	res, status := fakeRun(t, "ok")
	if status != "ok" || !res.StoppedByBudget || res.Interrupted {
		t.Errorf("status %s, stopped by budget %v", status, res.StoppedByBudget)
	}
	// Stopped once the budget was spent, checked every 100 ms.
	if res.CPU < 300*time.Millisecond || res.CPU > 1500*time.Millisecond {
		t.Errorf("CPU time %v for a budget of 300ms", res.CPU)
	}
	if res.Baseline != 7 || res.Execs < 1000 || res.Execs%1000 != 0 || res.NewInteresting != 3 {
		t.Errorf("parsed baseline %d, execs %d, new interesting %d", res.Baseline, res.Execs, res.NewInteresting)
	}
}

func TestFuzzStopRace(t *testing.T) {
	res, status := fakeRun(t, "race")
	if status != "ok" || res.ExitErr == "" {
		t.Errorf("status %s, exit %q: golang/go#75804's report after the stop is not a finding", status, res.ExitErr)
	}
}

func TestFuzzFinding(t *testing.T) {
	res, status := fakeRun(t, "crash")
	if status != "failed" || filepath.Base(res.Reproducer) != "0123456789abcdef" || !filepath.IsAbs(res.Reproducer) ||
		res.Rerun != "FuzzX/0123456789abcdef" || !strings.Contains(res.FailureExcerpt, "planted") {
		t.Errorf("status %s, reproducer %q, rerun %q, excerpt %q", status, res.Reproducer, res.Rerun, res.FailureExcerpt)
	}
}

func TestFuzzEarlyExit(t *testing.T) {
	res, status := fakeRun(t, "exit")
	if status != "error" || res.StoppedByBudget {
		t.Errorf("status %s for a fuzzer that exited before its budget", status)
	}
}

func TestFuzzKilledAfterGrace(t *testing.T) {
	start := time.Now()
	res, status := fakeRun(t, "deaf")
	if status != "error" || !strings.Contains(res.ExitErr, "killed") {
		t.Errorf("status %s, exit %q for a fuzzer deaf to SIGINT", status, res.ExitErr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestFuzzInterrupted(t *testing.T) {
	t.Setenv("FUZZCAMPAIGN_HELPER", "ok")
	tg := target{Pkg: "example.com/m/p", Dir: t.TempDir(), Rel: "p", Name: "FuzzX"}
	stop := make(chan struct{})
	close(stop)
	o := runOpts{budget: time.Hour, parallel: 1, cacheRoot: t.TempDir(), grace: time.Second, check: 100 * time.Millisecond}
	res, err := fuzz(tg, os.Args[0], o, io.Discard, stop)
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _ := classify(res, ""); status != "interrupted" || res.StoppedByBudget {
		t.Errorf("status %s, %+v", status, *res)
	}
}

func TestIsStopRace(t *testing.T) {
	for excerpt, want := range map[string]bool{
		"--- FAIL: FuzzX (20.01s)\n    context deadline exceeded\nFAIL": true,
		"--- FAIL: FuzzX (3.2s)\n    context canceled\n":                true,
		"--- FAIL: FuzzX (3.2s)\n    context canceled\n    panic: x":    false,
		"--- FAIL: FuzzX (3.2s)\n":                                      false,
		"context canceled":                                              false,
		"":                                                              false,
	} {
		if got := isStopRace(excerpt); got != want {
			t.Errorf("isStopRace(%q) = %v", excerpt, got)
		}
	}
}

// TestKeepReproducer: a failing input is copied out of the tree; a
// reported hang whose input passes when replayed is not a finding and
// leaves testdata; one whose replay fails stays a failure.
func TestKeepReproducer(t *testing.T) {
	hang := "--- FAIL: FuzzX (1981.23s)\n    fuzzing process hung or terminated unexpectedly: exit status 2\n    Failing input written to testdata/fuzz/FuzzX/0123456789abcdef"
	panicked := "--- FAIL: FuzzX (3.1s)\n    --- FAIL: FuzzX (0.00s)\n        panic: index out of range"
	for _, tc := range []struct {
		replay, excerpt, status string
		stays                   bool
	}{
		{"replay-pass", hang, "unconfirmed", false},
		{"replay-fail", hang, "failed", true},
		{"replay-pass", panicked, "failed", true}, // not a hang: no replay decides it
	} {
		t.Setenv("FUZZCAMPAIGN_HELPER", tc.replay)
		dir := t.TempDir()
		tg := target{Pkg: "example.com/m/p", Dir: dir, Rel: "p", Name: "FuzzX"}
		repro := filepath.Join(tg.testdata(), "0123456789abcdef")
		os.MkdirAll(tg.testdata(), 0o755)
		os.WriteFile(repro, []byte("go test fuzz v1\n[]byte(\"x\")\n"), 0o644)
		x := &run{Status: "failed", Reproducer: repro, FailureExcerpt: tc.excerpt}
		c := config{out: t.TempDir()}
		if err := keepReproducer(c, tg, &binaries{fuzz: os.Args[0]}, x); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(repro)
		if x.Status != tc.status || (err == nil) != tc.stays {
			t.Errorf("%s, %q: status %s, reproducer in testdata: %v; note %q", tc.replay, tc.excerpt, x.Status, err == nil, x.Note)
		}
		if data, err := os.ReadFile(x.Kept); err != nil || !strings.Contains(string(data), "go test fuzz v1") {
			t.Errorf("the copy %s: %q, %v", x.Kept, data, err)
		}
		if (x.ReplaySeconds > 0) != (tc.excerpt == hang) {
			t.Errorf("replayed %v s", x.ReplaySeconds)
		}
	}
}
