package kat

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// RunSNTRUP761KAT checks every count of a sntrup761 NIST KAT file: key
// generation and encapsulation from the NIST DRBG seeded with the count's
// seed must give pk, sk, ct and ss byte for byte, and decapsulating ct
// with sk must give ss.
func RunSNTRUP761KAT(f *RSP) Result {
	var r Result
	if f.Header != "# sntrup761" {
		r.Err = errors.New("vectors: rsp header is not \"# sntrup761\"")
		return r
	}
	for _, want := range f.KATs {
		r.record("count "+strconv.Itoa(want.Count), checkSNTRUP761Count(&want))
	}
	return r
}

func checkSNTRUP761Count(want *KEMKAT) error {
	// Lengths first: a count with a wrong one fails without costing a key
	// generation.
	for _, f := range []struct {
		name string
		b    []byte
		n    int
	}{{"seed", want.Seed, DRBGSeedSize}, {"pk", want.PK, sntrup761.EncapsulationKeySize}, {"sk", want.SK, sntrup761.DecapsulationKeySize},
		{"ct", want.CT, sntrup761.CiphertextSize}, {"ss", want.SS, sntrup761.SharedKeySize}} {
		if len(f.b) != f.n {
			return fmt.Errorf("%s has %d bytes, want %d", f.name, len(f.b), f.n)
		}
	}
	got, err := katCount(want.Seed)
	if err != nil {
		return err
	}
	if err := firstErr(equal("pk", got.PK, want.PK), equal("sk", got.SK, want.SK),
		equal("ct", got.CT, want.CT), equal("ss", got.SS, want.SS)); err != nil {
		return err
	}
	dk, err := sntrup761.NewDecapsulationKey(want.SK)
	if err != nil {
		return err
	}
	ss, err := dk.Decapsulate(want.CT)
	if err != nil {
		return err
	}
	return equal("decapsulated ss", ss, want.SS)
}

// katCount runs one NIST KAT count: keypair and encapsulation from the
// DRBG seeded with seed (48 bytes), one DRBG call per array.
func katCount(seed []byte) (KEMKAT, error) {
	var s [DRBGSeedSize]byte
	copy(s[:], seed)
	rng := NewDRBG(&s)
	dk, err := sntrup761test.GenerateKey(rng)
	if err != nil {
		return KEMKAT{}, err
	}
	pk := dk.EncapsulationKey().Bytes()
	ek, err := sntrup761.NewEncapsulationKey(pk)
	if err != nil {
		return KEMKAT{}, err
	}
	ss, ct, err := sntrup761test.Encapsulate(ek, rng)
	if err != nil {
		return KEMKAT{}, err
	}
	return KEMKAT{Seed: seed, PK: pk, SK: dk.Bytes(), CT: ct, SS: ss}, nil
}
