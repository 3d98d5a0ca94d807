//go:build !purego

package core

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// This file holds the assembly path's fuzz target only (see
// .clusterfuzzlite/build.sh: the libFuzzer build rewrites the file that
// names a target).

// FuzzAsmVsScalar runs every assembly kernel's caller on inputs derived
// from the fuzzer's bytes, with the assembly path on and off, and a whole
// key generation, encapsulation and decapsulation and a batch of two keys
// from the same bytes as randomness: all must agree byte for byte. (Not
// parallel: it switches the path; see withoutAsm.)
func FuzzAsmVsScalar(f *testing.F) {
	fuzzcorpus.Add(f, []byte{0})
	fuzzcorpus.Add(f, []byte{1, 2, 3, 0xff, 0x80, 0x7f})
	fuzzcorpus.Add(f, bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || !hasAVX2 {
			return
		}
		at := func(i int) byte { return data[i%len(data)] ^ byte(i/len(data)) }
		var a [P]int16
		var s [P]int8
		var L [P]uint32
		for i := range P {
			a[i] = int16((int(at(2*i))|int(at(2*i+1))<<8)%Q - Q12)
			s[i] = int8(at(3*i)%3) - 1
			L[i] = uint32(at(4*i)) | uint32(at(4*i+1))<<8 | uint32(at(4*i+2))<<16 | uint32(at(4*i+3))<<24
			if L[i] == 0xffffffff {
				L[i]-- // sortShort's precondition
			}
		}
		var qa, qs [P]int16
		var ra, rs [P]int8
		var sa, ss, ma, ms [P]int8
		la, ls := L, L
		qra, r3a := recipRq(&qa, &a, 3), r3Recip(&ra, &s)
		sortShort(&la)
		shortFromList(&sa, &L)
		smallFromList(&ma, &L)
		inva := r3Invertible(&s)
		var qrs, r3s int32
		var invs uint64
		withoutAsm(func() {
			qrs, r3s = recipRq(&qs, &a, 3), r3Recip(&rs, &s)
			sortShort(&ls)
			shortFromList(&ss, &L)
			smallFromList(&ms, &L)
			invs = r3Invertible(&s)
		})
		if inva != invs {
			t.Fatal("r3Invertible differs")
		}
		if qra != qrs || (qrs == 0 && qa != qs) {
			t.Fatal("recipRq differs")
		}
		if r3a != r3s || (r3s == 0 && ra != rs) {
			t.Fatal("r3Recip differs")
		}
		if la != ls || sa != ss || ma != ms {
			t.Fatal("sortShort, shortFromList or smallFromList differs")
		}

		// Whole operations, with the bytes as randomness. Key generation
		// draws again while g is not invertible, so a stream can run
		// out: then both paths must fail alike (they read the same
		// bytes).
		stream := func() *bytes.Reader {
			b := make([]byte, 8*(2*randomBytes+smallBytes))
			for i := range b {
				b[i] = at(i)
			}
			return bytes.NewReader(b)
		}
		run := func() ([]byte, error) {
			sk, err := GenerateKey(stream())
			if err != nil {
				return nil, err
			}
			var ct [CiphertextSize]byte
			var k1, k2 [SharedKeySize]byte
			if err := sk.PublicKey().Encapsulate(stream(), &ct, &k1); err != nil {
				return nil, err
			}
			sk.Decapsulate(&ct, &k2)
			return slices.Concat(sk.Bytes()[:], ct[:], k1[:], k2[:]), nil
		}
		got, gotErr := run()
		var want []byte
		var wantErr error
		withoutAsm(func() { want, wantErr = run() })
		if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("key generation, encapsulation or decapsulation differs (assembly: %v, scalar: %v)", gotErr, wantErr)
		}

		// A batch of two keys (the split products, the invertibility
		// test) from a stream long enough for both.
		batch := func() ([]byte, error) {
			b := make([]byte, 16*(2*randomBytes+smallBytes))
			for i := range b {
				b[i] = at(i)
			}
			keys, err := GenerateKeys(bytes.NewReader(b), 2)
			if err != nil {
				return nil, err
			}
			return slices.Concat(keys[0].Bytes()[:], keys[1].Bytes()[:]), nil
		}
		got, gotErr = batch()
		withoutAsm(func() { want, wantErr = batch() })
		if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("batch key generation differs (assembly: %v, scalar: %v)", gotErr, wantErr)
		}
	})
}
