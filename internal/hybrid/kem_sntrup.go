package hybrid

import (
	"crypto/rand"
	"fmt"
	"io"
	_ "unsafe" // for go:linkname

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// SNTRUP761 returns this module's sntrup761 (package sntrup761) as the
// post-quantum half of a method. The engine reaches it as it reaches
// crypto/mlkem: through its public API, and through sntrup761test (as
// mlkemtest for ML-KEM) for the randomness a caller's reader gives
// (x/crypto's Config.Rand, the known answers' recorded randomness). Its
// decoders are total: every encapsulation key of the right length parses.
func SNTRUP761() KEM { return sntrupKEM{} }

type sntrupKEM struct{}

func (sntrupKEM) Name() string              { return "sntrup761" }
func (sntrupKEM) Impl() string              { return "pqkex" }
func (sntrupKEM) EncapsulationKeySize() int { return sntrup761.EncapsulationKeySize }
func (sntrupKEM) CiphertextSize() int       { return sntrup761.CiphertextSize }
func (sntrupKEM) RandomnessSize() int       { return 4 * 761 }

// GenerateKey reads, as OpenSSH does, 3044 bytes for g (again while g is
// not invertible), 3044 bytes for f and 191 bytes for rho, each in one
// read (sntrup761test.GenerateKey); if r is nil, sntrup761.GenerateKey
// reads the same from crypto/rand.
func (sntrupKEM) GenerateKey(r io.Reader) (DecapsulationKey, error) {
	var dk *sntrup761.DecapsulationKey
	var err error
	if r == nil {
		dk, err = sntrup761.GenerateKey()
	} else {
		dk, err = sntrup761test.GenerateKey(r)
	}
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
	if len(b) != sntrup761.DecapsulationKeySize {
		return nil, fmt.Errorf("sntrup761 decapsulation key has %d bytes, want %d", len(b), sntrup761.DecapsulationKeySize)
	}
	dk, err := sntrup761.NewDecapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &sntrupDK{dk}, nil
}

func (sntrupKEM) ParseEncapsulationKey(b []byte) (EncapsulationKey, error) {
	ek, err := sntrup761.NewEncapsulationKey(b) // checks the length only
	if err != nil {
		return nil, err
	}
	return sntrupEK{ek}, nil
}

type sntrupEK struct{ ek *sntrup761.EncapsulationKey }

// Encapsulate reads Short_random's 3044 bytes from r, in one read. If r
// is nil it reads them from crypto/rand's Reader, passed explicitly:
// sntrup761's own Encapsulate reads the same bytes but panics if the
// read fails (only a replacement of crypto/rand.Reader can fail), where
// the methods promise an error.
func (e sntrupEK) Encapsulate(ct, k []byte, r io.Reader) error {
	var own *systemRand
	if r == nil {
		own = new(systemRand)
		r = own
	}
	kk, c, err := sntrup761test.Encapsulate(e.ek, r)
	if own != nil && own.err != nil {
		// A Read may return all the bytes with an error: io.ReadFull
		// then succeeds and kk is a shared key, which goes unused.
		clear(kk)
		return fmt.Errorf("reading crypto/rand: %w", own.err)
	}
	if err != nil {
		return err
	}
	return copyOut(ct, k, c, kk)
}

// systemRand reads crypto/rand's Reader, the variable's value at each
// read (as sntrup761 reads it itself), and keeps the first error.
type systemRand struct{ err error }

func (s *systemRand) Read(p []byte) (int, error) {
	n, err := rand.Reader.Read(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// SNTRUP761Key wraps a fresh sntrup761 key, such as one from a
// sntrup761.KeyPool, for Method.NewClientWithKEMKey. The Client owns it
// from then on and overwrites it when done.
func SNTRUP761Key(dk *sntrup761.DecapsulationKey) DecapsulationKey { return &sntrupDK{dk} }

type sntrupDK struct{ dk *sntrup761.DecapsulationKey }

func (d *sntrupDK) EncapsulationKey(dst []byte) { copy(dst, d.dk.EncapsulationKey().Bytes()) }

func (d *sntrupDK) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	decapsulated(k, kk, err)
}

// Clear overwrites the key (its encoding, transforms and rho hash), which
// may be the caller's (SNTRUP761Key): nothing of sntrup761's public API
// can, so package sntrup761 provides clearSNTRUP761Key.
func (d *sntrupDK) Clear() {
	if d.dk != nil {
		clearSNTRUP761Key(d.dk)
		d.dk = nil
	}
}

// clearSNTRUP761Key overwrites dk's key with zeros: every method of dk
// returns zeros afterwards. Package sntrup761 provides the body
// (sntrup761/linkname.go, its clearKey), with //go:linkname: this package
// imports sntrup761, so it is always linked in, and without it the link
// fails. The signature must be clearKey's; the linker does not compare
// them. sntrup761x25519's TestClientWipesSecrets checks every path.
//
//go:linkname clearSNTRUP761Key
func clearSNTRUP761Key(dk *sntrup761.DecapsulationKey)
