package hybrid

import (
	"crypto/fips140"
	"sync/atomic"

	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

// Params names an ML-KEM parameter set (FIPS 203 section 8, table 2).
type Params int

const (
	MLKEM768 Params = iota
	MLKEM1024
)

// KEM is one implementation of one ML-KEM parameter set.
type KEM interface {
	// Name is the parameter set, "ML-KEM-768" or "ML-KEM-1024".
	Name() string
	// Impl names the implementation: "circl", or "std" for crypto/mlkem.
	Impl() string
	EncapsulationKeySize() int
	CiphertextSize() int
	// NewDecapsulationKey runs ML-KEM.KeyGen_internal on the 64-byte seed
	// d || z (FIPS 203 Algorithm 16). A nil seed means the key is
	// generated from crypto/rand (crypto/mlkem: by the module itself,
	// with its pairwise consistency test).
	NewDecapsulationKey(seed []byte) (DecapsulationKey, error)
	// ParseEncapsulationKey runs the encapsulation key check of FIPS 203
	// section 7.2 (length and modulus) and returns the parsed key.
	ParseEncapsulationKey(ek []byte) (EncapsulationKey, error)
}

// EncapsulationKey is a parsed, checked ML-KEM encapsulation key.
type EncapsulationKey interface {
	// Encapsulate writes the ciphertext to ct and the 32-byte shared key
	// to k. m is the 32-byte randomness of ML-KEM.Encaps_internal (FIPS
	// 203 Algorithm 17); nil means randomness from crypto/rand (with
	// crypto/mlkem: ML-KEM.Encaps, drawn by the module itself). ct and k
	// must have the exact sizes.
	Encapsulate(ct, k, m []byte) error
}

// DecapsulationKey is an ML-KEM decapsulation key. It is secret.
type DecapsulationKey interface {
	// EncapsulationKey writes the encapsulation key (public) to dst,
	// which has the exact size.
	EncapsulationKey(dst []byte)
	// Decapsulate writes the 32-byte shared key to k (FIPS 203 Algorithm
	// 18, implicit rejection: a bad ct gives a pseudo-random k, never an
	// error). ct has the exact size. Constant time in the key and in
	// whether ct was valid.
	Decapsulate(k, ct []byte)
	// Clear forgets the key (best effort).
	Clear()
}

var (
	stdKEMs   = [...]KEM{MLKEM768: stdKEM768, MLKEM1024: stdKEM1024}
	circlKEMs = [...]KEM{MLKEM768: circlKEM{mlkem768.Scheme()}, MLKEM1024: circlKEM{mlkem1024.Scheme()}}
)

// Default returns the implementation of p that the methods use: in FIPS
// 140-3 mode (crypto/fips140.Enabled) always crypto/mlkem, the Go
// Cryptographic Module's; otherwise the faster one by measurement (circl
// for both parameter sets, see BenchmarkKEM).
func Default(p Params) KEM {
	if fips140.Enabled() {
		return stdKEMs[p]
	}
	return circlKEMs[p]
}

// Std returns crypto/mlkem's implementation of p.
func Std(p Params) KEM { return stdKEMs[p] }

// Circl returns circl's implementation of p. Never on the FIPS path.
func Circl(p Params) KEM { return circlKEMs[p] }

// circlCalls counts entries into circl's ML-KEM code; the FIPS tests
// check that it stays zero in FIPS 140-3 mode.
var circlCalls atomic.Int64

// CirclCalls returns how many times circl's ML-KEM was entered so far in
// this process (for tests).
func CirclCalls() int64 { return circlCalls.Load() }

// derandomized counts the known-answer services that are not the Go
// Cryptographic Module's approved key generation and encapsulation:
// crypto/mlkem keys from a given seed, encapsulation with a given m
// (crypto/mlkem/mlkemtest), and P-256/P-384 keys imported from given
// scalars (crypto/ecdh.NewPrivateKey, no pairwise consistency test). The
// FIPS tests check that NewClient and Respond of the NIST-curve hybrids
// never reach them in FIPS 140-3 mode.
var derandomized atomic.Int64

// DerandomizedCalls returns how many times a derandomized service was
// entered so far in this process (for tests).
func DerandomizedCalls() int64 { return derandomized.Load() }
