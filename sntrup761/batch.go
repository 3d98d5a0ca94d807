package sntrup761

import (
	"errors"
	"fmt"
	"io"

	"github.com/pqkex/pqkex/sntrup761/internal/core"
)

// GenerateKeys generates n new decapsulation keys, drawing random bytes
// from crypto/rand. It is much cheaper per key than n calls of GenerateKey:
// the keys share one inversion in each of R/q and R/3 (Montgomery's batch
// inversion, as in OpenSSLNTRU), at the price of three extra ring
// multiplications per key in each ring.
//
// The keys are independent and each must be kept secret. Use each key for
// one key exchange only.
func GenerateKeys(n int) ([]*DecapsulationKey, error) {
	if n < 0 {
		return nil, errors.New("sntrup761: negative key count")
	}
	return newKeys(nil, n)
}

// newKeys is GenerateKeys with the random source as a parameter (nil:
// crypto/rand), which the KeyPool's tests use to inject failing sources.
func newKeys(rand io.Reader, n int) ([]*DecapsulationKey, error) {
	dks, err := generateKeys(rand, n)
	if err != nil {
		return nil, fmt.Errorf("sntrup761: reading randomness: %w", err)
	}
	return dks, nil
}

func generateKeys(rand io.Reader, n int) ([]*DecapsulationKey, error) {
	sks, err := core.GenerateKeys(rand, n)
	if err != nil {
		return nil, err
	}
	dks := make([]*DecapsulationKey, len(sks))
	for i, sk := range sks {
		dks[i] = &DecapsulationKey{sk}
	}
	return dks, nil
}
