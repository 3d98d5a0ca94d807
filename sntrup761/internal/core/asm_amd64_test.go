//go:build !purego && !goexperiment.simd

package core

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/vecarith"
)

// The AVX2 assembly kernels against the scalar code they replace, on
// random inputs, in the same binary. (The fast-vs-reference tests of the
// other files run the assembly path whenever the CPU has AVX2, since they
// call the dispatching functions.)

// withoutAsm runs f with the assembly path off, then restores it. Tests
// that use it must not be parallel, so that no other test runs while the
// switch is off.
func withoutAsm(f func()) {
	defer UseVectorPath(UseVectorPath(false))
	f()
}

// asmIterations is iterations without t.Parallel (see withoutAsm).
func asmIterations(n int) int {
	if os.Getenv("PQKEX_LONG") == "1" {
		return 10000
	}
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}

// needAsm fails the test on a CPU without AVX2: the assembly cannot be
// tested there (and CI's machines have AVX2; .ci/run checks).
func needAsm(t *testing.T) {
	t.Helper()
	if !vecarith.AVX2 {
		t.Fatal("CPU without AVX2: the assembly path cannot be tested here")
	}
	if !asmEnabled {
		t.Fatal("the assembly path is off on a CPU with AVX2")
	}
}

// TestAsmEnabled: on an AVX2 CPU the assembly path is on, as
// internal/vecarith (whose Label pqkex bench reports) says, and
// UseVectorPath switches it.
func TestAsmEnabled(t *testing.T) {
	needAsm(t)
	if got := vecarith.Label(); got != "avx2 (assembly)" {
		t.Fatalf("Label %q", got)
	}
	if !UseVectorPath(false) || asmEnabled || UseVectorPath(true) || !asmEnabled {
		t.Fatal("UseVectorPath does not switch asmEnabled")
	}
}

func randomRqPoly(rng *rand.Rand, a *[P]int16) {
	for i := range a {
		a[i] = int16(rng.IntN(Q) - Q12)
	}
}

func randomSmallPoly(rng *rand.Rand, a *[P]int8) {
	for i := range a {
		a[i] = int8(rng.IntN(3) - 1)
	}
}

// TestDivstepBlocksAVX2 compares the kernel with divstepBlocksRef on
// random int16 lanes (any values: the kernel's arithmetic wraps as the
// model's does), random multipliers and both swap masks.
func TestDivstepBlocksAVX2(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range asmIterations(200) {
		var x, y [768]int16
		for i := range x {
			x[i], y[i] = int16(rng.Uint32()), int16(rng.Uint32())
		}
		m := 64 * (1 + rng.IntN(12))
		var k [8]int16
		k[0], k[1] = shoupPair16(int32(rng.IntN(Q) - Q12))
		k[2], k[3] = shoupPair16(int32(rng.IntN(Q) - Q12))
		k[4] = -int16(it & 1)
		wx, wy := x, y
		divstepBlocksRef(&wx, &wy, m, &k)
		divstepBlocksAVX2(&x, &y, m, &k)
		if x != wx || y != wy {
			t.Fatalf("iteration %d (m = %d, k = %v): kernel differs from the model", it, m, k)
		}
	}
}

// divstepBlocksRef is divstepBlocksAVX2 in Go, lane by lane (divstepVec of
// recipq_simd_amd64.go, written out on int16).
func divstepBlocksRef(x, y *[768]int16, m int, k *[8]int16) {
	ca, cah, cb, cbh, sw := k[0], k[1], k[2], k[3], k[4]
	mulhi := func(a, b int16) int16 { return int16((int32(a) * int32(b)) >> 16) }
	for i := range m {
		X, Y := x[i], y[i]
		y[i] = Y*ca - X*cb - (mulhi(Y, cah)-mulhi(X, cbh))*Q
		x[i] = X ^ (sw & (X ^ Y))
	}
}

// TestRecipRqAsm: recipRq on the assembly path gives the scalar path's
// bytes, for random a, for a multiple of x^p-x-1 plus nothing (a = 0, not
// invertible) and for sparse a.
func TestRecipRqAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range asmIterations(60) {
		var a [P]int16
		switch it % 3 {
		case 0:
			randomRqPoly(rng, &a)
		case 1:
			a[rng.IntN(P)] = int16(rng.IntN(Q) - Q12)
		}
		if it == 2 {
			clear(a[:])
		}
		scale := int16(rng.IntN(Q) - Q12)
		var got, want [P]int16
		gr := recipRq(&got, &a, scale)
		var wr int32
		withoutAsm(func() { wr = recipRq(&want, &a, scale) })
		if gr != wr || (wr == 0 && got != want) {
			t.Fatalf("iteration %d: assembly (%d) differs from scalar (%d)", it, gr, wr)
		}
	}
}

// TestR3RecipAsm: r3Recip on the assembly path gives the scalar path's
// result for random small a (invertible or not), sparse a and a = 0.
func TestR3RecipAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(5, 6))
	invertible := 0
	for it := range asmIterations(100) {
		var a [P]int8
		switch it % 3 {
		case 0, 1:
			randomSmallPoly(rng, &a)
		case 2:
			a[rng.IntN(P)] = int8(1 - 2*rng.IntN(2))
		}
		if it == 5 {
			clear(a[:])
		}
		var got, want [P]int8
		gr := r3Recip(&got, &a)
		var wr int32
		withoutAsm(func() { wr = r3Recip(&want, &a) })
		if gr != wr || (wr == 0 && got != want) {
			t.Fatalf("iteration %d: assembly (%d) differs from scalar (%d)", it, gr, wr)
		}
		if wr == 0 {
			invertible++
		}
	}
	if invertible == 0 {
		t.Fatal("no invertible input: the comparison of results never ran")
	}
}

// TestSortAsm: sortShort and shortFromList on the assembly path give the
// scalar path's results for random lists, lists of few distinct values
// (ties) and sorted/reversed lists.
func TestSortAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for it := range asmIterations(200) {
		var L [P]uint32
		for i := range L {
			switch it % 4 {
			case 0:
				L[i] = rng.Uint32() % 0xffffffff
			case 1:
				L[i] = uint32(rng.IntN(4)) << uint(rng.IntN(31))
			case 2:
				L[i] = uint32(i) * 5
			case 3:
				L[i] = 0xfffffffe - uint32(i)
			}
		}
		got, want := L, L
		sortShort(&got)
		withoutAsm(func() { sortShort(&want) })
		if got != want {
			t.Fatalf("iteration %d: sortShort differs", it)
		}
		var gs, ws [P]int8
		shortFromList(&gs, &L)
		withoutAsm(func() { shortFromList(&ws, &L) })
		if gs != ws {
			t.Fatalf("iteration %d: shortFromList differs", it)
		}
	}
}
