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

// TestMulSplitMatchesReference checks both ways batch key generation pairs
// products in one transform against the reference: a*f + 2^24*t*c from two
// spectra pairs (scaled by 3 in R/q), and g*(a + 2^24*t) from a sum of
// spectra. The first inputs are the extremes, where every coefficient of
// the R/q product reaches its largest magnitude P*Q12 with either sign.
func TestMulSplitMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	times3 := func(a [P]int16) (out [P]int16) {
		for i, v := range a {
			out[i] = freezeQ(3 * int64(v))
		}
		return out
	}
	for i := range iterations(t, 200) {
		a, f, tt, c, g := randRq(rng), randSmall(rng), randSmall(rng), randSmall(rng), randSmall(rng)
		if i < 8 { // extremes: constant polynomials in every sign mix
			for j := range a {
				a[j] = int16(Q12 * (1 - 2*(i&1)))
				f[j], g[j] = int8(1-(i&2)), int8(1-(i&2))
				tt[j], c[j] = 1, int8(1-(i&4)/2)
			}
		}
		var sa, sf, st, sc, sg, sw, x spectrum
		sa.transformRq(&a)
		sf.transformSmall(&f)
		st.transformSmall(&tt)
		sc.transformSmall(&c)
		sg.transformSmall(&g)
		for j := range sc {
			sc[j] *= 1 << splitShift
			sw[j] = sa[j] + st[j]*(1<<splitShift)
		}
		var rq [P]int16
		var r3 [P]int8
		mulSplit(&rq, &r3, 3, &x, &sa, &sf, &st, &sc)
		if rq != times3([P]int16(ref.RqMultSmall((*[ref.P]int16)(&a), (*[ref.P]int8)(&f)))) {
			t.Fatalf("input %d: 3*a*f differs from the reference", i)
		}
		if r3 != [P]int8(ref.R3Mult((*[ref.P]int8)(&tt), (*[ref.P]int8)(&c))) {
			t.Fatalf("input %d: t*c differs from the reference", i)
		}
		mulSplit(&rq, &r3, 1, &x, &sg, &sw, nil, nil)
		if rq != [P]int16(ref.RqMultSmall((*[ref.P]int16)(&a), (*[ref.P]int8)(&g))) {
			t.Fatalf("input %d: a*g differs from the reference", i)
		}
		if r3 != [P]int8(ref.R3Mult((*[ref.P]int8)(&tt), (*[ref.P]int8)(&g))) {
			t.Fatalf("input %d: t*g differs from the reference", i)
		}
	}
}
