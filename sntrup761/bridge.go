package sntrup761

import (
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
)

// This file hands the package's keys and its reader-driven forms to the
// packages of this module that stand below it (see internal/sntrupbridge).
// A nil reader goes through as nil: the core then reads crypto/rand's
// Reader itself.

func init() {
	sntrupbridge.GenerateKey = func(r io.Reader) (sntrupbridge.DecapsulationKey, error) {
		dk, err := generateKey(r)
		if err != nil {
			return nil, readError(r, err)
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
	sharedKey, ciphertext, err = encapsulate(k.ek, r)
	return sharedKey, ciphertext, readError(r, err)
}

// readError names crypto/rand in err, an error of key generation or
// encapsulation with a nil reader (reading is the only way they fail); a
// caller's reader's error is returned as it is, for the caller to name.
func readError(r io.Reader, err error) error {
	if err != nil && r == nil {
		return fmt.Errorf("reading crypto/rand: %w", err)
	}
	return err
}

// The bridge's sizes are this package's: each line compiles only if the
// two are equal (either difference would be a negative array length).
var (
	_ [EncapsulationKeySize - sntrupbridge.EncapsulationKeySize]struct{} = [sntrupbridge.EncapsulationKeySize - EncapsulationKeySize]struct{}{}
	_ [DecapsulationKeySize - sntrupbridge.DecapsulationKeySize]struct{} = [sntrupbridge.DecapsulationKeySize - DecapsulationKeySize]struct{}{}
	_ [CiphertextSize - sntrupbridge.CiphertextSize]struct{}             = [sntrupbridge.CiphertextSize - CiphertextSize]struct{}{}
	_ [SharedKeySize - sntrupbridge.SharedKeySize]struct{}               = [sntrupbridge.SharedKeySize - SharedKeySize]struct{}{}
)
