package sntrup761

import (
	"crypto/rand"
	"io"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
)

// This file hands the package's keys and its reader-driven forms to the
// packages of this module that stand below it (see internal/sntrupbridge).

func init() {
	sntrupbridge.GenerateKey = func(r io.Reader) (sntrupbridge.DecapsulationKey, error) {
		if r == nil {
			r = rand.Reader
		}
		dk, err := generateKey(r)
		if err != nil {
			return nil, err
		}
		return bridgeKey{dk}, nil
	}
	sntrupbridge.NewDecapsulationKey = func(b []byte) (sntrupbridge.DecapsulationKey, error) {
		dk, err := NewDecapsulationKey(b)
		if err != nil {
			return nil, err
		}
		return bridgeKey{dk}, nil
	}
	sntrupbridge.NewEncapsulationKey = func(b []byte) (sntrupbridge.EncapsulationKey, error) {
		ek, err := NewEncapsulationKey(b)
		if err != nil {
			return nil, err
		}
		return bridgeEncapsulationKey{ek}, nil
	}
	sntrupbridge.WrapDecapsulationKey = func(dk any) sntrupbridge.DecapsulationKey { return bridgeKey{dk.(*DecapsulationKey)} }
	sntrupbridge.WrapEncapsulationKey = func(ek any) sntrupbridge.EncapsulationKey {
		return bridgeEncapsulationKey{ek.(*EncapsulationKey)}
	}
}

type bridgeKey struct{ dk *DecapsulationKey }

func (k bridgeKey) Bytes() []byte            { return k.dk.Bytes() }
func (k bridgeKey) EncapsulationKey() []byte { return k.dk.EncapsulationKey().Bytes() }
func (k bridgeKey) Decapsulate(ct []byte) ([]byte, error) {
	return k.dk.Decapsulate(ct)
}
func (k bridgeKey) Clear()   { clearKeys([]*DecapsulationKey{k.dk}) }
func (k bridgeKey) Key() any { return k.dk }

type bridgeEncapsulationKey struct{ ek *EncapsulationKey }

func (k bridgeEncapsulationKey) Encapsulate(r io.Reader) (sharedKey, ciphertext []byte, err error) {
	if r == nil {
		r = rand.Reader
	}
	return encapsulate(k.ek, r)
}

// The bridge's sizes are this package's: each line compiles only if the
// two are equal (either difference would be a negative array length).
var (
	_ [EncapsulationKeySize - sntrupbridge.EncapsulationKeySize]struct{} = [sntrupbridge.EncapsulationKeySize - EncapsulationKeySize]struct{}{}
	_ [DecapsulationKeySize - sntrupbridge.DecapsulationKeySize]struct{} = [sntrupbridge.DecapsulationKeySize - DecapsulationKeySize]struct{}{}
	_ [CiphertextSize - sntrupbridge.CiphertextSize]struct{}             = [sntrupbridge.CiphertextSize - CiphertextSize]struct{}{}
	_ [SharedKeySize - sntrupbridge.SharedKeySize]struct{}               = [sntrupbridge.SharedKeySize - SharedKeySize]struct{}{}
)
