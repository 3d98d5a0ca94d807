package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// TestLibFuzzerCorpus converts a committed corpus to libFuzzer inputs and
// one of them back: the file that comes back is the one that went out.
func TestLibFuzzerCorpus(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport \"testing\"\n\nfunc FuzzX(f *testing.F) { f.Fuzz(func(t *testing.T, a, b []byte) {}) }\n"
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := target{Pkg: "example.com/x", Dir: dir, Rel: "x", Name: "FuzzX", File: "x_test.go"}
	if err := os.MkdirAll(tg.testdata(), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := fuzzcorpus.FormatFile([]byte("key"), []byte("ciphertext\x00\xff"))
	unusable := fuzzcorpus.FormatFile([]byte("key"), nil)
	for name, data := range map[string][]byte{"e1": entry, "e2": unusable} {
		if err := os.WriteFile(filepath.Join(tg.testdata(), name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	if err := exportLibFuzzer([]target{tg}, out); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "FuzzX", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "testdata-e1" {
		t.Fatalf("exported %v, want testdata-e1 only (e2's empty last value cannot be given)", files)
	}
	if err := os.RemoveAll(tg.testdata()); err != nil {
		t.Fatal(err)
	}
	if err := importLibFuzzer(tg, files[0]); err != nil {
		t.Fatal(err)
	}
	back, _ := filepath.Glob(filepath.Join(tg.testdata(), "*"))
	if len(back) != 1 {
		t.Fatalf("imported %v", back)
	}
	if data, _ := os.ReadFile(back[0]); string(data) != string(entry) {
		t.Errorf("imported %q, want %q", data, entry)
	}
	if err := exportLibFuzzer([]target{tg, tg}, out); err == nil {
		t.Error("two targets of one name exported")
	}
	short := filepath.Join(out, "short")
	os.WriteFile(short, []byte{0, 0, 0, 1}, 0o644)
	if err := importLibFuzzer(tg, short); err == nil {
		t.Error("an input the binary would not run was imported")
	}
}

// TestNamedOnce: a target named in a second file (a comment will do)
// breaks its OSS-Fuzz build, and none of the module's targets is.
func TestNamedOnce(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package x\n\nfunc FuzzX(f *testing.F) {}\n"), 0o644)
	tg := target{Pkg: "example.com/x", Dir: dir, Rel: "x", Name: "FuzzX", File: "x_test.go"}
	if err := namedOnce(tg); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "y_test.go"), []byte("package y\n\n// FuzzX found this.\n"), 0o644)
	if err := namedOnce(tg); err == nil {
		t.Error("a target named in a second file was accepted")
	}

	t.Chdir("../..") // pqkex's module, whose targets the runner is for
	mod, err := mainModule()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := fuzzPackages(mod, []string{mod.Dir + "/..."})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		for _, name := range p.fuzzFuncs {
			n++
			if err := namedOnce(p.target(name)); err != nil {
				t.Error(err)
			}
		}
	}
	if n < 17 {
		t.Errorf("found %d fuzz targets in the module, want at least 17", n)
	}
}
