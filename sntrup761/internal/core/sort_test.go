package core

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func TestSortShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for k := range iterations(t, 3000) {
		var L [P]uint32
		for i := range L {
			L[i] = rng.Uint32()
			switch (i + k) % 5 {
			case 0:
				L[i] >>= 28 // duplicates
			case 1:
				L[i] |= 0x7ffffff0 // equal top bits, differing low bits
			case 2:
				L[i] |= 0xfffffff0 // near the top: borrows must not leak across lanes
			}
			L[i] &^= 1 // keys of Short_fromlist always have a low bit cleared
		}
		switch k {
		case 0: // descending
			slices.Sort(L[:])
			slices.Reverse(L[:])
		case 1, 2, 3: // sorted except for the top keys, reversed
			slices.Sort(L[:])
			slices.Reverse(L[P-1-4*k:])
		default:
			switch k % 3 {
			case 0: // 0-1 principle: two key values, varying density
				for i := range L {
					L[i] = uint32(2 * rng.IntN(2+k%7) / (1 + k%7))
				}
			case 1: // plain random keys: the top keys distinct too
				for i := range L {
					L[i] = rng.Uint32() &^ 1
				}
			}
		}
		want := slices.Clone(L[:])
		ref.SortUint32(want)
		if !slices.IsSorted(want) {
			t.Fatal("reference sort failed")
		}
		sortShort(&L)
		if !slices.Equal(L[:], want) {
			t.Fatalf("case %d: differs from the reference", k)
		}
	}
}

func TestSwarMinmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	edge := []uint32{0, 1, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff}
	for k := range 200000 {
		var a0, a1, b0, b1 uint32
		n := len(edge) * len(edge)
		if k < n {
			a0, b0 = edge[k%len(edge)], edge[k/len(edge)]
			a1, b1 = b0, a0
		} else if k < 2*n { // equal high lanes (the high lanes' mask is taken from the whole words)
			a0, b0 = edge[k%len(edge)], edge[(k-n)/len(edge)]
			a1 = edge[(k/len(edge)+k)%len(edge)]
			b1 = a1
		} else if k < 2*n+1000 { // equal high lanes, random low lanes
			a0, b0 = rng.Uint32(), rng.Uint32()
			a1 = rng.Uint32()
			b1 = a1
		} else {
			a0, a1, b0, b1 = rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()
		}
		lo, hi := swarMinmax(uint64(a0)|uint64(a1)<<32, uint64(b0)|uint64(b1)<<32)
		if uint32(lo) != min(a0, b0) || uint32(hi) != max(a0, b0) ||
			uint32(lo>>32) != min(a1, b1) || uint32(hi>>32) != max(a1, b1) {
			t.Fatalf("swarMinmax(%#x:%#x, %#x:%#x) = %#x, %#x", a1, a0, b1, b0, lo, hi)
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
