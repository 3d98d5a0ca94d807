package hybrid

import (
	"crypto"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
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
	stdKEM768 = newStdKEM("ML-KEM-768", mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768,
		mlkem.GenerateKey768, mlkem.NewDecapsulationKey768, mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768)
	stdKEM1024 = newStdKEM("ML-KEM-1024", mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024,
		mlkem.GenerateKey1024, mlkem.NewDecapsulationKey1024, mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024)
)

// newStdKEM is a parameter set of crypto/mlkem, given by its typed
// functions.
func newStdKEM[DK crypto.Decapsulator, EK crypto.Encapsulator](name string, ekSize, ctSize int,
	generate func() (DK, error), fromSeed func(seed []byte) (DK, error), parse func(ek []byte) (EK, error),
	derandomized func(ek EK, m []byte) (k, ct []byte, err error)) stdKEM {
	return stdKEM{
		name: name, ekSize: ekSize, ctSize: ctSize,
		generate: func() (crypto.Decapsulator, error) { return decapsulator(generate()) },
		fromSeed: func(s []byte) (crypto.Decapsulator, error) { return decapsulator(fromSeed(s)) },
		parse:    func(ek []byte) (crypto.Encapsulator, error) { return encapsulator(parse(ek)) },
		derandomized: func(ek crypto.Encapsulator, m []byte) ([]byte, []byte, error) {
			return derandomized(ek.(EK), m)
		},
	}
}

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
	decapsulated(k, kk, err)
}

// Clear drops the key; crypto/mlkem offers no way to overwrite it.
func (d *stdDK) Clear() { d.dk = nil }
