//go:build dudect && goexperiment.simd && amd64

package core

import (
	"bytes"
	"simd/archsimd"
	"testing"

	"github.com/pqkex/pqkex/internal/dudect"
)

// Timing targets for code that only the vector path has (see
// dudect_test.go for how to run them): the batch's paired products in the
// split layout, and the vector batch as a whole.
func init() {
	dudectCases = append(dudectCases,
		dudect.Case{
			Name:  "vecMulSplit/fixed-vs-random",
			About: "the vector batch's tq*f + 2^24 t3*c from split transforms (forward transforms, inverse with products formed in its first pass, fold and split on vectors); class 0 one fixed tq, f, t3 and c, class 1 fresh random ones",
			Setup: func(t *testing.T) dudect.Target {
				rng := dudect.NewRNG()
				type input struct {
					a       [P]int16
					f, t, c [P]int8
				}
				var fixed input
				dudectRq(rng, &fixed.a)
				dudectSmall(rng, &fixed.f)
				dudectSmall(rng, &fixed.t)
				dudectSmall(rng, &fixed.c)
				ins := make([]input, 500)
				b := new(vecBatch)
				var sa, sf, st, sc splitSpectrum
				var rq [P]int16
				var r3 [P]int8
				return dudect.Target{
					Slots: len(ins),
					Prepare: func(i, class int) {
						dudectRq(rng, &ins[i].a)
						dudectSmall(rng, &ins[i].f)
						dudectSmall(rng, &ins[i].t)
						dudectSmall(rng, &ins[i].c)
						if class == 0 {
							ins[i] = fixed
						}
					},
					Run: func(i int) {
						in := &ins[i]
						b.forwardRq(&sa, &in.a)
						b.forwardSmall(&sf, &in.f, false)
						b.forwardSmall(&st, &in.t, false)
						b.forwardSmall(&sc, &in.c, true)
						b.mulSplit(&rq, &r3, true, &sa, &sf, &st, &sc)
						dudectSink += int64(rq[0]) + int64(r3[0])
					},
				}
			},
		},
		dudect.Case{
			Name:  "vecControl/zero-vs-random",
			About: "a control, not pqkex code: 24 passes of vector multiply-adds with fixed constants over 1536 float64 values, loaded and stored in place; the same instructions and addresses for both classes; class 0 all-zero data, class 1 random integers below 2^20 (as in a transform)",
			Setup: func(t *testing.T) dudect.Target {
				rng := dudect.NewRNG()
				type input [384][4]float64
				ins := make([]input, 200)
				var work input
				w := archsimd.BroadcastFloat64x4(0.7071067811865476)
				u := archsimd.BroadcastFloat64x4(-0.7071067811865476)
				return dudect.Target{
					Slots: len(ins),
					Prepare: func(i, class int) {
						for j := range ins[i] {
							for l := range ins[i][j] {
								ins[i][j][l] = float64(int64(rng.Uint32N(1<<21)) - 1<<20)
								if class == 0 {
									ins[i][j][l] = 0
								}
							}
						}
					},
					Run: func(i int) {
						work = ins[i]
						for range 24 {
							for j := 0; j < len(work); j += 2 {
								a, b := loadF(&work[j]), loadF(&work[j+1])
								storeF(a.Mul(w).Add(b.Mul(u)), &work[j])
								storeF(a.Mul(u).Sub(b.Mul(w)), &work[j+1])
							}
						}
						clearUpper()
						dudectSink += int64(work[0][0])
					},
				}
			},
		},
		dudect.Case{
			Name:  "GenerateKeys/fixed-vs-random",
			About: "a vector batch of 2 keys; class 0 one fixed seed (2 keys' randomness, every g invertible), class 1 fresh random seeds",
			Setup: func(t *testing.T) dudect.Target {
				rng := dudect.NewRNG()
				const keyLen = 2*randomBytes + smallBytes
				const seedLen = 2 * keyLen
				fixed := make([]byte, seedLen)
				dudectKeySeed(rng, fixed[:keyLen])
				dudectKeySeed(rng, fixed[keyLen:])
				seeds := make([][seedLen]byte, 200)
				readers := make([]bytes.Reader, len(seeds))
				return dudect.Target{
					Slots: len(seeds),
					Prepare: func(i, class int) {
						dudect.Fill(rng, seeds[i][:])
						if class == 0 {
							copy(seeds[i][:], fixed)
						}
						readers[i].Reset(seeds[i][:])
					},
					Run: func(i int) {
						// As in GenerateKey/fixed-vs-random, a random g is
						// not invertible with probability about 3^-19.
						keys, _ := generateKeysSIMD(&readers[i], 2)
						if len(keys) > 0 {
							dudectSinkKey = keys[0]
						}
					},
				}
			},
		},
	)
}
