package hybrid

import (
	"crypto"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
	"io"
)

// crypto/mlkem is the Go Cryptographic Module's ML-KEM (FIPS 140-3
// validated as part of the module), the only backend used in FIPS mode.
// Both parameter sets go through crypto.Decapsulator / crypto.Encapsulator.
// The module takes no caller randomness: a derandomized encapsulation (a
// given m) goes through crypto/mlkem/mlkemtest, which re-parses the key;
// with m == nil the module's own Encapsulate runs.
type stdKEM struct {
	name           string
	ekSize, ctSize int
	generate       func() (crypto.Decapsulator, error)
	fromSeed       func(seed []byte) (crypto.Decapsulator, error)
	parse          func(ek []byte) (crypto.Encapsulator, error)
	derandomized   func(ek crypto.Encapsulator, m []byte) (k, ct []byte, err error)
}

var (
	stdKEM768 = stdKEM{
		name: "ML-KEM-768", ekSize: mlkem.EncapsulationKeySize768, ctSize: mlkem.CiphertextSize768,
		generate: func() (crypto.Decapsulator, error) { return decapsulator(mlkem.GenerateKey768()) },
		fromSeed: func(s []byte) (crypto.Decapsulator, error) { return decapsulator(mlkem.NewDecapsulationKey768(s)) },
		parse:    func(ek []byte) (crypto.Encapsulator, error) { return encapsulator(mlkem.NewEncapsulationKey768(ek)) },
		derandomized: func(ek crypto.Encapsulator, m []byte) ([]byte, []byte, error) {
			return mlkemtest.Encapsulate768(ek.(*mlkem.EncapsulationKey768), m)
		},
	}
	stdKEM1024 = stdKEM{
		name: "ML-KEM-1024", ekSize: mlkem.EncapsulationKeySize1024, ctSize: mlkem.CiphertextSize1024,
		generate: func() (crypto.Decapsulator, error) { return decapsulator(mlkem.GenerateKey1024()) },
		fromSeed: func(s []byte) (crypto.Decapsulator, error) { return decapsulator(mlkem.NewDecapsulationKey1024(s)) },
		parse:    func(ek []byte) (crypto.Encapsulator, error) { return encapsulator(mlkem.NewEncapsulationKey1024(ek)) },
		derandomized: func(ek crypto.Encapsulator, m []byte) ([]byte, []byte, error) {
			return mlkemtest.Encapsulate1024(ek.(*mlkem.EncapsulationKey1024), m)
		},
	}
)

// decapsulator and encapsulator turn a typed result into an interface
// without wrapping a nil pointer.
func decapsulator[T crypto.Decapsulator](k T, err error) (crypto.Decapsulator, error) {
	if err != nil {
		return nil, err
	}
	return k, nil
}

func encapsulator[T crypto.Encapsulator](k T, err error) (crypto.Encapsulator, error) {
	if err != nil {
		return nil, err
	}
	return k, nil
}

func (k stdKEM) Name() string              { return k.name }
func (stdKEM) Impl() string                { return "std" }
func (k stdKEM) EncapsulationKeySize() int { return k.ekSize }
func (k stdKEM) CiphertextSize() int       { return k.ctSize }
func (stdKEM) RandomnessSize() int         { return 32 }

func (k stdKEM) GenerateKey(r io.Reader) (DecapsulationKey, error) { return seedKey(k, r) }

func (k stdKEM) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	var dk crypto.Decapsulator
	var err error
	switch {
	case seed == nil:
		dk, err = k.generate() // the module's ML-KEM.KeyGen, with its pairwise consistency test
	case len(seed) != 64:
		return nil, errSeedSize(k, seed)
	default:
		derandomized.Add(1)
		dk, err = k.fromSeed(seed)
	}
	if err != nil {
		return nil, err
	}
	return &stdDK{dk}, nil
}

func (k stdKEM) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	e, err := k.parse(ek)
	if err != nil {
		return nil, err
	}
	return stdEK{k, e}, nil
}

type stdEK struct {
	kem stdKEM
	ek  crypto.Encapsulator
}

func (e stdEK) Encapsulate(ct, k []byte, r io.Reader) error {
	var kk, c []byte
	if r == nil {
		kk, c = e.ek.Encapsulate() // the module's ML-KEM.Encaps
	} else {
		var m [32]byte
		defer clear(m[:])
		if err := readM(&m, r); err != nil {
			return err
		}
		derandomized.Add(1) // refused by Go under GODEBUG=fips140=only
		var err error
		if kk, c, err = e.kem.derandomized(e.ek, m[:]); err != nil {
			return err
		}
	}
	return copyOut(ct, k, c, kk)
}

type stdDK struct{ dk crypto.Decapsulator }

func (d *stdDK) EncapsulationKey(dst []byte) { copy(dst, d.dk.Encapsulator().Bytes()) }

func (d *stdDK) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	if err != nil { // only for a wrong length, which the caller excludes
		panic("hybrid: " + err.Error())
	}
	copy(k, kk)
	clear(kk)
}

// Clear drops the key; crypto/mlkem offers no way to overwrite it.
func (d *stdDK) Clear() { d.dk = nil }

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
