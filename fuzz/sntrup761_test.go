package fuzz

import (
	"bytes"
	"sync"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/vectors"
)

// The sntrup761 targets. Their files and the shared code are laid out
// for go-118-fuzz-build as method_test.go's are (see its comment).

// kats returns the first n counts of the bundled NIST KAT as seeds.
func kats(f TB, n int) []kat.KEMKAT {
	all, err := nistKATs()
	if err != nil || len(all) < n {
		f.Fatalf("the NIST KAT: %v", err)
		return nil
	}
	return all[:n]
}

// nistKATs reads the bundled NIST KAT once per process: a libFuzzer
// binary runs a target's setup for every input (see fuzzSetups).
var nistKATs = sync.OnceValues(func() ([]kat.KEMKAT, error) {
	file, err := vectors.Bundled().Open("sntrup761_nist_kat.rsp")
	if err != nil {
		return nil, err
	}
	defer file.Close()
	rsp, err := kat.ParseRSP(file)
	if err != nil {
		return nil, err
	}
	return rsp.KATs, nil
})

// parseOwn parses a copy of b: it must fail exactly when b is not size
// bytes long, and Bytes must return b itself, not a re-encoding of the
// decoded polynomials: the decoders are total, so a key's bytes need not
// be the canonical encoding of what they decode to, and the scheme hashes
// the key bytes (Hash_4(pk), rho), so a re-encoded key would be a
// different key. And the key must keep its own copy: changing the copy
// after parsing, or a slice Bytes returned, changes nothing.
func parseOwn[K interface{ Bytes() []byte }](t TB, b []byte, size int, parse func([]byte) (K, error)) (K, bool) {
	t.Helper()
	in := bytes.Clone(b)
	k, err := parse(in)
	if (err != nil) != (len(b) != size) {
		t.Fatalf("parsing %d bytes: err = %v", len(b), err)
	}
	if err != nil {
		return k, false
	}
	in[0] ^= 0xff
	out := k.Bytes()
	if !bytes.Equal(out, b) {
		t.Fatal("Bytes is not the encoding the key was parsed from")
	}
	out[0] ^= 0xff
	if !bytes.Equal(k.Bytes(), b) {
		t.Fatal("changing the slice Bytes returned changed the key's encoding")
	}
	return k, true
}

// FuzzSNTRUP761Decapsulate parses an arbitrary decapsulation key and
// decapsulates an arbitrary ciphertext: it must never panic, must fail only
// on wrong lengths, must be deterministic, must keep its encoding
// (parseOwn) and carry the encapsulation key found in it, and a key
// parsed from its Bytes must be the same key.
func FuzzSNTRUP761Decapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		fuzzcorpus.Add(f, k.SK, k.CT)
		bad := bytes.Clone(k.CT)
		bad[len(bad)-1] ^= 1
		fuzzcorpus.Add(f, k.SK, bad)
	}
	fuzzcorpus.Add(f, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sk, ct []byte) {
		dk, ok := parseOwn(t, sk, sntrup761.DecapsulationKeySize, sntrup761.NewDecapsulationKey)
		if !ok {
			return
		}
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
// lengths, must keep its encoding (parseOwn), and a key parsed from
// its Bytes must be the same key: with the same randomness
// (sntrup761test.Encapsulate, the encapsulation behind Encapsulate with
// the caller's reader) both give the same ciphertext and shared key.
func FuzzSNTRUP761Encapsulate(f *testing.F) {
	for _, k := range kats(f, 3) {
		fuzzcorpus.Add(f, k.PK)
	}
	fuzzcorpus.Add(f, bytes.Repeat([]byte{0xff}, sntrup761.EncapsulationKeySize))
	f.Fuzz(func(t *testing.T, pk []byte) {
		ek, ok := parseOwn(t, pk, sntrup761.EncapsulationKeySize, sntrup761.NewEncapsulationKey)
		if !ok {
			return
		}
		ek2, err := sntrup761.NewEncapsulationKey(ek.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if ss, ct := ek.Encapsulate(); len(ss) != sntrup761.SharedKeySize || len(ct) != sntrup761.CiphertextSize {
			t.Fatal("wrong output sizes")
		}
		// More than the 3044 bytes (761 four-byte words) one reads.
		r := bytes.Repeat([]byte{0x3c}, 4*sntrup761.EncapsulationKeySize)
		ss, ct, err := sntrup761test.Encapsulate(ek, bytes.NewReader(r))
		ss2, ct2, err2 := sntrup761test.Encapsulate(ek2, bytes.NewReader(r))
		if err != nil || err2 != nil || !bytes.Equal(ss, ss2) || !bytes.Equal(ct, ct2) {
			t.Fatalf("the key parsed from Bytes encapsulates differently (%v, %v)", err, err2)
		}
	})
}
