package fuzz

import (
	"testing"

	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// The hybrid methods' targets feed arbitrary peer messages, C_INIT to
// Respond and S_REPLY to Finish, to each method's public API with fixed
// secrets on our side, and check the outcome against oracles built from
// other implementations (crypto/mlkem, crypto/ecdh, sntrup761's API) and
// the combiner written out: the same verdict, the same message and K, and
// errors that name the peer's value and hold none of the input (see
// fuzzRespond in oracle_test.go). Go needs a target per method.

func FuzzMLKEM768X25519Respond(f *testing.F) { fuzzRespond(f, mlkem768x25519.Name) }
func FuzzMLKEM768X25519Finish(f *testing.F)  { fuzzFinish(f, mlkem768x25519.Name) }

func FuzzSNTRUP761X25519Respond(f *testing.F) { fuzzRespond(f, sntrup761x25519.Name) }
func FuzzSNTRUP761X25519Finish(f *testing.F)  { fuzzFinish(f, sntrup761x25519.Name) }

func FuzzMLKEM768NISTP256Respond(f *testing.F) { fuzzRespond(f, mlkem768nistp256.Name) }
func FuzzMLKEM768NISTP256Finish(f *testing.F)  { fuzzFinish(f, mlkem768nistp256.Name) }

func FuzzMLKEM1024NISTP384Respond(f *testing.F) { fuzzRespond(f, mlkem1024nistp384.Name) }
func FuzzMLKEM1024NISTP384Finish(f *testing.F)  { fuzzFinish(f, mlkem1024nistp384.Name) }

// TestMethods runs the shared suite (testMethod) on each of the four
// methods: the table in table_test.go.
func TestMethods(t *testing.T) {
	for _, m := range methods {
		t.Run(m.Name, func(t *testing.T) { testMethod(t, m.Name) })
	}
}

// BenchmarkMethods runs each method's steps (benchMethod): for example
//
//	go test ./fuzz -run '^$' -bench 'Methods/mlkem768nistp256' -count 6
func BenchmarkMethods(b *testing.B) {
	for _, m := range methods {
		b.Run(m.Name, func(b *testing.B) { benchMethod(b, m.Name) })
	}
}
