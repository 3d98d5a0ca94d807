// Package sntrupbridge gives pqkex's own packages that stand below package
// sntrup761 (the hybrid engine, internal/hybrid; the known-answer runners,
// internal/kat) its keys and operations without importing it, including the
// forms of key generation and encapsulation that read randomness from a
// caller's io.Reader and the clearing of a key the caller owns.
//
// Package sntrup761's public API draws from crypto/rand only, like
// crypto/mlkem; the SSH method honours x/crypto's Config.Rand (its KEM half
// reads from that reader directly, as its curve half does) and the
// known-answer tests replay recorded randomness, so both need the
// reader-driven forms. These are the functions the SSH method's production
// path uses; nothing else is passed this way.
//
// Package sntrup761 sets the functions in its init; in a binary that does
// not link it, the constructors report that (and no key exists to wrap).
package sntrupbridge

import (
	"errors"
	"io"
)

// Sizes of sntrup761's encodings; package sntrup761 fails to compile unless
// its own constants are equal.
const (
	EncapsulationKeySize = 1158
	DecapsulationKeySize = 1763
	CiphertextSize       = 1039
	SharedKeySize        = 32
)

// DecapsulationKey is a *sntrup761.DecapsulationKey.
type DecapsulationKey interface {
	// Bytes returns the key's 1763-byte encoding, which is secret.
	Bytes() []byte
	// EncapsulationKey returns the 1158-byte encoding of its
	// encapsulation key.
	EncapsulationKey() []byte
	// Decapsulate is sntrup761's Decapsulate: it checks the length of
	// ciphertext only (implicit rejection otherwise); the shared key is
	// secret.
	Decapsulate(ciphertext []byte) (sharedKey []byte, err error)
	// Clear overwrites the key (its encoding, transforms and rho hash)
	// with zeros, once its owner will not use it again.
	Clear()
	// Key returns the *sntrup761.DecapsulationKey itself.
	Key() any
}

// EncapsulationKey is a *sntrup761.EncapsulationKey.
type EncapsulationKey interface {
	// Encapsulate reads Short_random's 3044 bytes from rand in one read
	// (crypto/rand if rand is nil); the shared key is secret.
	Encapsulate(rand io.Reader) (sharedKey, ciphertext []byte, err error)
}

var (
	// GenerateKey generates a key pair reading randomness from rand in
	// the reference code's pattern (one Read per 3044-byte list, then 191
	// bytes of rho), or from crypto/rand if rand is nil.
	GenerateKey = func(rand io.Reader) (DecapsulationKey, error) { return nil, errNotLinked }
	// NewDecapsulationKey parses a 1763-byte encoding.
	NewDecapsulationKey = func(b []byte) (DecapsulationKey, error) { return nil, errNotLinked }
	// NewEncapsulationKey parses a 1158-byte encoding (every one of that
	// length is a key).
	NewEncapsulationKey = func(b []byte) (EncapsulationKey, error) { return nil, errNotLinked }
	// WrapDecapsulationKey takes a *sntrup761.DecapsulationKey, such as
	// one from a sntrup761.KeyPool.
	WrapDecapsulationKey func(dk any) DecapsulationKey
	// WrapEncapsulationKey takes a *sntrup761.EncapsulationKey.
	WrapEncapsulationKey func(ek any) EncapsulationKey
)

var errNotLinked = errors.New("package sntrup761 is not linked into this binary")
