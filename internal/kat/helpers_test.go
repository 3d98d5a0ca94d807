package kat

import (
	"crypto/fips140"
	"encoding/json"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// readFile returns the bundled vector file name.
func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../vectors/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// needX25519Oracle skips t under GODEBUG=fips140=only, which refuses
// crypto/ecdh's X25519 (t's oracle); t runs in the other modes.
func needX25519Oracle(t *testing.T) {
	if fips140.Enforced() {
		t.Skip("fips140=only refuses crypto/ecdh's X25519, this test's oracle")
	}
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

// exchanges are the ways to run the method named name that the bundled
// files' run (vectors.TestBundled: Run, the public API on the default KEM
// backend) does not take: the engine on every other KEM backend. In FIPS
// 140-3 mode, where .ci/run reruns this package and not vectors, also the
// public API and the engine on every backend.
func exchanges(name string) []Exchange {
	ex := mustPublic(name)
	if fips140.Enabled() {
		return append([]Exchange{ex}, Backends(name, *ex.Method)...)
	}
	var out []Exchange
	for _, b := range Backends(name, *ex.Method) {
		if b.Label != ex.Method.Backend().Impl() {
			out = append(out, b)
		}
	}
	return out
}

// mlkemTargets are the Targets of the ML-KEM files of p: the SSH messages
// of exchanges of every method on p; in FIPS 140-3 mode also circl and
// crypto/mlkem alone (outside it, vectors.TestBundled runs those).
func mlkemTargets(p hybrid.Params) []Target {
	names := []string{"mlkem768x25519-sha256", "mlkem768nistp256-sha256"}
	if p == hybrid.MLKEM1024 {
		names = []string{"mlkem1024nistp384-sha384"}
	}
	var exs []Exchange
	for _, n := range names {
		exs = append(exs, exchanges(n)...)
	}
	if fips140.Enabled() {
		return Targets(p, exs...)
	}
	var ts []Target
	for _, ex := range exs {
		ts = append(ts, SSHTarget(ex))
	}
	return ts
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
