package core

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func randRq(rng *rand.Rand) (f [P]int16) {
	for i := range f {
		f[i] = int16(rng.IntN(Q)) - Q12
	}
	return f
}

func randSmall(rng *rand.Rand) (f [P]int8) {
	for i := range f {
		f[i] = int8(rng.IntN(3)) - 1
	}
	return f
}

func TestRecipRq(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for k := range iterations(t, 30) {
		a := randRq(rng)
		if k%3 == 1 { // small inputs, as in key generation
			s := randSmall(rng)
			for i := range a {
				a[i] = int16(s[i])
			}
		}
		want, wok := ref.RqRecip((*[ref.P]int16)(&a))
		var got [P]int16
		ok := recipRq(&got, &a, 1)
		if ok != wok || got != [P]int16(want) {
			t.Fatalf("input %d: recipRq differs from the reference (ok %d vs %d)", k, ok, wok)
		}
	}
	var zero [P]int16
	var out [P]int16
	if recipRq(&out, &zero, 1) != -1 {
		t.Fatal("0 reported invertible")
	}
}

// checkArenaCleared inverts 3f for a random Short f, as key generation
// does, and checks that every arena recipRq took from recipArenas (kept
// by watchPools, looked at after two GCs) went back all zero: it held
// the steps of inverting a secret.
func checkArenaCleared(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var a, out [P]int16
	for i, c := range randSmall(rng) {
		a[i] = 3 * int16(c)
	}
	made := watchPools(func() { recipRq(&out, &a, 1) }, &recipArenas)
	runtime.GC()
	runtime.GC()
	if len(made[0]) == 0 {
		t.Fatal("recipRq took no arena from recipArenas")
	}
	nonzero := func(x complex128) bool { return x != 0 }
	for k, x := range made[0] {
		ar := x.(*arena)
		if slices.ContainsFunc(ar.c, nonzero) || slices.ContainsFunc(ar.i, func(x int32) bool { return x != 0 }) ||
			slices.ContainsFunc(ar.w, func(x int64) bool { return x != 0 }) ||
			ar.nc|ar.ni|ar.nw|ar.maxc|ar.maxi|ar.maxw != 0 {
			t.Errorf("arena %d returned to recipArenas not cleared", k)
		}
	}
}

func TestRecipRqClearsArena(t *testing.T) {
	defer UseVectorPath(UseVectorPath(false)) // the assembly path uses no arena
	checkArenaCleared(t)
}

func BenchmarkRecipRq(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	a := randRq(rng)
	var out [P]int16
	for b.Loop() {
		recipRq(&out, &a, 1)
	}
}

// TestMontReduce checks montReduce on every lane value that jumpPlain's
// step can produce, x < 2*(q-1)*(leafLane-1) (and the other lane a
// different value of the same range): the result is x/2^16 mod q and
// stays below leafLane.
func TestMontReduce(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over 2^25.6 values")
	}
	const top = 2 * (Q - 1) * (leafLane - 1)
	const rinv = 3496 // 1/2^16 mod q
	for y := uint64(0); y <= top; y++ {
		z := top - y
		got := montReduce(y|z<<32, montMask)
		lo, hi := got&0xffffffff, got>>32
		if lo%Q != y*rinv%Q || hi%Q != z*rinv%Q || lo >= leafLane || hi >= leafLane {
			t.Fatalf("montReduce(%d | %d<<32) = %d | %d<<32", y, z, lo, hi)
		}
	}
}

// TestForwardOfOneIsOnes checks what jump's fOne relies on: for every plan
// and every input length jump uses (real and complex paths), the transform
// of 1, 0, ..., 0 is exactly 1 in every bin.
func TestForwardOfOneIsOnes(t *testing.T) {
	for _, pl := range fftPlans() {
		if !pl.tail16 { // jump only uses plans with the radix-16 pass
			continue
		}
		for _, n := range []int{pl.m, pl.m + 1, 2*pl.m - 1} {
			a := make([]int32, n)
			a[0] = 1
			x := make([]complex128, pl.m)
			forwardInt(pl, x, a)
			for i, v := range x {
				if v != 1 {
					t.Fatalf("m=%d n=%d: bin %d is %v, not exactly 1", pl.m, n, i, v)
				}
			}
		}
	}
}
