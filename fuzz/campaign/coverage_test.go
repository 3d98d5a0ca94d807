package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sampleProfile = `mode: count
example.com/m/a/a.go:3.10,5.2 2 1
example.com/m/a/a.go:5.2,7.3 3 0
example.com/m/a/b.go:1.1,2.2 5 6
example.com/m/a/b.go:1.1,2.2 5 3
example.com/m/c/c.go:1.1,9.9 4 0
`

func TestProfile(t *testing.T) {
	p, err := parseProfile(strings.NewReader(sampleProfile))
	if err != nil {
		t.Fatal(err)
	}
	// Initialization alone ran a.go's first block.
	init, err := parseProfile(strings.NewReader("mode: set\nexample.com/m/a/a.go:3.10,5.2 2 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.byPackage(init)
	want := []pkgCoverage{
		{Package: "example.com/m/a", Covered: 7, Statements: 10, Percent: 70, Reached: true},
		{Package: "example.com/m/c", Covered: 0, Statements: 4, Percent: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("byPackage = %+v, want %+v", got, want)
	}
	// Reached needs a block beyond initialization.
	if onlyInit := init.byPackage(init); onlyInit[0].Reached {
		t.Errorf("initialization alone counts as reached: %+v", onlyInit)
	}
	// a.go's first block ran once (bucket 0), b.go's block 6+3 = 9
	// times (bucket 4: 8-15).
	wantF := map[string]int{"example.com/m/a/a.go:3.10,5.2": 2, "example.com/m/a/a.go:3.10,5.2#0": 1,
		"example.com/m/a/b.go:1.1,2.2": 5, "example.com/m/a/b.go:1.1,2.2#4": 1}
	if f := p.features(); !reflect.DeepEqual(f, wantF) {
		t.Errorf("features = %v, want %v", f, wantF)
	}
	for _, bad := range []string{"", "example.com/m/a/a.go:1.1,2.2 1 1\n", "mode: set\nx 1\n", "mode: set\nx y 1\n"} {
		if _, err := parseProfile(strings.NewReader(bad)); err == nil {
			t.Errorf("parseProfile(%q) accepted", bad)
		}
	}
}

// TestCorpusView builds a view of a small module: the package's
// neighbours are reachable as in the module, the target's corpus
// directory is empty and real, and adding entries leaves the module's
// own testdata alone.
func TestCorpusView(t *testing.T) {
	mod := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		path := filepath.Join(mod, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("vectors/testdata/v.json", "{}")
	write("a/b/b_test.go", "package b\n")
	write("a/b/testdata/other.txt", "other")
	write("a/b/testdata/fuzz/FuzzY/y1", "y")
	write("a/b/testdata/fuzz/FuzzX/x1", "committed")
	write("cache/FuzzX/x2", "cached")
	write("cache/FuzzX/x1", "committed")

	v, err := newCorpusView(mod, target{Rel: "a/b", Name: "FuzzX"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for rel, want := range map[string]string{"../../vectors/testdata/v.json": "{}", "b_test.go": "package b\n",
		"testdata/other.txt": "other", "testdata/fuzz/FuzzY/y1": "y"} {
		if data, err := os.ReadFile(filepath.Join(v.pkgDir, rel)); err != nil || string(data) != want {
			t.Errorf("%s in the view: %q, %v", rel, data, err)
		}
	}
	if entries, err := os.ReadDir(v.corpus); err != nil || len(entries) != 0 {
		t.Fatalf("the view's corpus starts with %v, %v", entries, err)
	}
	for _, d := range []string{filepath.Join(mod, "a/b/testdata/fuzz/FuzzX"), filepath.Join(mod, "cache/FuzzX"), filepath.Join(mod, "no/such/dir")} {
		if err := v.add(d); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	entries, _ := os.ReadDir(v.corpus)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "x1 x2" {
		t.Errorf("the view's corpus holds %v, want x1 x2", names)
	}
	if n, _, _ := countFiles(filepath.Join(mod, "a/b/testdata/fuzz/FuzzX")); n != 1 {
		t.Errorf("the module's corpus has %d files after adding to the view, want 1", n)
	}
	if err := v.reset(); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := countFiles(v.corpus); n != 0 {
		t.Errorf("reset left %d files", n)
	}
	root := v.root
	v.Close()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("Close left %s: %v", root, err)
	}
	for _, f := range []string{"vectors/testdata/v.json", "a/b/testdata/fuzz/FuzzX/x1", "a/b/testdata/fuzz/FuzzY/y1", "cache/FuzzX/x2"} {
		if _, err := os.Stat(filepath.Join(mod, f)); err != nil {
			t.Errorf("Close removed the module's files: %v", err)
		}
	}
}

func TestGreedy(t *testing.T) {
	set := func(keys ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range keys {
			m[k] = true
		}
		return m
	}
	// Blocks a (5 statements), b and c (3), d (1), e (2), with buckets.
	cands := []candidate{
		{"small-b", 10, map[string]int{"b": 3, "b#0": 1}},
		{"big-bc", 100, map[string]int{"b": 3, "b#0": 1, "c": 3, "c#0": 1}},    // 8: first
		{"dup-b", 5, map[string]int{"b": 3, "b#0": 1}},                         // nothing new after big-bc
		{"d-large", 50, map[string]int{"d": 1, "d#0": 1}},                      // ties with d-small
		{"d-small", 20, map[string]int{"d": 1, "d#0": 1}},                      // ...and is smaller: taken
		{"base-only", 1, map[string]int{"a": 5, "a#0": 1}},                     // a is had already
		{"a-loops", 30, map[string]int{"a": 5, "a#3": 1}},                      // a run more often: 1 new
		{"e-and-base", 30, map[string]int{"a": 5, "a#0": 1, "e": 2, "e#0": 1}}, // 3 new
	}
	covered := set("a", "a#0")
	var names []string
	for _, c := range greedy(covered, cands) {
		names = append(names, c.name)
	}
	if got := strings.Join(names, " "); got != "big-bc e-and-base d-small a-loops" {
		t.Errorf("greedy picked %s", got)
	}
	if len(covered) != 11 {
		t.Errorf("covered %v", covered)
	}
}

func TestInputs(t *testing.T) {
	t.Setenv("FUZZCAMPAIGN_HELPER", "list-inputs")
	v := &corpusView{pkgDir: t.TempDir()}
	names, err := v.inputs(os.Args[0], target{Name: "FuzzX"}, 0)
	if err != nil || strings.Join(names, " ") != "seed#0 seed#1 0123456789abcdef" {
		t.Errorf("inputs = %q, %v", names, err)
	}
}
