// Package sntrup761 implements the Streamlined NTRU Prime key encapsulation
// mechanism sntrup761, as specified in "NTRU Prime: round 3" (2020-10-07)
// and used by SSH's sntrup761x25519-sha512 key exchange (RFC 9941).
//
// Keys, ciphertexts and shared keys are byte-compatible with the NTRU Prime
// reference implementation, the NIST known-answer tests and OpenSSH.
//
// Most SSH users want package sntrup761x25519 or sshkex rather than this
// package: sntrup761 on its own is not a hybrid and offers no classical
// security guarantee of its own.
//
// # Validation
//
// Encapsulation keys and ciphertexts are not validated beyond their length:
// the specification's decoders are total (section 3.1), so every byte string
// of the right length is a valid input, exactly as in the reference code.
// Decapsulation uses implicit rejection: a ciphertext that was not produced
// by Encapsulate with the matching key yields a pseudorandom shared key
// derived from the secret rho, never an error.
//
// # Randomness
//
// GenerateKey draws 3044 random bytes for g (again while g is not
// invertible in R/3), 3044 bytes for f and 191 bytes for rho; Encapsulate
// draws 3044 bytes for r: four bytes per coefficient, as the
// specification's Small_random and Short_random do. All come from
// crypto/rand, each list and rho in one read of crypto/rand's Reader (the
// variable's value at the call). If a read fails, which only a
// replacement of crypto/rand.Reader can make happen, GenerateKey and
// GenerateKeys return the error and Encapsulate, which has no error to
// return, panics. The sntrup761test package takes all these bytes from a
// caller's reader instead: the known-answer tests use it, and so does
// pqkex's SSH method sntrup761x25519, for a reader its caller passes
// (x/crypto's Config.Rand, when it is not crypto/rand's Reader) and, when
// it encapsulates, for crypto/rand's Reader itself, to return a failing
// replacement's error.
//
// # Constant time
//
// Every operation on secret data (key generation, encapsulation's random
// input, decapsulation) runs in time independent of the secret values in
// the default build. docs/constant-time.md in the module lists the
// functions and why each is constant time, and how this is checked;
// SECURITY.md has the current timing results. On amd64 with AVX2 the
// default build runs the inversions, the sort and the ring transforms in
// AVX2 assembly (left out with -tags purego), written and checked to the
// same rules.
package sntrup761

import (
	"crypto"
	"errors"
	"fmt"
	"io"

	"github.com/pqkex/pqkex/sntrup761/internal/core"
)

const (
	// EncapsulationKeySize is the size of an encoded encapsulation
	// (public) key.
	EncapsulationKeySize = 1158
	// DecapsulationKeySize is the size of an encoded decapsulation
	// (secret) key: f, 1/g, the public key, rho and a hash of the public
	// key, in the layout of the reference implementation.
	DecapsulationKeySize = 1763
	// CiphertextSize is the size of a ciphertext.
	CiphertextSize = 1039
	// SharedKeySize is the size of a shared key.
	SharedKeySize = 32
)

// DecapsulationKey is the secret key used to decapsulate a shared key from
// a ciphertext. It must be kept secret. Create keys with GenerateKey,
// NewDecapsulationKey, GenerateKeys or a KeyPool: the zero value (and a
// nil *DecapsulationKey) holds no key, and its methods panic with a
// message saying so, as crypto/mlkem's zero keys panic.
type DecapsulationKey struct {
	sk *core.PrivateKey
}

// EncapsulationKey is the public key used to produce ciphertexts. Create
// keys with NewEncapsulationKey or DecapsulationKey.EncapsulationKey:
// the zero value (and a nil *EncapsulationKey) holds no key, and its
// methods panic with a message saying so.
type EncapsulationKey struct {
	pk *core.PublicKey
}

// private returns dk's key; a zero or nil dk is a programming error, and
// a panic naming it is clearer than the nil dereference it would be.
func (dk *DecapsulationKey) private() *core.PrivateKey {
	if dk == nil || dk.sk == nil {
		panic("sntrup761: DecapsulationKey holds no key: create it with GenerateKey or NewDecapsulationKey")
	}
	return dk.sk
}

// public is private's counterpart for an EncapsulationKey.
func (ek *EncapsulationKey) public() *core.PublicKey {
	if ek == nil || ek.pk == nil {
		panic("sntrup761: EncapsulationKey holds no key: create it with NewEncapsulationKey or DecapsulationKey.EncapsulationKey")
	}
	return ek.pk
}

var (
	_ crypto.Decapsulator = (*DecapsulationKey)(nil)
	_ crypto.Encapsulator = (*EncapsulationKey)(nil)
)

// GenerateKey generates a new decapsulation key, drawing random bytes from
// crypto/rand. The key must be kept secret. It returns an error only if
// reading crypto/rand.Reader fails (only a replacement of it can).
func GenerateKey() (*DecapsulationKey, error) {
	dk, err := generateKey(nil)
	if err != nil {
		return nil, fmt.Errorf("sntrup761: reading randomness: %w", err)
	}
	return dk, nil
}

// NewDecapsulationKey parses a decapsulation key in the 1763-byte format
// returned by Bytes. It returns an error only if the length is wrong; the
// contents are not validated (the reference decoders are total).
func NewDecapsulationKey(b []byte) (*DecapsulationKey, error) {
	if len(b) != DecapsulationKeySize {
		return nil, errors.New("sntrup761: invalid decapsulation key length")
	}
	return &DecapsulationKey{core.NewPrivateKey((*[DecapsulationKeySize]byte)(b))}, nil
}

// Bytes returns the decapsulation key in its 1763-byte encoding. The result
// must be kept secret.
func (dk *DecapsulationKey) Bytes() []byte {
	b := *dk.private().Bytes()
	return b[:]
}

// EncapsulationKey returns the public encapsulation key of dk.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey {
	return &EncapsulationKey{dk.private().PublicKey()}
}

// Encapsulator returns the public encapsulation key, as a
// crypto.Encapsulator.
func (dk *DecapsulationKey) Encapsulator() crypto.Encapsulator {
	return dk.EncapsulationKey()
}

// Decapsulate returns the shared key encapsulated in ciphertext. It returns
// an error only if ciphertext is not CiphertextSize bytes long; an invalid
// ciphertext of the right length yields the implicit-rejection key
// (section 2.3.8). The shared key must be kept secret.
func (dk *DecapsulationKey) Decapsulate(ciphertext []byte) (sharedKey []byte, err error) {
	sk := dk.private()
	if len(ciphertext) != CiphertextSize {
		return nil, errors.New("sntrup761: invalid ciphertext length")
	}
	var k [SharedKeySize]byte
	sk.Decapsulate((*[CiphertextSize]byte)(ciphertext), &k)
	return k[:], nil
}

// NewEncapsulationKey parses an encapsulation key. It returns an error only
// if the length is wrong: every 1158-byte string decodes to an element of
// R/q (section 3.1).
func NewEncapsulationKey(b []byte) (*EncapsulationKey, error) {
	if len(b) != EncapsulationKeySize {
		return nil, errors.New("sntrup761: invalid encapsulation key length")
	}
	return &EncapsulationKey{core.NewPublicKey((*[EncapsulationKeySize]byte)(b))}, nil
}

// Bytes returns the encapsulation key in its 1158-byte encoding.
func (ek *EncapsulationKey) Bytes() []byte {
	b := *ek.public().Bytes()
	return b[:]
}

// Encapsulate generates a shared key and its ciphertext for ek, drawing
// random bytes from crypto/rand. The shared key must be kept secret. It
// panics if reading crypto/rand.Reader fails, which only a replacement of
// that variable can make happen; the panic holds the reader's error and
// nothing secret.
func (ek *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	sharedKey, ciphertext, err := encapsulate(ek, nil)
	if err != nil {
		// crypto/rand's own Reader never fails (Go 1.24 and later); only
		// a replacement of crypto/rand.Reader can.
		panic("sntrup761: reading randomness: " + err.Error())
	}
	return sharedKey, ciphertext
}

// generateKey and encapsulate are the reader-driven forms behind GenerateKey
// and Encapsulate, and, through sntrup761test (linkname.go), behind pqkex's
// SSH method given a caller's reader and its known-answer runners; they
// are not part of the public API. A nil rand means crypto/rand's Reader
// (read by the core, internal/core/random.go).
func generateKey(rand io.Reader) (*DecapsulationKey, error) {
	sk, err := core.GenerateKey(rand)
	if err != nil {
		return nil, err
	}
	return &DecapsulationKey{sk}, nil
}

func encapsulate(ek *EncapsulationKey, rand io.Reader) (sharedKey, ciphertext []byte, err error) {
	ct := new([CiphertextSize]byte)
	var k [SharedKeySize]byte
	if err := ek.public().Encapsulate(rand, ct, &k); err != nil {
		return nil, nil, err
	}
	return k[:], ct[:], nil
}

// Size constants of this package must agree with the implementation, each
// on its own (a sum would let errors of opposite sign cancel): each line
// fails to compile unless the difference is 0.
var (
	_ = [1]struct{}{}[EncapsulationKeySize-core.PublicKeySize]
	_ = [1]struct{}{}[core.PublicKeySize-EncapsulationKeySize]
	_ = [1]struct{}{}[DecapsulationKeySize-core.PrivateKeySize]
	_ = [1]struct{}{}[core.PrivateKeySize-DecapsulationKeySize]
	_ = [1]struct{}{}[CiphertextSize-core.CiphertextSize]
	_ = [1]struct{}{}[core.CiphertextSize-CiphertextSize]
	_ = [1]struct{}{}[SharedKeySize-core.SharedKeySize]
	_ = [1]struct{}{}[core.SharedKeySize-SharedKeySize]
)
