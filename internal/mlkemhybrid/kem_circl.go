package mlkemhybrid

import (
	"crypto/rand"
	"errors"

	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// circl's ML-KEM takes its randomness as bytes and loads expanded
// decapsulation keys; it is never used in FIPS 140-3 mode. Every entry
// point counts itself in circlCalls and calls hybrid.ResetUpperState
// after circl's AVX2 code (see there).

var errSeedSize = errors.New("mlkemhybrid: ML-KEM seed must be 64 bytes")

type circlKEM768 struct{}

func (circlKEM768) Name() string              { return "ML-KEM-768" }
func (circlKEM768) Impl() string              { return "circl" }
func (circlKEM768) EncapsulationKeySize() int { return mlkem768.PublicKeySize }
func (circlKEM768) CiphertextSize() int       { return mlkem768.CiphertextSize }

func (circlKEM768) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	var s [mlkem768.KeySeedSize]byte
	defer clear(s[:])
	if seed == nil {
		if _, err := rand.Read(s[:]); err != nil {
			return nil, err
		}
	} else if copy(s[:], seed) != len(seed) || len(seed) != len(s) {
		return nil, errSeedSize
	}
	defer hybrid.ResetUpperState()
	_, dk := mlkem768.NewKeyFromSeed(s[:])
	return &circlDK768{dk}, nil
}

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
// (mlkem768x25519test only).
func LoadExpanded768(dk []byte) (DecapsulationKey, error) {
	return circlKEM768{}.LoadExpanded(dk)
}

// ExpandedSize768 is the size of an expanded ML-KEM-768 decapsulation key.
const ExpandedSize768 = mlkem768.PrivateKeySize

func (circlKEM768) ExpandedSize() int { return mlkem768.PrivateKeySize }

func (circlKEM768) LoadExpanded(dk []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	k := new(mlkem768.PrivateKey)
	if err := k.Unpack(dk); err != nil {
		return nil, err
	}
	return &circlDK768{k}, nil
}

func (circlKEM768) Expanded(dk DecapsulationKey) []byte {
	circlCalls.Add(1)
	b := make([]byte, mlkem768.PrivateKeySize)
	dk.(*circlDK768).dk.Pack(b)
	return b
}

func (circlKEM768) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	k := new(mlkem768.PublicKey)
	if err := k.Unpack(ek); err != nil {
		return nil, err
	}
	return circlEK768{k}, nil
}

type circlEK768 struct{ k *mlkem768.PublicKey }

func (e circlEK768) Encapsulate(ct, k, m []byte) error {
	circlCalls.Add(1)
	if m == nil {
		var s [mlkem768.EncapsulationSeedSize]byte
		defer clear(s[:])
		if _, err := rand.Read(s[:]); err != nil {
			return err
		}
		m = s[:]
	}
	defer hybrid.ResetUpperState()
	e.k.EncapsulateTo(ct, k, m)
	return nil
}

type circlDK768 struct{ dk *mlkem768.PrivateKey }

func (d *circlDK768) EncapsulationKey(dst []byte) {
	circlCalls.Add(1)
	d.dk.Public().(*mlkem768.PublicKey).Pack(dst)
}

func (d *circlDK768) Decapsulate(k, ct []byte) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	d.dk.DecapsulateTo(k, ct)
}

// Clear overwrites z and H(ek) and drops the rest (circl's key cannot be
// overwritten from outside).
func (d *circlDK768) Clear() {
	if d.dk != nil {
		*d.dk = mlkem768.PrivateKey{}
		d.dk = nil
	}
}

type circlKEM1024 struct{}

func (circlKEM1024) Name() string              { return "ML-KEM-1024" }
func (circlKEM1024) Impl() string              { return "circl" }
func (circlKEM1024) EncapsulationKeySize() int { return mlkem1024.PublicKeySize }
func (circlKEM1024) CiphertextSize() int       { return mlkem1024.CiphertextSize }

func (circlKEM1024) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	var s [mlkem1024.KeySeedSize]byte
	defer clear(s[:])
	if seed == nil {
		if _, err := rand.Read(s[:]); err != nil {
			return nil, err
		}
	} else if copy(s[:], seed) != len(seed) || len(seed) != len(s) {
		return nil, errSeedSize
	}
	defer hybrid.ResetUpperState()
	_, dk := mlkem1024.NewKeyFromSeed(s[:])
	return &circlDK1024{dk}, nil
}

func (circlKEM1024) ExpandedSize() int { return mlkem1024.PrivateKeySize }

func (circlKEM1024) LoadExpanded(dk []byte) (DecapsulationKey, error) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	k := new(mlkem1024.PrivateKey)
	if err := k.Unpack(dk); err != nil {
		return nil, err
	}
	return &circlDK1024{k}, nil
}

func (circlKEM1024) Expanded(dk DecapsulationKey) []byte {
	circlCalls.Add(1)
	b := make([]byte, mlkem1024.PrivateKeySize)
	dk.(*circlDK1024).dk.Pack(b)
	return b
}

func (circlKEM1024) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	k := new(mlkem1024.PublicKey)
	if err := k.Unpack(ek); err != nil {
		return nil, err
	}
	return circlEK1024{k}, nil
}

type circlEK1024 struct{ k *mlkem1024.PublicKey }

func (e circlEK1024) Encapsulate(ct, k, m []byte) error {
	circlCalls.Add(1)
	if m == nil {
		var s [mlkem1024.EncapsulationSeedSize]byte
		defer clear(s[:])
		if _, err := rand.Read(s[:]); err != nil {
			return err
		}
		m = s[:]
	}
	defer hybrid.ResetUpperState()
	e.k.EncapsulateTo(ct, k, m)
	return nil
}

type circlDK1024 struct{ dk *mlkem1024.PrivateKey }

func (d *circlDK1024) EncapsulationKey(dst []byte) {
	circlCalls.Add(1)
	d.dk.Public().(*mlkem1024.PublicKey).Pack(dst)
}

func (d *circlDK1024) Decapsulate(k, ct []byte) {
	circlCalls.Add(1)
	defer hybrid.ResetUpperState()
	d.dk.DecapsulateTo(k, ct)
}

// Clear overwrites z and H(ek) and drops the rest.
func (d *circlDK1024) Clear() {
	if d.dk != nil {
		*d.dk = mlkem1024.PrivateKey{}
		d.dk = nil
	}
}
