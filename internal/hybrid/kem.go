package hybrid

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"io"
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

// KEM is one implementation of the post-quantum half of a method: one
// ML-KEM parameter set (circl's or crypto/mlkem's), or sntrup761
// (SNTRUP761). Every shared key is 32 bytes.
type KEM interface {
	// Name is "ML-KEM-768", "ML-KEM-1024" or "sntrup761".
	Name() string
	// Impl names the implementation: "circl", "std" for crypto/mlkem,
	// or "pqkex" for this module's sntrup761.
	Impl() string
	EncapsulationKeySize() int
	CiphertextSize() int
	// RandomnessSize is the size of Encapsulate's m: 32 for ML-KEM, 3044
	// for sntrup761 (the 761 four-byte values of Short_random).
	RandomnessSize() int
	// GenerateKey reads the key generation randomness from r, in the
	// order the known answers record: ML-KEM the 64-byte seed d || z
	// (one read), sntrup761 OpenSSH's pattern (see package sntrup761).
	// A nil r means the implementation draws it (crypto/mlkem: the
	// module's ML-KEM.KeyGen with its pairwise consistency test).
	GenerateKey(r io.Reader) (DecapsulationKey, error)
	// NewDecapsulationKey loads a key from its known-answer form: for
	// ML-KEM, ML-KEM.KeyGen_internal on the 64-byte seed d || z (FIPS 203
	// Algorithm 16); for sntrup761, its 1763-byte encoding. A nil seed is
	// GenerateKey(nil).
	NewDecapsulationKey(seed []byte) (DecapsulationKey, error)
	// ParseEncapsulationKey checks and parses an encapsulation key: for
	// ML-KEM the check of FIPS 203 section 7.2 (length and modulus); for
	// sntrup761 only the length (its decoder is total).
	ParseEncapsulationKey(ek []byte) (EncapsulationKey, error)
}

// EncapsulationKey is a parsed, checked encapsulation key.
type EncapsulationKey interface {
	// Encapsulate writes the ciphertext to ct and the 32-byte shared key
	// to k, reading the encapsulation randomness from r, as the curve
	// half reads its key: RandomnessSize bytes, for ML-KEM the m of
	// ML-KEM.Encaps_internal (FIPS 203 Algorithm 17) in one read, for
	// sntrup761 Short_random's 3044 bytes. A nil r means the
	// implementation draws it (with crypto/mlkem: ML-KEM.Encaps, drawn by
	// the module itself). ct and k must have the exact sizes. It fails
	// only if r does.
	Encapsulate(ct, k []byte, r io.Reader) error
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

// seedKey is GenerateKey for ML-KEM: ML-KEM.KeyGen_internal on the 64-byte
// seed d || z read from r in one read, or the implementation's own key
// generation if r is nil.
func seedKey(k KEM, r io.Reader) (DecapsulationKey, error) {
	if r == nil {
		return k.NewDecapsulationKey(nil)
	}
	var seed [64]byte
	defer clear(seed[:])
	if _, err := io.ReadFull(r, seed[:]); err != nil {
		return nil, err
	}
	return k.NewDecapsulationKey(seed[:])
}

// readM reads ML-KEM's 32-byte encapsulation randomness m from r
// (crypto/rand if nil) into m.
func readM(m *[32]byte, r io.Reader) error {
	if r == nil {
		return readOwn(m[:])
	}
	_, err := io.ReadFull(r, m[:])
	return err
}

// errSeedSize is NewDecapsulationKey's error for a seed of the wrong size.
func errSeedSize(k KEM, seed []byte) error {
	return fmt.Errorf("%s seed has %d bytes, want 64", k.Name(), len(seed))
}

// copyOut copies a ciphertext and shared key into the caller's buffers and
// clears the source's copy of the key.
func copyOut(ct, k, c, kk []byte) error {
	defer clear(kk)
	if len(c) != len(ct) || len(kk) != len(k) {
		return errors.New("hybrid: unexpected KEM output size")
	}
	copy(ct, c)
	copy(k, kk)
	return nil
}

// decapsulated copies the shared key kk that an implementation's
// Decapsulate returned to k and clears kk. err can only be a wrong
// ciphertext length, which the caller excludes.
func decapsulated(k, kk []byte, err error) {
	if err != nil {
		panic("hybrid: " + err.Error())
	}
	copy(k, kk)
	clear(kk)
}
