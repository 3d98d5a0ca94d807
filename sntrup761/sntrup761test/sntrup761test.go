// Package sntrup761test provides derandomized sntrup761 key generation and
// encapsulation: they read their randomness from a caller's io.Reader,
// as known-answer tests need. Keys and ciphertexts made from predictable
// randomness offer no security; outside such tests, use package sntrup761,
// which draws from crypto/rand, or pass an unpredictable reader (pqkex's
// SSH method passes x/crypto's Config.Rand).
//
// Both functions consume randomness exactly as the NTRU Prime reference
// code (and OpenSSH 10.3 and later) does, one Read per array, which is what
// the NIST KAT files depend on: key generation reads 3044 bytes for g
// (repeated while g is not invertible in R/3), 3044 bytes for f and 191
// bytes for rho; encapsulation reads 3044 bytes for r. Each 3044-byte
// array is read as 761 little-endian uint32.
package sntrup761test

import (
	"errors"
	"fmt"
	"io"
	_ "unsafe" // for go:linkname

	"github.com/pqkex/pqkex/sntrup761"
)

// GenerateKey derives a decapsulation key from the bytes read from rand.
// It returns an error only if rand is nil or its Read does; the reader's
// error is wrapped (errors.Is finds it).
func GenerateKey(rand io.Reader) (*sntrup761.DecapsulationKey, error) {
	if rand == nil {
		return nil, errors.New("sntrup761test: GenerateKey needs a reader")
	}
	dk, err := generateKey(rand)
	if err != nil {
		return nil, fmt.Errorf("sntrup761test: reading randomness: %w", err)
	}
	return dk, nil
}

// Encapsulate encapsulates to ek using 3044 bytes read from rand.
// It returns an error only if rand is nil or its Read does; the reader's
// error is wrapped (errors.Is finds it).
func Encapsulate(ek *sntrup761.EncapsulationKey, rand io.Reader) (sharedKey, ciphertext []byte, err error) {
	if rand == nil {
		return nil, nil, errors.New("sntrup761test: Encapsulate needs a reader")
	}
	sharedKey, ciphertext, err = encapsulate(ek, rand)
	if err != nil {
		return nil, nil, fmt.Errorf("sntrup761test: reading randomness: %w", err)
	}
	return sharedKey, ciphertext, nil
}

// generateKey and encapsulate are package sntrup761's reader-driven key
// generation and encapsulation, which that package provides
// (sntrup761/linkname.go: package sntrup761 keeps them out of its public
// API, which draws from crypto/rand only, as crypto/mlkem's does). Their
// signatures must be those of sntrup761's generateKeyFrom and
// encapsulateFrom; the linker does not compare them.
//
//go:linkname generateKey
func generateKey(rand io.Reader) (*sntrup761.DecapsulationKey, error)

//go:linkname encapsulate
func encapsulate(ek *sntrup761.EncapsulationKey, rand io.Reader) (sharedKey, ciphertext []byte, err error)
