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
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
)

// Client, Exchange and ECDHCounts are internal/kat's: the runners live
// there, shared with vectors.Run ("pqkex kat").
type (
	Client   = kat.Client
	Exchange = kat.Exchange
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

// Public returns the public API of the method named name, with its
// explicit-key constructors, as an Exchange labelled "public"
// (kat.Public). It panics for any other name.
func Public(name string) Exchange { return kat.MustPublic(name) }

// Stream returns the first n bytes of SHAKE256(label), the vector files'
// randomness convention.
func Stream(label string, n int) []byte { return kat.Stream(label, n) }

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
