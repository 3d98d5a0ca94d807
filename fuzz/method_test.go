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
// fuzzRespond in oracle_test.go). Go needs a target per method. This file
// holds only fuzz targets, each passing its f and t to shared code only
// as a TB, so that go-118-fuzz-build can build each as a libFuzzer binary
// (see .clusterfuzzlite/build.sh).

func FuzzMLKEM768X25519Respond(f *testing.F) {
	check := fuzzRespond(f, mlkem768x25519.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzMLKEM768X25519Finish(f *testing.F) {
	check := fuzzFinish(f, mlkem768x25519.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzSNTRUP761X25519Respond(f *testing.F) {
	check := fuzzRespond(f, sntrup761x25519.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzSNTRUP761X25519Finish(f *testing.F) {
	check := fuzzFinish(f, sntrup761x25519.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzMLKEM768NISTP256Respond(f *testing.F) {
	check := fuzzRespond(f, mlkem768nistp256.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzMLKEM768NISTP256Finish(f *testing.F) {
	check := fuzzFinish(f, mlkem768nistp256.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzMLKEM1024NISTP384Respond(f *testing.F) {
	check := fuzzRespond(f, mlkem1024nistp384.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func FuzzMLKEM1024NISTP384Finish(f *testing.F) {
	check := fuzzFinish(f, mlkem1024nistp384.Name)
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}
