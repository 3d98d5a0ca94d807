package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestIsFuzzName(t *testing.T) {
	for name, want := range map[string]bool{"Fuzz": true, "FuzzX": true, "Fuzz_x": true, "Fuzz1": true, "FuzzÉ": true,
		"Fuzzy": false, "fuzzX": false, "TestFuzzX": false, "Fuzzé": false} {
		if got := isFuzzName(name); got != want {
			t.Errorf("isFuzzName(%q) = %v", name, got)
		}
	}
}

func TestFuzzFuncs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x_test.go")
	src := `package x

import "testing"

func FuzzA(f *testing.F)       {}
func FuzzB(g *testing.F)       {}
func Fuzzy(f *testing.F)       {}
func FuzzT(t *testing.T)       {}
func FuzzTwo(f *testing.F, n int) {}
func (s S) FuzzM(f *testing.F) {}
func FuzzV(f testing.F)        {}

type S struct{}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := fuzzFuncs(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"FuzzA", "FuzzB"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fuzzFuncs = %v, want %v", got, want)
	}
}

func TestByteArgs(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import "testing"

func FuzzOne(f *testing.F) { f.Fuzz(func(t *testing.T, in []byte) {}) }
func FuzzTwo(f *testing.F) {
	check := func() {}
	f.Fuzz(func(t *testing.T, a, b []uint8) { check() })
}
func FuzzStr(f *testing.F)  { f.Fuzz(func(t *testing.T, s string) {}) }
func FuzzNone(f *testing.F) {}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"FuzzOne": 1, "FuzzTwo": 2, "FuzzStr": -1, "FuzzNone": -1} {
		n, err := byteArgs(target{Dir: dir, File: "x_test.go", Name: name})
		if want < 0 && err == nil || want >= 0 && (err != nil || n != want) {
			t.Errorf("byteArgs(%s) = %d, %v; want %d", name, n, err, want)
		}
	}
}
