package mlkemhybrid

import (
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
)

// crypto/mlkem is the Go Cryptographic Module's ML-KEM (FIPS 140-3
// validated as part of the module), the only backend used in FIPS mode.
// It takes no caller randomness: a derandomized encapsulation (a given m)
// goes through crypto/mlkem/mlkemtest, which re-parses the key; with
// m == nil the module's own Encapsulate runs.

type stdKEM768 struct{}

func (stdKEM768) Name() string              { return "ML-KEM-768" }
func (stdKEM768) Impl() string              { return "std" }
func (stdKEM768) EncapsulationKeySize() int { return mlkem.EncapsulationKeySize768 }
func (stdKEM768) CiphertextSize() int       { return mlkem.CiphertextSize768 }

func (stdKEM768) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	var dk *mlkem.DecapsulationKey768
	var err error
	if seed == nil {
		dk, err = mlkem.GenerateKey768()
	} else {
		dk, err = mlkem.NewDecapsulationKey768(seed)
	}
	if err != nil {
		return nil, err
	}
	return &stdDK768{dk}, nil
}

func (stdKEM768) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	k, err := mlkem.NewEncapsulationKey768(ek)
	if err != nil {
		return nil, err
	}
	return stdEK768{k}, nil
}

type stdEK768 struct{ k *mlkem.EncapsulationKey768 }

func (e stdEK768) Encapsulate(ct, k, m []byte) error {
	var kk, c []byte
	if m == nil {
		kk, c = e.k.Encapsulate()
	} else {
		var err error
		if kk, c, err = mlkemtest.Encapsulate768(e.k, m); err != nil {
			return err
		}
	}
	return copyOut(ct, k, c, kk)
}

type stdDK768 struct{ dk *mlkem.DecapsulationKey768 }

func (d *stdDK768) EncapsulationKey(dst []byte) { copy(dst, d.dk.EncapsulationKey().Bytes()) }

func (d *stdDK768) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	if err != nil { // only for a wrong length, which the caller excludes
		panic("mlkemhybrid: " + err.Error())
	}
	copy(k, kk)
	clear(kk)
}

// Clear drops the key; crypto/mlkem offers no way to overwrite it.
func (d *stdDK768) Clear() { d.dk = nil }

type stdKEM1024 struct{}

func (stdKEM1024) Name() string              { return "ML-KEM-1024" }
func (stdKEM1024) Impl() string              { return "std" }
func (stdKEM1024) EncapsulationKeySize() int { return mlkem.EncapsulationKeySize1024 }
func (stdKEM1024) CiphertextSize() int       { return mlkem.CiphertextSize1024 }

func (stdKEM1024) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	var dk *mlkem.DecapsulationKey1024
	var err error
	if seed == nil {
		dk, err = mlkem.GenerateKey1024()
	} else {
		dk, err = mlkem.NewDecapsulationKey1024(seed)
	}
	if err != nil {
		return nil, err
	}
	return &stdDK1024{dk}, nil
}

func (stdKEM1024) ParseEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	k, err := mlkem.NewEncapsulationKey1024(ek)
	if err != nil {
		return nil, err
	}
	return stdEK1024{k}, nil
}

type stdEK1024 struct{ k *mlkem.EncapsulationKey1024 }

func (e stdEK1024) Encapsulate(ct, k, m []byte) error {
	var kk, c []byte
	if m == nil {
		kk, c = e.k.Encapsulate()
	} else {
		var err error
		if kk, c, err = mlkemtest.Encapsulate1024(e.k, m); err != nil {
			return err
		}
	}
	return copyOut(ct, k, c, kk)
}

type stdDK1024 struct{ dk *mlkem.DecapsulationKey1024 }

func (d *stdDK1024) EncapsulationKey(dst []byte) { copy(dst, d.dk.EncapsulationKey().Bytes()) }

func (d *stdDK1024) Decapsulate(k, ct []byte) {
	kk, err := d.dk.Decapsulate(ct)
	if err != nil { // only for a wrong length, which the caller excludes
		panic("mlkemhybrid: " + err.Error())
	}
	copy(k, kk)
	clear(kk)
}

// Clear drops the key; crypto/mlkem offers no way to overwrite it.
func (d *stdDK1024) Clear() { d.dk = nil }

// copyOut copies a ciphertext and shared key of the module into the
// caller's buffers and clears the module's copy of the key.
func copyOut(ct, k, c, kk []byte) error {
	defer clear(kk)
	if len(c) != len(ct) || len(kk) != len(k) {
		return errors.New("mlkemhybrid: unexpected ML-KEM output size")
	}
	copy(ct, c)
	copy(k, kk)
	return nil
}
