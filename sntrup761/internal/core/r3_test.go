package core

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func TestR3Recip(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	inputs := [][P]int8{{}, {1}, {-1}}
	var xm1 [P]int8
	xm1[0], xm1[1] = -1, 1
	inputs = append(inputs, xm1)
	for range 40 {
		inputs = append(inputs, randSmall(rng))
	}
	for k, a := range inputs {
		want, wok := ref.R3Recip((*[ref.P]int8)(&a))
		var got [P]int8
		ok := r3Recip(&got, &a)
		if ok != wok {
			t.Fatalf("input %d: ok = %d, reference %d", k, ok, wok)
		}
		if ok == 0 && got != [P]int8(want) {
			t.Fatalf("input %d: inverse differs from the reference", k)
		}
	}
}

func BenchmarkR3Recip(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 5))
	a := randSmall(rng)
	var out [P]int8
	for b.Loop() {
		r3Recip(&out, &a)
	}
}
