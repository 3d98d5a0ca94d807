package kat

import (
	"crypto/fips140"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// long enables the million-iteration known-answer tests (RFC 7748 section
// 5.2 iterated X25519, the 1 000 000-test ML-KEM accumulated hashes),
// which take minutes.
var long = flag.Bool("long", false, "also run the 1 000 000-iteration vectors")

// readFile returns the bundled vector file name.
func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../vectors/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// knownAnswers runs f, the body of a known-answer test, inside
// fips140.WithoutEnforcement under GODEBUG=fips140=only: known answers
// need the derandomized services that mode refuses by design.
func knownAnswers(f func()) {
	if fips140.Enforced() {
		fips140.WithoutEnforcement(f)
		return
	}
	f()
}

// exchanges runs the method named name through its public API and its
// engine with each KEM backend.
func exchanges(name string) []Exchange {
	ex := MustPublic(name)
	return append([]Exchange{ex}, Backends(name, *ex.Method)...)
}

// mlkemExchanges are the exchanges of every method with the ML-KEM
// parameter set p.
func mlkemExchanges(p hybrid.Params) []Exchange {
	if p == hybrid.MLKEM1024 {
		return exchanges("mlkem1024nistp384-sha384")
	}
	return append(exchanges("mlkem768x25519-sha256"), exchanges("mlkem768nistp256-sha256")...)
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

// readJSON decodes the bundled vector file name into v.
func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, name), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
