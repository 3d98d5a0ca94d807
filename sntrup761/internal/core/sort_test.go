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

func TestSortShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for k := range 2000 {
		var L [P]uint32
		for i := range L {
			L[i] = rng.Uint32()
			switch (i + k) % 5 {
			case 0:
				L[i] >>= 28 // duplicates
			case 1:
				L[i] |= 0x7ffffff0 // equal top bits, differing low bits
			case 2:
				L[i] |= 0xfffffff0
			}
			L[i] &^= 1 // keys of Short_fromlist are never 0xffffffff
		}
		want := slices.Clone(L[:])
		slices.Sort(want)
		sortShort(&L)
		if !slices.Equal(L[:], want) {
			t.Fatalf("case %d: not sorted", k)
		}
	}
}

func BenchmarkSortShort(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 7))
	var src, x [P]uint32
	for i := range src {
		src[i] = rng.Uint32() &^ 1
	}
	for b.Loop() {
		x = src
		sortShort(&x)
	}
}
