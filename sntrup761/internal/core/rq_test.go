package core

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func centered(x, m int64) int64 {
	r := ((x % m) + m) % m
	if r > m/2 {
		r -= m
	}
	return r
}

func TestFreeze(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	edges := []int64{0, 1, -1, Q, -Q, Q12, -Q12 - 1, 1<<34 - 1, -(1<<34 - 1), 1<<24 - 1, -(1<<24 - 1), 1<<26 - 1, -(1<<26 - 1)}
	for i := range 200000 {
		var x int64
		if i < len(edges) {
			x = edges[i]
		} else {
			x = rng.Int64N(1<<35) - 1<<34 + 1
		}
		if got := freezeQ(x); int64(got) != centered(x, Q) {
			t.Fatalf("freezeQ(%d) = %d", x, got)
		}
		if x > -(1<<26) && x < 1<<26 {
			if got := freezeQ26(int32(x)); int64(got) != centered(x, Q) {
				t.Fatalf("freezeQ26(%d) = %d", x, got)
			}
		}
		if x > -(1<<24) && x < 1<<24 {
			if got := freeze3(x); int64(got) != centered(x, 3) {
				t.Fatalf("freeze3(%d) = %d", x, got)
			}
		}
	}
	for x := int64(-1 << 26); x < 1<<26; x += 1 + rng.Int64N(40) {
		if got := freezeQ26(int32(x)); int64(got) != centered(x, Q) {
			t.Fatalf("freezeQ26(%d) = %d", x, got)
		}
	}
	for x := int64(-1 << 24); x < 1<<24; x += 1 + rng.Int64N(5) {
		if got := freeze3(x); int64(got) != centered(x, 3) {
			t.Fatalf("freeze3(%d) = %d", x, got)
		}
	}
}

// TestRingMultMatchesReference compares the FFT-based multiplications in
// R/q (Rq x Rq via the spectra, Rq x small) and R/3 with the reference's
// schoolbook multiplication and reduction.
func TestRingMultMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	for i := range iterations(t, 200) {
		a, b := randRq(rng), randRq(rng)
		s, u := randSmall(rng), randSmall(rng)
		if i == 0 { // extremes
			for j := range a {
				a[j], b[j], s[j], u[j] = Q12, -Q12, -1, 1
			}
		}
		var sa, sb, ss, su spectrum
		sa.transformRq(&a)
		sb.transformRq(&b)
		ss.transformSmall(&s)
		su.transformSmall(&u)
		var got [P]int16
		var z spectrum
		mulRq(&got, &z, &sa, &sb)
		if got != [P]int16(ref.RqMult((*[ref.P]int16)(&a), (*[ref.P]int16)(&b))) {
			t.Fatalf("input %d: Rq x Rq differs from the reference", i)
		}
		mulRq(&got, &z, &sa, &ss)
		if got != [P]int16(ref.RqMultSmall((*[ref.P]int16)(&a), (*[ref.P]int8)(&s))) {
			t.Fatalf("input %d: Rq x small differs from the reference", i)
		}
		var got3 [P]int8
		mulR3(&got3, &z, &ss, &su)
		if got3 != [P]int8(ref.R3Mult((*[ref.P]int8)(&s), (*[ref.P]int8)(&u))) {
			t.Fatalf("input %d: R3 product differs from the reference", i)
		}
	}
}

// TestProduct3PairMatchesReference checks the packed pair of R/3 products
// against the reference, including the extremes where every coefficient of
// both linear products reaches its largest magnitude with either sign.
func TestProduct3PairMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	for i := range iterations(t, 200) {
		tt, c, g := randSmall(rng), randSmall(rng), randSmall(rng)
		if i < 4 { // extremes: all ones and all minus ones, in every sign mix
			for j := range tt {
				tt[j], c[j], g[j] = 1, int8(1-2*(i&1)), int8(1-(i&2))
			}
		}
		var st, sc, sg, x spectrum
		st.transformSmall(&tt)
		sc.transformSmall(&c)
		sg.transformSmall(&g)
		for j := range sc {
			sc[j] += sg[j] * (1 << pairShift)
		}
		var a, b [P]int8
		mul3Pair(&a, &b, &x, &st, &sc)
		if a != [P]int8(ref.R3Mult((*[ref.P]int8)(&tt), (*[ref.P]int8)(&c))) {
			t.Fatalf("input %d: t*c differs from the reference", i)
		}
		if b != [P]int8(ref.R3Mult((*[ref.P]int8)(&tt), (*[ref.P]int8)(&g))) {
			t.Fatalf("input %d: t*g differs from the reference", i)
		}
	}
}
