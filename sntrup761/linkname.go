package sntrup761

import (
	"io"
	_ "unsafe" // for go:linkname
)

// This file gives two packages of this module what the public API leaves
// out on purpose, with nothing registered at run time: each function
// below is pushed, with //go:linkname, into a bodyless declaration of the
// package that uses it, the pattern the Go standard library uses between
// its own packages (package runtime provides sync's runtime_Semacquire
// this way). That package imports this one, so the function is linked
// wherever it is called, and a missing one fails the link, not a run.
// The linker does not compare signatures: each declaration says that it
// must match the function here, and the tests named below run each one.

// generateKeyFrom and encapsulateFrom are sntrup761test's GenerateKey and
// Encapsulate without their checks: the reader-driven key generation and
// encapsulation (a nil rand means crypto/rand's Reader). Package
// sntrup761test checks the reader and names itself in errors; the NIST
// known answers (vectors.TestBundled) run through both byte for byte.
//
//go:linkname generateKeyFrom github.com/pqkex/pqkex/sntrup761/sntrup761test.generateKey
func generateKeyFrom(rand io.Reader) (*DecapsulationKey, error) { return generateKey(rand) }

//go:linkname encapsulateFrom github.com/pqkex/pqkex/sntrup761/sntrup761test.encapsulate
func encapsulateFrom(ek *EncapsulationKey, rand io.Reader) (sharedKey, ciphertext []byte, err error) {
	return encapsulate(ek, rand)
}

// clearKey overwrites dk's key (its encoding, transforms and rho hash)
// with zeros, so that every method returns zeros afterwards. It is
// internal/hybrid's clearSNTRUP761Key: a sntrup761x25519 Client erases
// the key it was given (NewClientWithKey, one from a KeyPool) once the
// key exchange is over, which only this package can do
// (sntrup761x25519's TestClientWipesSecrets).
//
//go:linkname clearKey github.com/pqkex/pqkex/internal/hybrid.clearSNTRUP761Key
func clearKey(dk *DecapsulationKey) { clearKeys([]*DecapsulationKey{dk}) }
