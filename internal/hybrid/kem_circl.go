package hybrid

import (
	"io"

	"github.com/cloudflare/circl/kem"
	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

// circl's ML-KEM, through its kem.Scheme interface (one implementation for
// both parameter sets). It takes its randomness as bytes and loads
// expanded decapsulation keys; it is never used in FIPS 140-3 mode. Every
// entry point counts itself in circlCalls and calls
// ResetUpperState after circl's AVX2 code (see there).

// ExpandedKEM is implemented by circl's backends only (crypto/mlkem
// neither exports nor loads the expanded form dk_PKE || ek || H(ek) || z).
type ExpandedKEM interface {
	KEM
	// ExpandedSize is the size of an expanded decapsulation key.
	ExpandedSize() int
	// LoadExpanded loads an expanded decapsulation key, checking H(ek)
	// as FIPS 203 section 7.3 requires.
	LoadExpanded(dk []byte) (DecapsulationKey, error)
	// Expanded returns the expanded form of a key of this backend.
	Expanded(dk DecapsulationKey) []byte
}

// LoadExpanded768 loads a 2400-byte expanded ML-KEM-768 decapsulation key
// (MLKEM768X25519.Expanded, for known answers).
func LoadExpanded768(dk []byte) (DecapsulationKey, error) {
	return circlKEMs[MLKEM768].(circlKEM).LoadExpanded(dk)
}

// ExpandedSize768 is the size of an expanded ML-KEM-768 decapsulation key.
const ExpandedSize768 = mlkem768.PrivateKeySize

type circlKEM struct{ s kem.Scheme }

func (k circlKEM) Name() string              { return k.s.Name() }
func (circlKEM) Impl() string                { return "circl" }
func (k circlKEM) EncapsulationKeySize() int { return k.s.PublicKeySize() }
func (k circlKEM) CiphertextSize() int       { return k.s.CiphertextSize() }
func (k circlKEM) ExpandedSize() int         { return k.s.PrivateKeySize() }
func (circlKEM) RandomnessSize() int         { return 32 }

func (k circlKEM) GenerateKey(r io.Reader) (DecapsulationKey, error) { return seedKey(k, r) }

func (k circlKEM) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	var s [64]byte
	defer clear(s[:])
	if seed == nil {
		if err := readOwn(s[:]); err != nil {
			return nil, err
		}
	} else if len(seed) != len(s) {
		return nil, errSeedSize(k, seed)
	}
	copy(s[:], seed)
	defer ResetUpperState()
	pk, sk := k.s.DeriveKeyPair(s[:])
	return &circlDK{k.s, pk, sk}, nil
}

func (k circlKEM) LoadExpanded(dk []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	defer ResetUpperState()
	sk, err := k.s.UnmarshalBinaryPrivateKey(dk) // checks the size and H(ek)
	if err != nil {
		return nil, err
	}
	return &circlDK{k.s, sk.Public(), sk}, nil
}

func (circlKEM) Expanded(dk DecapsulationKey) []byte {
	circlCalls.Add(1)
	b, err := dk.(*circlDK).sk.MarshalBinary()
	if err != nil {
		panic(err) // cannot fail for circl's ML-KEM keys
	}
	return b
}

func (k circlKEM) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	circlCalls.Add(1)
	defer ResetUpperState()
	pk, err := k.s.UnmarshalBinaryPublicKey(ek) // checks the size and the modulus
	if err != nil {
		return nil, err
	}
	return circlEK{k.s, pk}, nil
}

type circlEK struct {
	s  kem.Scheme
	pk kem.PublicKey
}

func (e circlEK) Encapsulate(ct, k []byte, r io.Reader) error {
	circlCalls.Add(1)
	var m [32]byte
	defer clear(m[:])
	if err := readM(&m, r); err != nil {
		return err
	}
	defer ResetUpperState()
	c, kk, err := e.s.EncapsulateDeterministically(e.pk, m[:])
	if err != nil {
		return err
	}
	return copyOut(ct, k, c, kk)
}

type circlDK struct {
	s  kem.Scheme
	pk kem.PublicKey
	sk kem.PrivateKey
}

func (d *circlDK) EncapsulationKey(dst []byte) {
	circlCalls.Add(1)
	b, err := d.pk.MarshalBinary()
	if err != nil {
		panic(err) // cannot fail for circl's ML-KEM keys
	}
	copy(dst, b)
}

func (d *circlDK) Decapsulate(k, ct []byte) {
	circlCalls.Add(1)
	defer ResetUpperState()
	kk, err := d.s.Decapsulate(d.sk, ct)
	decapsulated(k, kk, err)
}

// Clear overwrites z and H(ek) and drops the rest (circl's key cannot be
// overwritten from outside).
func (d *circlDK) Clear() {
	switch sk := d.sk.(type) {
	case *mlkem768.PrivateKey:
		*sk = mlkem768.PrivateKey{}
	case *mlkem1024.PrivateKey:
		*sk = mlkem1024.PrivateKey{}
	}
	d.sk, d.pk = nil, nil
}
