package kat

import (
	"flag"
	"os"
	"testing"
)

// long enables the million-iteration known-answer tests (RFC 7748 section
// 5.2 iterated X25519, the 1 000 000-test ML-KEM accumulated hashes),
// which take minutes.
var long = flag.Bool("long", false, "also run the 1 000 000-iteration vectors")

// readJSON decodes testdata/name into v.
func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	f, err := os.Open("../../vectors/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ParseJSON(f, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// report fails t for every failed vector of a runner's result, and if the
// file was skipped, did not parse or had no vectors. It returns the
// number of vectors that passed.
func report(t testing.TB, r Result) int {
	t.Helper()
	switch {
	case r.Err != nil:
		t.Fatal(r.Err)
	case r.Skipped != "":
		t.Fatalf("skipped: %s", r.Skipped)
	case r.Passed+r.Failed == 0:
		t.Fatal("no vectors")
	}
	for _, f := range r.Failures {
		t.Error(f)
	}
	if r.Failed != len(r.Failures) {
		t.Errorf("%d failed vectors but %d failure lines", r.Failed, len(r.Failures))
	}
	return r.Passed
}
