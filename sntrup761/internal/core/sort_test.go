package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 100, 255, 256, 257, 761, 1000} {
		for range 20 {
			x := make([]uint32, n)
			for i := range x {
				x[i] = rng.Uint32()
				switch i % 7 {
				case 0:
					x[i] >>= 29 // duplicates
				case 1:
					x[i] |= 0xfffffff0 // near the top: the borrow must not be lost
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			sortUint32(x)
			if !slices.Equal(x, want) {
				t.Fatalf("n=%d: not sorted", n)
			}
		}
	}
}

func BenchmarkSort761(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 7))
	src := make([]uint32, P)
	for i := range src {
		src[i] = rng.Uint32()
	}
	x := make([]uint32, P)
	for b.Loop() {
		copy(x, src)
		sortUint32(x)
	}
}
