package fuzz

import (
	"bytes"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/sntrup761"
)

// kats returns the first n counts of the bundled NIST KAT as seeds.
func kats(f *testing.F, n int) []kat.KEMKAT {
	file, err := os.Open("../vectors/testdata/sntrup761_nist_kat.rsp")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	rsp, err := kat.ParseRSP(file)
	if err != nil {
		f.Fatal(err)
	}
	return rsp.KATs[:n]
}

// FuzzSNTRUP761Decapsulate parses an arbitrary decapsulation key and
// decapsulates an arbitrary ciphertext: it must never panic, must fail only
// on wrong lengths, and must be deterministic.
func FuzzSNTRUP761Decapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		f.Add(k.SK, k.CT)
		bad := bytes.Clone(k.CT)
		bad[len(bad)-1] ^= 1
		f.Add(k.SK, bad)
	}
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sk, ct []byte) {
		dk, err := sntrup761.NewDecapsulationKey(sk)
		if (err != nil) != (len(sk) != sntrup761.DecapsulationKeySize) {
			t.Fatalf("NewDecapsulationKey(%d bytes): err = %v", len(sk), err)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(dk.Bytes(), sk) {
			t.Fatal("Bytes does not round-trip")
		}
		ss, err := dk.Decapsulate(ct)
		if (err != nil) != (len(ct) != sntrup761.CiphertextSize) {
			t.Fatalf("Decapsulate(%d bytes): err = %v", len(ct), err)
		}
		if err != nil {
			return
		}
		again, _ := dk.Decapsulate(ct)
		if len(ss) != sntrup761.SharedKeySize || !bytes.Equal(ss, again) {
			t.Fatal("decapsulation is not deterministic")
		}
	})
}

// FuzzSNTRUP761Encapsulate parses an arbitrary encapsulation key and
// encapsulates to it: it must never panic, must fail only on wrong
// lengths, and must round-trip Bytes.
func FuzzSNTRUP761Encapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		f.Add(k.PK)
	}
	f.Add(bytes.Repeat([]byte{0xff}, sntrup761.EncapsulationKeySize))
	f.Fuzz(func(t *testing.T, pk []byte) {
		ek, err := sntrup761.NewEncapsulationKey(pk)
		if (err != nil) != (len(pk) != sntrup761.EncapsulationKeySize) {
			t.Fatalf("NewEncapsulationKey(%d bytes): err = %v", len(pk), err)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(ek.Bytes(), pk) {
			t.Fatal("Bytes does not round-trip")
		}
		ss, ct := ek.Encapsulate()
		if len(ss) != sntrup761.SharedKeySize || len(ct) != sntrup761.CiphertextSize {
			t.Fatal("wrong output sizes")
		}
	})
}
