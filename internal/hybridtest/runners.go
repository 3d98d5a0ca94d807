// Package hybridtest holds the test helpers shared by the ML-KEM hybrid
// methods' tests: the known-answer runners of internal/kat (SSH exchanges
// from OpenSSH and PuTTY, ML-KEM-1024, Wycheproof ECDH) on a test's own
// files and implementations, a cross-check of two ML-KEM implementations
// on random inputs, a straightforward baseline implementation, and the
// oracles of the fuzz targets. It is imported only by _test files. Every
// runner takes a *testing.T and fails it on the first mismatch of a case;
// nothing is skipped.
package hybridtest

import (
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
)

// Client, Exchange and ECDHCounts are internal/kat's: the runners live
// there, shared with vectors.Run ("pqkex kat").
type (
	Client     = kat.Client
	Exchange   = kat.Exchange
	ECDHCounts = kat.ECDHCounts
)

// Dir is where the vector files are, relative to a method package's
// directory (see its README.md).
const Dir = "../vectors/testdata/"

// FromMethod runs m (a copy of a method's engine, typically with KEM set
// to one backend) as an Exchange.
func FromMethod(label, name string, m *hybrid.Method) Exchange {
	return kat.FromMethod(label, name, m)
}

// Backends returns the method's engine once per ML-KEM implementation
// (circl, crypto/mlkem), as Exchanges.
func Backends(name string, m hybrid.Method) []Exchange { return kat.Backends(name, m) }

// Public returns the public API of the NIST-curve hybrid named name, with
// its explicit-key constructors, as an Exchange labelled "public"
// (kat.HybridPublic). It panics for any other name.
func Public(name string) Exchange {
	ex, _, ok := kat.HybridPublic(name)
	if !ok {
		panic("hybridtest: no NIST-curve hybrid " + name)
	}
	return ex
}

// Stream returns the first n bytes of SHAKE256(label), the vector files'
// randomness convention.
func Stream(label string, n int) []byte { return kat.Stream(label, n) }

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// RunSSHFile runs kat.RunSSHFile on the file at path: every test on
// every Exchange, edge cases by their strict `result`. It returns the
// number of cases run.
func RunSSHFile(t *testing.T, path, cf string, exs ...Exchange) int {
	t.Helper()
	return kat.RunSSHFile(t, path, read(t, path), cf, exs...)
}

// RunACVP checks the ACVP keyGen and encapDecap files on every
// implementation (decapsulation with the expanded dk where it loads).
func RunACVP(t *testing.T, keygenPath, encapDecapPath string, kems ...hybrid.KEM) int {
	t.Helper()
	return kat.RunKEMACVPKeyGen(t, keygenPath, read(t, keygenPath), kems...) +
		kat.RunKEMACVPEncapDecap(t, encapDecapPath, read(t, encapDecapPath), kems...)
}

// RunWycheproof checks a Wycheproof ML-KEM file of any of the four
// schemas.
func RunWycheproof(t *testing.T, path string, kems ...hybrid.KEM) int {
	t.Helper()
	return kat.RunKEMWycheproof(t, path, read(t, path), kems...)
}

// RunCCTVModulus checks that every key of CCTV's gzipped modulus file is
// rejected by every implementation and by every Exchange's Respond.
func RunCCTVModulus(t *testing.T, path string, kems []hybrid.KEM, exs ...Exchange) int {
	t.Helper()
	return kat.RunKEMCCTVModulus(t, path, read(t, path), kems, exs...)
}

// RunCCTVCase checks one CCTV "name = hex" case (strcmp, unlucky).
func RunCCTVCase(t *testing.T, path string, kems ...hybrid.KEM) int {
	t.Helper()
	return kat.RunKEMCCTVCase(t, path, read(t, path), kems...)
}

// RunAccumulated runs n accumulated pseudo-random tests on each
// implementation and returns how many published hashes it compared.
func RunAccumulated(t *testing.T, path string, n int, kems ...hybrid.KEM) int {
	t.Helper()
	return kat.RunKEMAccumulated(t, path, read(t, path), n, kems...)
}

// RunWycheproofECDH checks a Wycheproof ECDH file on the curve and
// through the Exchange's Finish.
func RunWycheproofECDH(t *testing.T, path string, ex Exchange) ECDHCounts {
	t.Helper()
	return kat.RunWycheproofECDH(t, path, read(t, path), ex)
}

// CrossCheck runs two ML-KEM implementations against each other on n
// random inputs: every output and every verdict must agree.
func CrossCheck(t *testing.T, n int, a, b hybrid.KEM) {
	t.Helper()
	kat.CrossCheck(t, n, a, b)
}

// ExchangeAcrossBackends runs one whole exchange of the method m with the
// client on each backend and the server on the other (circl client with a
// crypto/mlkem server, and back): both sides must derive the same K.
func ExchangeAcrossBackends(t *testing.T, name string, m hybrid.Method) {
	t.Helper()
	b := Backends(name, m)
	for _, pair := range [][2]Exchange{{b[0], b[1]}, {b[1], b[0]}} {
		c, err := pair[0].NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := pair[1].Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || string(kC) != string(kS) {
			t.Fatalf("%s client, %s server: %v", pair[0].Label, pair[1].Label, err)
		}
	}
}
