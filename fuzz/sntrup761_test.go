package fuzz

import (
	"bytes"
	"os"
	"testing"
	"testing/cryptotest"

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

// checkOwnBytes checks Bytes of a key parsed from in, a copy of orig.
// Bytes must return orig itself, not a re-encoding of the decoded
// polynomials: the decoders are total, so a key's bytes need not be the
// canonical encoding of what they decode to, and the scheme hashes the key
// bytes (Hash_4(pk), rho), so a re-encoded key would be a different key.
// And the key must keep its own copy: changing in after parsing, or a
// slice Bytes returned, changes nothing.
func checkOwnBytes(t *testing.T, orig, in []byte, bytesOf func() []byte) {
	t.Helper()
	in[0] ^= 0xff
	b := bytesOf()
	if !bytes.Equal(b, orig) {
		t.Fatal("Bytes is not the encoding the key was parsed from")
	}
	b[0] ^= 0xff
	if !bytes.Equal(bytesOf(), orig) {
		t.Fatal("changing the slice Bytes returned changed the key's encoding")
	}
}

// FuzzSNTRUP761Decapsulate parses an arbitrary decapsulation key and
// decapsulates an arbitrary ciphertext: it must never panic, must fail only
// on wrong lengths, must be deterministic, must keep its encoding
// (checkOwnBytes) and carry the encapsulation key found in it, and a key
// parsed from its Bytes must be the same key.
func FuzzSNTRUP761Decapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		f.Add(k.SK, k.CT)
		bad := bytes.Clone(k.CT)
		bad[len(bad)-1] ^= 1
		f.Add(k.SK, bad)
	}
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sk, ct []byte) {
		in := bytes.Clone(sk)
		dk, err := sntrup761.NewDecapsulationKey(in)
		if (err != nil) != (len(sk) != sntrup761.DecapsulationKeySize) {
			t.Fatalf("NewDecapsulationKey(%d bytes): err = %v", len(sk), err)
		}
		if err != nil {
			return
		}
		checkOwnBytes(t, sk, in, dk.Bytes)
		// The encapsulation key is the one the encoding carries, after
		// f and v (191 bytes each).
		if !bytes.Equal(dk.EncapsulationKey().Bytes(), sk[2*191:2*191+sntrup761.EncapsulationKeySize]) {
			t.Fatal("EncapsulationKey is not the public key in the decapsulation key's encoding")
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
		// A key parsed from Bytes is the same key.
		dk2, err := sntrup761.NewDecapsulationKey(dk.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if ss2, _ := dk2.Decapsulate(ct); !bytes.Equal(ss, ss2) {
			t.Fatal("the key parsed from Bytes decapsulates differently")
		}
	})
}

// FuzzSNTRUP761Encapsulate parses an arbitrary encapsulation key and
// encapsulates to it: it must never panic, must fail only on wrong
// lengths, must keep its encoding (checkOwnBytes), and a key parsed from
// its Bytes must be the same key.
func FuzzSNTRUP761Encapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		f.Add(k.PK)
	}
	f.Add(bytes.Repeat([]byte{0xff}, sntrup761.EncapsulationKeySize))
	f.Fuzz(func(t *testing.T, pk []byte) {
		in := bytes.Clone(pk)
		ek, err := sntrup761.NewEncapsulationKey(in)
		if (err != nil) != (len(pk) != sntrup761.EncapsulationKeySize) {
			t.Fatalf("NewEncapsulationKey(%d bytes): err = %v", len(pk), err)
		}
		if err != nil {
			return
		}
		checkOwnBytes(t, pk, in, ek.Bytes)
		// A key parsed from Bytes is the same key: with the same
		// randomness both encapsulate alike.
		ek2, err := sntrup761.NewEncapsulationKey(ek.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		cryptotest.SetGlobalRandom(t, 1)
		ss, ct := ek.Encapsulate()
		cryptotest.SetGlobalRandom(t, 1)
		ss2, ct2 := ek2.Encapsulate()
		if len(ss) != sntrup761.SharedKeySize || len(ct) != sntrup761.CiphertextSize {
			t.Fatal("wrong output sizes")
		}
		if !bytes.Equal(ss, ss2) || !bytes.Equal(ct, ct2) {
			t.Fatal("the key parsed from Bytes encapsulates differently")
		}
	})
}
