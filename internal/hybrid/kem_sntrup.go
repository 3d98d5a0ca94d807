package hybrid

import (
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
	"github.com/pqkex/pqkex/sntrup761"
)

// SNTRUP761 returns this module's sntrup761 (package sntrup761) as the
// post-quantum half of a method. Its public API draws from crypto/rand
// only; the reader-driven key generation and encapsulation that the SSH
// method needs (x/crypto's Config.Rand, the known answers' recorded
// randomness) come through internal/sntrupbridge. Its decoders are total:
// every encapsulation key of the right length parses.
func SNTRUP761() KEM { return sntrupKEM{} }

type sntrupKEM struct{}

func (sntrupKEM) Name() string              { return "sntrup761" }
func (sntrupKEM) Impl() string              { return "pqkex" }
func (sntrupKEM) EncapsulationKeySize() int { return sntrup761.EncapsulationKeySize }
func (sntrupKEM) CiphertextSize() int       { return sntrup761.CiphertextSize }
func (sntrupKEM) RandomnessSize() int       { return 4 * 761 }

// GenerateKey reads, as OpenSSH does, 3044 bytes for g (again while g is
// not invertible), 3044 bytes for f and 191 bytes for rho, each in one
// read; crypto/rand if r is nil.
func (sntrupKEM) GenerateKey(r io.Reader) (DecapsulationKey, error) {
	if r == nil {
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			return nil, err
		}
		return SNTRUP761Key(dk), nil
	}
	dk, err := sntrupbridge.GenerateKey(r)
	if err != nil {
		return nil, err
	}
	return SNTRUP761Key(dk.(*sntrup761.DecapsulationKey)), nil
}

// NewDecapsulationKey parses a 1763-byte decapsulation key.
func (k sntrupKEM) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	if b == nil {
		return k.GenerateKey(nil)
	}
	if len(b) != sntrup761.DecapsulationKeySize {
		return nil, fmt.Errorf("sntrup761 decapsulation key has %d bytes, want %d", len(b), sntrup761.DecapsulationKeySize)
	}
	dk, err := sntrup761.NewDecapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return SNTRUP761Key(dk), nil
}

func (sntrupKEM) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	k, err := sntrup761.NewEncapsulationKey(ek) // checks the length only
	if err != nil {
		return nil, err
	}
	return sntrupEK{k}, nil
}

type sntrupEK struct{ ek *sntrup761.EncapsulationKey }

// Encapsulate reads Short_random's 3044 bytes from r, in one read
// (crypto/rand if nil).
func (e sntrupEK) Encapsulate(ct, k []byte, r io.Reader) error {
	var kk, c []byte
	if r == nil {
		kk, c = e.ek.Encapsulate()
	} else {
		var err error
		if kk, c, err = sntrupbridge.Encapsulate(e.ek, r); err != nil {
			return err
		}
	}
	return copyOut(ct, k, c, kk)
}

// SNTRUP761Key wraps a fresh sntrup761 decapsulation key, such as one from
// a sntrup761.KeyPool, for Method.NewClientWithKEMKey. The Client owns it
// from then on and overwrites it when done.
func SNTRUP761Key(dk *sntrup761.DecapsulationKey) DecapsulationKey { return &sntrupDK{dk} }

type sntrupDK struct{ dk *sntrup761.DecapsulationKey }

func (d *sntrupDK) EncapsulationKey(dst []byte) { copy(dst, d.dk.EncapsulationKey().Bytes()) }

func (d *sntrupDK) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	decapsulated(k, kk, err)
}

// Clear overwrites the key (its encoding, transforms and rho hash).
func (d *sntrupDK) Clear() {
	if d.dk != nil {
		sntrupbridge.ClearKey(d.dk)
		d.dk = nil
	}
}
