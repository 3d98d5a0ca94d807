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
// Constant time: the recursion shape and all lengths depend only on n; the
// base case is the reference divstep with masked swaps and δ updates.

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

// jumpBase is the size below which divsteps are run one at a time.
const jumpBase = 48

// fftPlans[k] is the plan for m = 3*2^k, k = 0..8.
var fftPlans = func() (p [9]*fftPlan) {
	for k := range p {
		p[k] = newFFTPlan(3 << k)
	}
	return p
}()

// planFor returns the smallest plan with 2m >= n.
func planFor(n int) *fftPlan {
	for _, pl := range fftPlans {
		if 2*pl.m >= n {
			return pl
		}
	}
	panic("core: FFT size too large")
}

func nzMask(x int32) int32  { return -int32(uint32(x|-x) >> 31) }
func negMask(x int32) int32 { return x >> 31 }

// jumpPlain runs n <= jumpBase divsteps from δ on the first n coefficients
// of f and g (in [-Q12, Q12]) and returns the new δ and the n-step matrix,
// one divstep at a time.
//
// Only the matrix is updated step by step; f and g never are. A divstep
// needs f_k[0] and g_k[0], the constant terms after k steps, and
// x^k (f_k, g_k) = M_k (f, g) gives them from the matrix M_k so far:
//
//   - f_k[0] is f_(k-1)[0] or g_(k-1)[0], as the step swapped or not (a
//     step sets f to f or g, not shifted);
//   - g_k[0] is coefficient k of q_k f + r_k g, a dot product of k+1 terms
//     that leafState.step accumulates while it writes q_k and r_k.
//
// This costs one multiplication per matrix coefficient and step, where
// updating f and g cost two per coefficient of f and g and step.
//
// Constant time: the loop bounds depend only on n and the step index; the
// swap is a mask.
func jumpPlain(ar *arena, n int, delta int32, f0s, g0s []int32) (int32, jumpMatrix) {
	M := newJumpMatrix(ar, n)
	var st leafState
	delta = st.run(n, delta, f0s, g0s)
	for i := range n + 1 {
		M.u[i] = freezeQ26(int32(uint32(st.uv[i])))
		M.v[i] = freezeQ26(int32(st.uv[i] >> 32))
		M.q[i] = freezeQ26(int32(uint32(st.qr[i])))
		M.r[i] = freezeQ26(int32(st.qr[i] >> 32))
	}
	return delta, M
}

// leafState is the working state of jumpPlain.
//
// The matrix rows are packed two entries to a word, uv[i] = u_i | v_i<<32
// and qr[i] = q_i | r_i<<32, with lanes below leafLane: a multiplication
// by a scalar below q serves both entries.
//
// gf holds the inputs packed the other way round, g_j | f_j<<32 at
// gf[64-j], with lanes in [0, q). Then, with X = 2^32,
//
//	qr[i] * gf[64-j] = (q_i + r_i X)(g_j + f_j X) mod 2^64
//	                 = q_i g_j + (q_i f_j + r_i g_j) X mod 2^64,
//
// whose high lane is the term of q f + r g that g_k[0] needs: one 64-bit
// multiplication per term. The low lanes q_i g_j < 2^32 never carry into
// the high lane, even summed over the at most 48 terms (48 * leafLane * q <
// 2^31), and the high lanes sum to less than 48 * 2 * leafLane * q < 2^32.
//
// The sizes let step index with k & 63 without bounds checks.
type leafState struct {
	uv, qr [65]uint64
	gf     [128]uint64
}

// leafLane bounds the lanes of the matrix rows (see montReduce).
const leafLane = 5400

// run runs n <= jumpBase divsteps from δ on f and g and returns the new δ;
// the matrix is left in st.uv and st.qr.
func (st *leafState) run(n int, delta int32, fs, gs []int32) int32 {
	if n > jumpBase {
		panic("core: jumpPlain too long")
	}
	fs, gs = fs[:n], gs[:n]
	for i := range n {
		f := fs[i] + Q&negMask(fs[i])
		g := gs[i] + Q&negMask(gs[i])
		st.gf[64-i] = uint64(g) | uint64(f)<<32
	}
	st.uv[0], st.qr[0] = 1, 1<<32 // u = 1, r = 1
	f0, g0 := int32(st.gf[64]>>32), int32(uint32(st.gf[64]))
	for k := range n {
		// Divstep: swap when δ > 0 and g0 != 0; then
		// g = (f0 g - g0 f)/x with the post-swap f and g, which is
		// s (f0 g - g0 f)/x with the pre-swap ones, s = -1 on a swap.
		swap := negMask(-delta) & nzMask(g0)
		delta ^= swap & (delta ^ -delta)
		delta++
		a := (f0 ^ swap) - swap // s f0
		b := (g0 ^ swap) - swap // s g0
		f0 ^= swap & (f0 ^ g0)
		// a and -b in [0, q), times 2^16 for montReduce.
		ap := freezeQ26(a * (1 << 16 % Q))
		ap += Q & negMask(ap)
		nbp := freezeQ26(-b * (1 << 16 % Q))
		nbp += Q & negMask(nbp)
		acc := st.step(k, uint64(ap), uint64(nbp), uint64(int64(swap)), montMask)
		g0 = int32(freezeQ(int64(acc >> 32)))
		g0 += Q & negMask(g0)
	}
	return delta
}

// step turns the matrix of steps 0..k-1 into that of steps 0..k: the new
// q r row is a*(q r) - b*(u v), the new u v row is x times the row that
// the swap mask sw selects, with ap = a*2^16 and nb = -b*2^16 mod q. It
// returns the sum of qr[i] * gf[64-(k+1-i)] over the new row, whose high
// lane is g_(k+1)[0] (mod q).
func (st *leafState) step(k int, ap, nb, sw, mask uint64) uint64 {
	var acc uint64
	k &= 63
	uv, qr := &st.uv, &st.qr
	gf := (*[64]uint64)(st.gf[63-k:]) // gf[i] = g_(k+1-i) | f_(k+1-i)<<32
	for i := k; i >= 0; i-- {
		uvi, qri := uv[i], qr[i]
		nq := montReduce(ap*qri+nb*uvi, mask)
		qr[i] = nq
		uv[i+1] = uvi ^ (sw & (uvi ^ qri))
		acc += nq * gf[i]
	}
	uv[0] = 0
	return acc
}

// montMask selects the low 16 bits of both lanes. It is a variable so that
// step keeps it in a register.
var montMask uint64 = 0x0000ffff0000ffff

// montReduce returns x * 2^-16 mod q in both 32-bit lanes of x, each below
// 2^31, by Montgomery reduction: t = -x/q mod 2^16 per lane makes x + t*q
// a multiple of 2^16, and (x + t*q)/2^16 < x/2^16 + q. The low 16 bits of
// each lane (mask = montMask) multiplied by qinv stay in their lane, and
// t*q < 2^28.2, so no lane overflows into the next; the high lane's low 16
// bits become zero, so the shift leaves a clean low lane.
//
// In step, the lanes of qr and uv are below leafLane and ap, nb below q, so
// x < 2*q*leafLane < 2^26 and the result is below
// 2*q*leafLane/2^16 + q < 5348 < leafLane: the bound holds at every step.
// Constant time: multiplications, masks and shifts only.
func montReduce(x, mask uint64) uint64 {
	const qinv = 49905 // -1/q mod 2^16
	t := ((x & mask) * qinv) & mask
	return (x + t*Q) >> 16
}

// jump returns δ after n divsteps from (δ, f, g) and their transition
// matrix. f and g must have at least n coefficients; only n are used.
//
// With topRow set only the u and v entries of the result are computed (q
// and r are left unwritten): a caller that needs only the top row of
// M2 * M1 needs only the top row of M2, and so on down the recursion.
// topRow is a public parameter.
func jump(ar *arena, n int, delta int32, f, g []int32, topRow bool) (int32, jumpMatrix) {
	if n <= jumpBase {
		return jumpPlain(ar, n, delta, f, g)
	}
	M := newJumpMatrix(ar, n) // the result outlives the scratch below
	mk := ar.mark()
	defer ar.release(mk)
	j := n / 2
	delta, M1 := jump(ar, j, delta, f, g, false)

	pl := planFor(n + 1)
	m := pl.m
	X := ar.complexes(8 * m)
	xu, xv, xq, xr := X[:m], X[m:2*m], X[2*m:3*m], X[3*m:4*m]
	xf, xg, t := X[4*m:5*m], X[5*m:6*m], X[6*m:7*m]
	forwardInt(pl, xu, M1.u)
	forwardInt(pl, xv, M1.v)
	forwardInt(pl, xq, M1.q)
	forwardInt(pl, xr, M1.r)
	forwardInt(pl, xf, f[:n])
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

	delta, M2 := jump(ar, n-j, delta, f1, g1, topRow)

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
	if simdEnabled {
		return recipRqSIMD(out, a, scale)
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
	delta, M1 := jump(ar, j, 1, F[:], G[:], false)

	// (f, g) after j steps: coefficients j..j+P+1 of u*F + v*G and
	// q*F + r*G (the largest index of these products is j+P, so 2m >= j+P+2
	// avoids wrap-around). F = 1 - x^(P-1) - x^P is sparse, so u*F and q*F
	// are computed directly; only v*G and r*G need transforms.
	pl := plan768
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

	delta, M2 := jump(ar, n-j, delta, f1[:], g1[:], true) // only u2, v2 are used

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
