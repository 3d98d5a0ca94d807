package sntrup761_test

import (
	"crypto/rand"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

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
		benchKEMOps(b, func() error {
			dk, err := sntrup761.GenerateKey()
			if err == nil {
				sink = dk.Bytes()
			}
			return err
		}, func() (enc, dec func()) {
			dk, _ := sntrup761.GenerateKey()
			ek := dk.EncapsulationKey()
			_, ct := ek.Encapsulate()
			return func() { _, sink = ek.Encapsulate() },
				func() { sink, _ = dk.Decapsulate(ct) }
		})
	})
	b.Run("impl=reference", func(b *testing.B) {
		benchKEMOps(b, func() error {
			_, sk, err := ref.KeyGen(rand.Reader)
			sink = sk
			return err
		}, func() (enc, dec func()) {
			pk, sk, _ := ref.KeyGen(rand.Reader)
			ct, _, _ := ref.Encap(pk, rand.Reader)
			return func() { sink, _, _ = ref.Encap(pk, rand.Reader) },
				func() {
					k := ref.Decap(ct, sk)
					sink = k[:]
				}
		})
	})
	b.Run("impl=mlkem768", func(b *testing.B) {
		benchKEMOps(b, func() error {
			_, sk, err := mlkem768.GenerateKeyPair(rand.Reader)
			sinkAny = sk
			hybrid.ResetUpperState()
			return err
		}, func() (enc, dec func()) {
			pk, sk, _ := mlkem768.GenerateKeyPair(rand.Reader)
			ct := make([]byte, mlkem768.CiphertextSize)
			ss := make([]byte, mlkem768.SharedKeySize)
			return func() {
					pk.EncapsulateTo(ct, ss, nil) // nil seed: fresh randomness
					hybrid.ResetUpperState()      // as pqkex does after circl's AVX2 code
				}, func() {
					sk.DecapsulateTo(ss, ct)
					hybrid.ResetUpperState()
				}
		})
	})
}

// benchKEMOps runs the sub-benchmarks of one implementation: op=GenerateKey
// (gen per iteration, fatal on its error), then op=Encapsulate and
// op=Decapsulate (enc and dec per iteration, on the key pair and
// ciphertext that setup makes before them, outside the timing).
func benchKEMOps(b *testing.B, gen func() error, setup func() (enc, dec func())) {
	b.Run("op=GenerateKey", func(b *testing.B) {
		for b.Loop() {
			if err := gen(); err != nil {
				b.Fatal(err)
			}
		}
	})
	enc, dec := setup()
	b.Run("op=Encapsulate", func(b *testing.B) {
		for b.Loop() {
			enc()
		}
	})
	b.Run("op=Decapsulate", func(b *testing.B) {
		for b.Loop() {
			dec()
		}
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

// BenchmarkKeyPoolGet measures single KeyPool.Get calls under concurrent
// demand (four callers per GOMAXPROCS) and reports their median and 99th
// percentile as p50-ns and p99-ns; ns/op is the time per Get of the whole
// run, pauses included.
//
// demand=paced is the steady state: each caller pauses between Gets, as a
// handshake over a network would, so that together they ask for an eighth
// of the keys one core can generate (measured first; the margin is for a
// shared machine). Gets then take keys the background refill generated
// ahead of demand.
//
// demand=saturated: callers Get back to back, faster than keys can be
// generated, so most Gets wait for a refill; ns/op is then the time the
// pool takes to generate a key.
func BenchmarkKeyPoolGet(b *testing.B) {
	const parallelism = 4 // callers per GOMAXPROCS
	callers := parallelism * runtime.GOMAXPROCS(0)
	perKey := time.Duration(1<<63 - 1) // the fastest of a few batches
	for range 4 {
		start := time.Now()
		if _, err := sntrup761.GenerateKeys(32); err != nil {
			b.Fatal(err)
		}
		perKey = min(perKey, time.Since(start)/32)
	}
	for _, demand := range []struct {
		name  string
		pause time.Duration
	}{
		{"paced", 8 * time.Duration(callers) * perKey},
		{"saturated", 0},
	} {
		b.Run("demand="+demand.name, func(b *testing.B) {
			p := sntrup761.NewKeyPool(32)
			defer p.Close()
			if _, err := p.Get(); err != nil { // starts the pool: waits for the first batch
				b.Fatal(err)
			}
			var mu sync.Mutex
			var all []time.Duration
			b.SetParallelism(parallelism)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var lat []time.Duration
				for pb.Next() {
					t0 := time.Now()
					dk, err := p.Get()
					lat = append(lat, time.Since(t0))
					if err != nil {
						b.Error(err)
						return
					}
					sinkAny = dk
					time.Sleep(demand.pause) // returns at once for 0
				}
				mu.Lock()
				all = append(all, lat...)
				mu.Unlock()
			})
			b.StopTimer()
			if len(all) == 0 {
				return
			}
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(all[(len(all)*99+99)/100-1].Nanoseconds()), "p99-ns")
		})
	}
}
