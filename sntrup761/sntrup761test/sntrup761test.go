// Package sntrup761test provides derandomized sntrup761 key generation and
// encapsulation. It must only be used for known-answer tests: keys and
// ciphertexts made from predictable randomness offer no security.
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
	"io"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
	"github.com/pqkex/pqkex/sntrup761"
)

// GenerateKey derives a decapsulation key from the bytes read from rand.
// It returns an error only if rand is nil or its Read does.
func GenerateKey(rand io.Reader) (*sntrup761.DecapsulationKey, error) {
	if rand == nil {
		return nil, errors.New("sntrup761test: GenerateKey needs a reader")
	}
	dk, err := sntrupbridge.GenerateKey(rand)
	if err != nil {
		return nil, errors.New("sntrup761test: reading randomness: " + err.Error())
	}
	return dk.Key().(*sntrup761.DecapsulationKey), nil
}

// Encapsulate encapsulates to ek using 3044 bytes read from rand.
// It returns an error only if rand is nil or its Read does.
func Encapsulate(ek *sntrup761.EncapsulationKey, rand io.Reader) (sharedKey, ciphertext []byte, err error) {
	if rand == nil {
		return nil, nil, errors.New("sntrup761test: Encapsulate needs a reader")
	}
	sharedKey, ciphertext, err = sntrupbridge.WrapEncapsulationKey(ek).Encapsulate(rand)
	if err != nil {
		return nil, nil, errors.New("sntrup761test: reading randomness: " + err.Error())
	}
	return sharedKey, ciphertext, nil
}
