package core

import "sync"

// Inversion in R/q with Bernstein–Yang "jump" divsteps ("Fast constant-time
// gcd computation and modular inversion", TCHES 2019, sections 6–8).
//
// The reference (../ref.rqRecip) runs 2p-1 constant-time divsteps on the
// reversed polynomials, each costing Θ(p) operations. The n-step transition
// matrix of divsteps depends only on δ and the first n coefficients of f and
// g, so jump(n) splits into jump(n/2), an update of f and g by that matrix
// (one "middle product" each), and jump(n - n/2) on the result; the two
// matrices are multiplied to give the n-step matrix. All products use the
// exact FFT of fft.go, so the work becomes O(p log^2 p).
//
// At or below jumpBase steps, jumpPlain does the same without FFTs.
//
// Constant time: the recursion shape and all lengths depend only on n; the
// divsteps use masked swaps and δ updates, as the reference does.

// divstep matrices: x^n * (f_n, g_n) = [[u, v], [q, r]] * (f_0, g_0), with
// polynomial entries of degree at most n, stored with n+1 coefficients in
// [-Q12, Q12].
type jumpMatrix struct {
	u, v, q, r []int32
}

func newJumpMatrix(ar *arena, n int) jumpMatrix {
	buf := ar.ints(4 * (n + 1))
	return jumpMatrix{buf[:n+1], buf[n+1 : 2*(n+1)], buf[2*(n+1) : 3*(n+1)], buf[3*(n+1):]}
}

// arena is a bump allocator for the recursion's scratch space, so that an
// inversion allocates nothing. Slices it returns are NOT zeroed: every user
// writes them in full before reading. The used part is cleared when the
// arena goes back to its pool, so no secret outlives the inversion.
type arena struct {
	c                []complex128
	i                []int32
	w                []int64
	nc, ni, nw       int // used lengths
	maxc, maxi, maxw int // high-water marks, for clearing
}

// arenaMark is a saved allocation point.
type arenaMark struct{ nc, ni, nw int }

func (a *arena) mark() arenaMark { return arenaMark{a.nc, a.ni, a.nw} }

// release frees everything allocated since m.
func (a *arena) release(m arenaMark) { a.nc, a.ni, a.nw = m.nc, m.ni, m.nw }

func (a *arena) complexes(n int) []complex128 {
	s := a.c[a.nc : a.nc+n : a.nc+n]
	a.nc += n
	a.maxc = max(a.maxc, a.nc)
	return s
}

func (a *arena) ints(n int) []int32 {
	s := a.i[a.ni : a.ni+n : a.ni+n]
	a.ni += n
	a.maxi = max(a.maxi, a.ni)
	return s
}

func (a *arena) wides(n int) []int64 {
	s := a.w[a.nw : a.nw+n : a.nw+n]
	a.nw += n
	a.maxw = max(a.maxw, a.nw)
	return s
}

// jumpBase is the size up to which jump calls jumpPlain instead of
// recursing with FFTs. With 2p-1 = 1521 steps split in halves, the leaves
// have 95 or 96 steps.
const jumpBase = 96

// fftPlans returns the plans for m = 3*2^k, k = 0..8 (the last is
// plan768's), built on first use (see plan768).
var fftPlans = sync.OnceValue(func() *[9]*fftPlan {
	p := new([9]*fftPlan)
	for k := range 8 {
		p[k] = newFFTPlan(3 << k)
	}
	p[8] = plan768()
	return p
})

// planFor returns the smallest plan with 2m >= n.
func planFor(n int) *fftPlan {
	for _, pl := range fftPlans() {
		if 2*pl.m >= n {
			return pl
		}
	}
	panic("core: FFT size too large")
}

func nzMask(x int32) int32  { return -int32(uint32(x|-x) >> 31) }
func negMask(x int32) int32 { return x >> 31 }

// jump returns δ after n divsteps from (δ, f, g) and their transition
// matrix. f and g must have at least n coefficients; only n are used.
//
// With topRow set only the u and v entries of the result are computed (q
// and r are left unwritten): a caller that needs only the top row of
// M2 * M1 needs only the top row of M2, and so on down the recursion.
// topRow is a public parameter.
//
// fOne, also public, says that f[:n] is 1, 0, ..., 0, as the reversed
// modulus of recipRq is in its first p-1 coefficients: then f's transform
// is exactly all ones (the twist of a unit impulse is the impulse, and
// every FFT stage maps an impulse at index 0 to ones, with the twiddle
// exp(0) = 1 exactly), so it is set instead of computed. The first child
// sees the same f; the second sees an updated one.
func jump(ar *arena, n int, delta int32, f, g []int32, topRow, fOne bool) (int32, jumpMatrix) {
	if n <= jumpBase {
		return jumpPlain(ar, n, delta, f, g)
	}
	M := newJumpMatrix(ar, n) // the result outlives the scratch below
	mk := ar.mark()
	defer ar.release(mk)
	j := n / 2
	delta, M1 := jump(ar, j, delta, f, g, false, fOne)

	pl := planFor(n + 1)
	m := pl.m
	X := ar.complexes(8 * m)
	xu, xv, xq, xr := X[:m], X[m:2*m], X[2*m:3*m], X[3*m:4*m]
	xf, xg, t := X[4*m:5*m], X[5*m:6*m], X[6*m:7*m]
	forwardInt(pl, xu, M1.u)
	forwardInt(pl, xv, M1.v)
	forwardInt(pl, xq, M1.q)
	forwardInt(pl, xr, M1.r)
	if fOne {
		for i := range xf {
			xf[i] = 1
		}
	} else {
		forwardInt(pl, xf, f[:n])
	}
	forwardInt(pl, xg, g[:n])

	// (f, g) <- M1 (f, g) / x^j, coefficients j..n-1: the wrap-around of
	// the length-2m convolution (2m >= n) only reaches positions below j.
	c := ar.wides(2 * m)
	f1 := ar.ints(n - j)
	g1 := ar.ints(n - j)
	pl.inverseProducts(c, t, xu, xf, xv, xg)
	for i := range f1 {
		f1[i] = int32(freezeQ(c[j+i]))
	}
	pl.inverseProducts(c, t, xq, xf, xr, xg)
	for i := range g1 {
		g1[i] = int32(freezeQ(c[j+i]))
	}

	delta, M2 := jump(ar, n-j, delta, f1, g1, topRow, false)

	// M = M2 * M1 (degree <= n < 2m: no wrap-around).
	yu, yv, yq, yr := xf, xg, t, X[7*m:]
	forwardInt(pl, yu, M2.u)
	forwardInt(pl, yv, M2.v)
	products := []struct {
		out        []int32
		a, b, c, d []complex128
	}{
		{M.u, yu, xu, yv, xq},
		{M.v, yu, xv, yv, xr},
		{M.q, yq, xu, yr, xq},
		{M.r, yq, xv, yr, xr},
	}
	if topRow {
		products = products[:2]
	} else {
		forwardInt(pl, yq, M2.q)
		forwardInt(pl, yr, M2.r)
	}
	z := ar.complexes(m)
	for _, e := range products {
		pl.inverseProducts(c, z, e.a, e.b, e.c, e.d)
		for i := range e.out {
			e.out[i] = int32(freezeQ(c[i]))
		}
	}
	return delta, M
}

// recipArenaSize bounds the scratch space of one inversion: each level of
// jump uses O(n) and the sizes halve, so a few times the top size suffices
// (checked by a test through the slice bounds).
const recipArenaComplex, recipArenaInts, recipArenaWides = 16 * 1024, 24 * 1024, 4 * 1024

var recipArenas = sync.Pool{New: func() any {
	return &arena{
		c: make([]complex128, recipArenaComplex),
		i: make([]int32, recipArenaInts),
		w: make([]int64, recipArenaWides),
	}
}}

func getRecipArena() *arena { return recipArenas.Get().(*arena) }

// putRecipArena clears what the inversion used and returns the arena.
func putRecipArena(a *arena) {
	clear(a.c[:a.maxc])
	clear(a.i[:a.maxi])
	clear(a.w[:a.maxw])
	*a = arena{c: a.c, i: a.i, w: a.w}
	recipArenas.Put(a)
}

// recipRq sets out = scale/a in R/q and returns 0, or returns -1 if a is
// not invertible (only a = 0 for sntrup761, where R/q is a field).
// Constant time: 2p-1 divsteps through jump, whose shape is fixed.
func recipRq(out *[P]int16, a *[P]int16, scale int16) int32 {
	if asmEnabled {
		return recipRqAVX2(out, a, scale)
	}
	// Reversed x^p - x - 1 and reversed a, as power series.
	var F, G [P + 1]int32
	F[0], F[P-1], F[P] = 1, -1, -1
	for i := range P {
		G[P-1-i] = int32(a[i])
	}

	const n = 2*P - 1
	const j = P - 1 // first jump: 760 steps on the first 760 coefficients
	ar := getRecipArena()
	defer putRecipArena(ar)
	delta, M1 := jump(ar, j, 1, F[:], G[:], false, true) // F[:j] = 1, 0, ..., 0

	// (f, g) after j steps: coefficients j..j+P+1 of u*F + v*G and
	// q*F + r*G (the largest index of these products is j+P, so 2m >= j+P+2
	// avoids wrap-around). F = 1 - x^(P-1) - x^P is sparse, so u*F and q*F
	// are computed directly; only v*G and r*G need transforms.
	pl := plan768()
	m := pl.m
	var xv, xr, xg, xa, xb, t spectrum
	forwardInt(pl, xv[:], M1.v)
	forwardInt(pl, xr[:], M1.r)
	forwardInt(pl, xg[:], G[:])
	c := ar.wides(2 * m)
	// Coefficient j+i of u*F is u_(j+i) - u_i - u_(i-1) (j = P-1), where
	// u has j+1 coefficients: the first term exists only for i = 0, the
	// second for i <= j, the third for i >= 1.
	var f1, g1 [P + 1]int32
	timesF := func(out *[P + 1]int32, u []int32) {
		u = u[:j+1]
		cs := c[j : j+P+1]
		out[0] = int32(freezeQ(cs[0] + int64(u[j]) - int64(u[0])))
		for i := 1; i <= j; i++ {
			out[i] = int32(freezeQ(cs[i] - int64(u[i]) - int64(u[i-1])))
		}
		out[P] = int32(freezeQ(cs[P] - int64(u[j])))
	}
	pl.inverseProducts(c, t[:], xv[:], xg[:], nil, nil)
	timesF(&f1, M1.u)
	pl.inverseProducts(c, t[:], xr[:], xg[:], nil, nil)
	timesF(&g1, M1.q)

	delta, M2 := jump(ar, n-j, delta, f1[:], g1[:], true, false) // only u2, v2 are used

	// f after n steps is the constant x^-(n-j) * (u2 f1 + v2 g1) at
	// degree n-j.
	// The sum stays below 762 * 2 * Q12^2 < 2^33, inside freezeQ's range.
	var f0 int64
	for i := 0; i <= n-j; i++ {
		f0 += int64(M2.u[i])*int64(f1[n-j-i]) + int64(M2.v[i])*int64(g1[n-j-i])
	}
	f0 = int64(freezeQ(f0))

	// v = (M2 * M1).v = u2*v1 + v2*r1; only its low coefficients are needed.
	forwardInt(pl, xa[:], M2.u)
	forwardInt(pl, xb[:], M2.v)
	pl.inverseProducts(c, t[:], xa[:], xv[:], xb[:], xr[:])

	s := int64(freezeQ(int64(recipQ(int16(f0))) * int64(scale)))
	for i := range P {
		out[i] = freezeQ(int64(freezeQ(c[P-i])) * s)
	}
	return nzMask(delta)
}

// recipQ returns 1/a in F_q (0 for a = 0) as a^(q-2), by square-and-multiply
// over the public exponent: constant time in a.
func recipQ(a int16) int16 {
	r := int64(1)
	b := int64(a)
	for e := Q - 2; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = int64(freezeQ(r * b))
		}
		b = int64(freezeQ(b * b))
	}
	return int16(r)
}
