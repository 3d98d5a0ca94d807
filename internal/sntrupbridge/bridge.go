// Package sntrupbridge gives pqkex's own packages the forms of sntrup761
// key generation and encapsulation that read randomness from a caller's
// io.Reader, and the clearing of a key it owns. Package sntrup761's public
// API draws from crypto/rand only, like crypto/mlkem; the SSH method
// honours x/crypto's Config.Rand (its KEM half reads from that reader
// directly, as its curve half does) and the known-answer tests replay
// recorded randomness (through sntrup761test), so both need these. The
// hooks are what the SSH method's production path uses; nothing else is
// passed this way.
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
)
