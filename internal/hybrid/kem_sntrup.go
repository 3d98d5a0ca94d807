package hybrid

import (
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
)

// SNTRUP761 returns this module's sntrup761 (package sntrup761) as the
// post-quantum half of a method, through internal/sntrupbridge: this
// package stands below package sntrup761 and does not import it, so a
// binary that runs the method links that package (every importer of
// sntrup761x25519 or sshkex does; the operations report it otherwise).
// The reader-driven key generation and encapsulation that the SSH method
// needs (x/crypto's Config.Rand, the known answers' recorded randomness)
// are the bridge's; with a nil reader (the engine's "draw your own", see
// Method.NewClient) package sntrup761 reads crypto/rand itself. Its
// decoders are total: every encapsulation key of the right length parses.
func SNTRUP761() KEM { return sntrupKEM{} }

type sntrupKEM struct{}

func (sntrupKEM) Name() string              { return "sntrup761" }
func (sntrupKEM) Impl() string              { return "pqkex" }
func (sntrupKEM) EncapsulationKeySize() int { return sntrupbridge.EncapsulationKeySize }
func (sntrupKEM) CiphertextSize() int       { return sntrupbridge.CiphertextSize }
func (sntrupKEM) RandomnessSize() int       { return 4 * 761 }

// GenerateKey reads, as OpenSSH does, 3044 bytes for g (again while g is
// not invertible), 3044 bytes for f and 191 bytes for rho, each in one
// read; crypto/rand if r is nil.
func (sntrupKEM) GenerateKey(r io.Reader) (DecapsulationKey, error) {
	dk, err := sntrupbridge.GenerateKey(r)
	if err != nil {
		return nil, err
	}
	return &sntrupDK{dk}, nil
}

// NewDecapsulationKey parses a 1763-byte decapsulation key.
func (k sntrupKEM) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	if b == nil {
		return k.GenerateKey(nil)
	}
	if len(b) != sntrupbridge.DecapsulationKeySize {
		return nil, fmt.Errorf("sntrup761 decapsulation key has %d bytes, want %d", len(b), sntrupbridge.DecapsulationKeySize)
	}
	dk, err := sntrupbridge.NewDecapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &sntrupDK{dk}, nil
}

func (sntrupKEM) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	k, err := sntrupbridge.NewEncapsulationKey(ek) // checks the length only
	if err != nil {
		return nil, err
	}
	return sntrupEK{k}, nil
}

type sntrupEK struct{ ek sntrupbridge.EncapsulationKey }

// Encapsulate reads Short_random's 3044 bytes from r, in one read
// (crypto/rand if nil).
func (e sntrupEK) Encapsulate(ct, k []byte, r io.Reader) error {
	kk, c, err := e.ek.Encapsulate(r)
	if err != nil {
		return err
	}
	return copyOut(ct, k, c, kk)
}

// SNTRUP761Key wraps a fresh *sntrup761.DecapsulationKey, such as one from
// a sntrup761.KeyPool, for Method.NewClientWithKEMKey (package sntrup761
// is linked: the caller holds one of its keys). The Client owns it from
// then on and overwrites it when done.
func SNTRUP761Key(dk any) DecapsulationKey { return &sntrupDK{sntrupbridge.WrapDecapsulationKey(dk)} }

type sntrupDK struct{ dk sntrupbridge.DecapsulationKey }

func (d *sntrupDK) EncapsulationKey(dst []byte) { copy(dst, d.dk.EncapsulationKey()) }

func (d *sntrupDK) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	decapsulated(k, kk, err)
}

// Clear overwrites the key (its encoding, transforms and rho hash).
func (d *sntrupDK) Clear() {
	if d.dk != nil {
		d.dk.Clear()
		d.dk = nil
	}
}
