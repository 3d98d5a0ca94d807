// Package sntrupbridge gives pqkex's own packages the forms of sntrup761
// key generation and encapsulation that read randomness from a caller's
// io.Reader. Package sntrup761's public API draws from crypto/rand only,
// like crypto/mlkem; the SSH method honours x/crypto's Config.Rand and the
// known-answer tests replay recorded randomness, so both need these.
//
// Package sntrup761 sets the functions in its init. The values are typed
// any to avoid an import cycle: GenerateKey returns a
// *sntrup761.DecapsulationKey and Encapsulate takes a
// *sntrup761.EncapsulationKey.
package sntrupbridge

import "io"

var (
	// GenerateKey generates a key pair reading randomness from rand in
	// the reference code's pattern (one Read per 3044-byte list, then 191
	// bytes of rho).
	GenerateKey func(rand io.Reader) (any, error)
	// Encapsulate encapsulates to ek reading 3044 bytes from rand.
	Encapsulate func(ek any, rand io.Reader) (sharedKey, ciphertext []byte, err error)
	// ClearKey overwrites a *sntrup761.DecapsulationKey that the caller
	// owns with zeros (its encoding, transforms and rho hash), once it will
	// not be used again.
	ClearKey func(dk any)
	// GenerateKeys is the batch form of GenerateKey ([]*sntrup761.DecapsulationKey).
	GenerateKeys func(rand io.Reader, n int) (any, error)
	// Arithmetic names the arithmetic the sntrup761 code runs in this
	// binary: "scalar", or "avx2 (GOEXPERIMENT=simd)" for the vector path
	// (see sntrup761/internal/core/simd_amd64.go), for pqkex bench.
	Arithmetic func() string
)
