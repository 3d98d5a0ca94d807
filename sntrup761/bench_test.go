package sntrup761_test

import (
	"crypto/rand"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

var (
	sink    []byte
	sinkAny any
)

// BenchmarkKEM measures key generation, encapsulation and decapsulation of
// pqkex's sntrup761, of the readable reference implementation it is tested
// against, and of circl's ML-KEM-768 (what pqkex's mlkem768x25519 uses),
// in one run. Compare with: benchstat -col /impl.
func BenchmarkKEM(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		b.Run("op=GenerateKey", func(b *testing.B) {
			for b.Loop() {
				dk, err := sntrup761.GenerateKey()
				if err != nil {
					b.Fatal(err)
				}
				sink = dk.Bytes()
			}
		})
		dk, _ := sntrup761.GenerateKey()
		ek := dk.EncapsulationKey()
		_, ct := ek.Encapsulate()
		b.Run("op=Encapsulate", func(b *testing.B) {
			for b.Loop() {
				_, sink = ek.Encapsulate()
			}
		})
		b.Run("op=Decapsulate", func(b *testing.B) {
			for b.Loop() {
				sink, _ = dk.Decapsulate(ct)
			}
		})
	})
	b.Run("impl=reference", func(b *testing.B) {
		b.Run("op=GenerateKey", func(b *testing.B) {
			for b.Loop() {
				_, sk, err := ref.KeyGen(rand.Reader)
				if err != nil {
					b.Fatal(err)
				}
				sink = sk
			}
		})
		pk, sk, _ := ref.KeyGen(rand.Reader)
		ct, _, _ := ref.Encap(pk, rand.Reader)
		b.Run("op=Encapsulate", func(b *testing.B) {
			for b.Loop() {
				sink, _, _ = ref.Encap(pk, rand.Reader)
			}
		})
		b.Run("op=Decapsulate", func(b *testing.B) {
			for b.Loop() {
				k := ref.Decap(ct, sk)
				sink = k[:]
			}
		})
	})
	b.Run("impl=mlkem768", func(b *testing.B) {
		b.Run("op=GenerateKey", func(b *testing.B) {
			for b.Loop() {
				_, sk, err := mlkem768.GenerateKeyPair(rand.Reader)
				if err != nil {
					b.Fatal(err)
				}
				sinkAny = sk
				hybrid.ResetUpperState()
			}
		})
		pk, sk, _ := mlkem768.GenerateKeyPair(rand.Reader)
		ct := make([]byte, mlkem768.CiphertextSize)
		ss := make([]byte, mlkem768.SharedKeySize)
		b.Run("op=Encapsulate", func(b *testing.B) {
			for b.Loop() {
				pk.EncapsulateTo(ct, ss, nil) // nil seed: fresh randomness
				hybrid.ResetUpperState()      // as pqkex does after circl's AVX2 code
			}
		})
		b.Run("op=Decapsulate", func(b *testing.B) {
			for b.Loop() {
				sk.DecapsulateTo(ss, ct)
				hybrid.ResetUpperState()
			}
		})
	})
}

// BenchmarkGenerateKeys32 measures batch key generation; µs/key is the
// figure to compare with GenerateKey.
func BenchmarkGenerateKeys32(b *testing.B) {
	for b.Loop() {
		dks, err := sntrup761.GenerateKeys(32)
		if err != nil {
			b.Fatal(err)
		}
		sink = dks[0].Bytes()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/32/1e3, "µs/key")
}
