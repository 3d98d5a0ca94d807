package core

// The leaves of the jump recursion of recipq.go: up to jumpBase divsteps
// without FFTs (jumpPlain), one at a time on packed lanes (leafState) or
// in two halves joined by Karatsuba products (leafSplit), and the
// fixed-size products and Montgomery reductions they use.

// jumpPlain returns δ after n <= jumpBase divsteps from (δ, f, g) and
// their matrix, from the first n coefficients of f and g (in [-Q12, Q12]),
// without FFTs, which cost more than schoolbook and Karatsuba at these
// sizes: up to leafPlainMax = jumpBase/2 steps one at a time
// (leafState.run), above that in two such halves joined by Karatsuba
// products (leafSplit).
//
// A divstep either keeps (f, g) or swaps them, then sets g to
// (f0*g - g0*f)/x with the post-swap constants. Written without the swap,
// the new g is s*(f0*g - g0*f)/x with the pre-swap values and s = -1 on a
// swap, and the new f is g or f: a masked select instead of an exchange.
// The rows of the matrix follow the same rule, the f row times x.
//
// Constant time: all loop bounds and the split depend only on n; the swaps
// are masks.
func jumpPlain(ar *arena, n int, delta int32, f0s, g0s []int32) (int32, jumpMatrix) {
	if n > jumpBase {
		panic("core: jumpPlain too long")
	}
	M := newJumpMatrix(ar, n)
	var f, g [jumpBase]uint64 // in [0, q), zero past n
	for i, x := range f0s[:n] {
		f[i] = uint64(x + Q&negMask(x))
	}
	for i, x := range g0s[:n] {
		g[i] = uint64(x + Q&negMask(x))
	}
	if n > leafPlainMax {
		return leafSplit(n, delta, &f, &g, M), M
	}
	var st leafState
	delta = st.run(n, delta, f[:n], g[:n])
	for i := range M.u {
		M.u[i] = freezeLane(st.uv[i] & 0xffffffff)
		M.v[i] = freezeLane(st.uv[i] >> 32)
		M.q[i] = freezeLane(st.qr[i] & 0xffffffff)
		M.r[i] = freezeLane(st.qr[i] >> 32)
	}
	return delta, M
}

// leafPlainMax is the largest n for which jumpPlain runs divsteps one by
// one. leafSplit and its products are written for halves of at most 48
// steps.
const leafPlainMax = jumpBase / 2

// leafSplit runs leafPlainMax < n <= jumpBase divsteps from δ on f and g
// (coefficients in [0, q), zero past n), sets M to their matrix and
// returns the new δ. Like jump, with j = n/2 and m = n - j <= 48 steps:
//
//  1. M1 = the matrix of the first j steps, on f and g;
//  2. (f1, g1) = M1 (f, g)/x^j, coefficients 0..m-1: the middle product
//     of the 48-tap filter M1 and coefficients 0..95 of f and g (mp48),
//     and one more sum for the last coefficient of g1;
//  3. M2 = the matrix of the last m steps, on f1 and g1;
//  4. M = M2 M1: two pairs of 48 x 48 products (mul48).
//
// The products take lanes in [0, q), so every sum of products they form
// is below 2*48*q^2 < 2^31. Their Karatsuba middle terms may wrap modulo
// 2^64, which is harmless: the arithmetic on packed words is linear, so a
// final lane is exact whenever its true value fits in 32 bits.
func leafSplit(n int, delta int32, f, g *[jumpBase]uint64, M jumpMatrix) int32 {
	const lo = 1<<32 - 1
	j, m := n/2, n-n/2
	var st leafState
	delta = st.run(j, delta, f[:j], g[:j])
	// M1 with lanes in [0, q): B[i] = uv1[i+1] (u and v have no constant
	// term), QR1[i] = qr1[i]; zero from 48 on.
	var B, QR1 [128]uint64
	for i := range 48 {
		B[i] = laneSubQ(st.uv[i+1])
		QR1[i] = laneSubQ(st.qr[i])
	}

	// red[i] = f1[i] | g1[i-1]<<32 is the sum over t < 48 of
	// H1[t] f[i+t] + H2[t] g[i+t], with H1[t] = u1[j-t] | q1[j-1-t]<<32
	// and H2[t] = v1[j-t] | r1[j-1-t]<<32: f1[i] is coefficient i+j of
	// u1 f + v1 g, g1[i-1] coefficient i-1+j of q1 f + r1 g. H1 and H2 are
	// zero for t >= j, where the masked index falls in the zeros of B and
	// QR1.
	var H1, H2 [48]uint64
	for t := range 48 {
		i := (j - 1 - t) & 127
		b, c := B[i], QR1[i]
		H1[t] = b&lo | c<<32
		H2[t] = b>>32 | c&^lo
	}
	var red [49]uint64
	mp48((*[48]uint64)(red[:48]), &H1, &H2, f, g)
	red[48] = dot48(&H1, (*[48]uint64)(f[48:]), &H2, (*[48]uint64)(g[48:]))
	for i := range red {
		red[i] = reduceLanes(red[i])
	}
	var f1, g1 [48]uint64
	for i := range m {
		f1[i] = red[i] & lo
		g1[i] = red[i+1] >> 32
	}

	st = leafState{}
	delta = st.run(m, delta, f1[:m], g1[:m])

	// M = M2 M1. With u1 = x U1 and u2 = x U2 (no constant terms), and
	// likewise for v:
	// uv = u2 uv1 + v2 qr1 = x^2 U2 B + x V2 QR1,
	// qr = q2 uv1 + r2 qr1 = x Q2 B + R2 QR1.
	// The four products go to offsets 2, 1, 1, 0 so that the sums align.
	var U, V, Q2, R [48]uint64
	for i := range 48 {
		a, c := laneSubQ(st.uv[i+1]), laneSubQ(st.qr[i])
		U[i], V[i] = a&lo, a>>32
		Q2[i], R[i] = c&lo, c>>32
	}
	var p [4][jumpBase + 2]uint64
	mul48((*[96]uint64)(p[0][2:]), (*[96]uint64)(p[1][1:]), &U, &Q2, (*[48]uint64)(B[:48]))
	mul48((*[96]uint64)(p[2][1:]), (*[96]uint64)(p[3][:]), &V, &R, (*[48]uint64)(QR1[:48]))
	u, v, q, r := M.u[:n+1], M.v[:n+1], M.q[:n+1], M.r[:n+1]
	for k := range u {
		uv, qr := p[0][k]+p[2][k], p[1][k]+p[3][k]
		u[k], v[k] = freezeLane(uv&lo), freezeLane(uv>>32)
		q[k], r[k] = freezeLane(qr&lo), freezeLane(qr>>32)
	}
	return delta
}

// leafState is the working state of leafState.run: the matrix rows and
// the packed inputs.
//
// The rows are packed two entries to a word, uv[i] = u_i | v_i<<32 and
// qr[i] = q_i | r_i<<32, with lanes below leafLane: a multiplication by a
// scalar below q serves both entries.
//
// gf holds the inputs packed the other way round, g_j | f_j<<32 at
// gf[64-j], with lanes in [0, q). Then, with X = 2^32,
//
//	qr[i] * gf[64-j] = (q_i + r_i X)(g_j + f_j X) mod 2^64
//	                 = q_i g_j + (q_i f_j + r_i g_j) X mod 2^64,
//
// whose high lane is a term of q f + r g: one 64-bit multiplication per
// term of the dot product that gives g0 (see run). The low lanes
// q_i g_j < 2^25 never carry into the high lane, even summed over the at
// most 48 terms (48 * leafLane * q < 2^31), and the high lanes sum to less
// than 48 * 2 * leafLane * q < 2^32.
//
// The sizes let step index with k & 63 without bounds checks.
type leafState struct {
	uv, qr [65]uint64
	gf     [128]uint64
}

// leafLane bounds the lanes of leafState's matrix rows (see montReduce).
const leafLane = 5400

// run runs n <= leafPlainMax divsteps from δ on f and g (coefficients in
// [0, q)) one at a time and returns the new δ; the matrix is left in st.uv
// and st.qr, which must be zero on entry.
//
// Only the matrix is updated step by step; f and g never are. A divstep
// needs f_k[0] and g_k[0], the constant terms after k steps, and
// x^k (f_k, g_k) = M_k (f, g) gives them from the matrix M_k so far:
//
//   - f_k[0] is f_(k-1)[0] or g_(k-1)[0], as the step swapped or not (the
//     new f is f or g, not shifted);
//   - g_k[0] is coefficient k of q_k f + r_k g, a dot product of k+1 terms
//     that step accumulates while it writes q_k and r_k.
//
// This costs one multiplication per matrix coefficient and step, where
// updating f and g cost two per coefficient of f and g and step.
//
// f0 and g0 are kept times 2^16 mod q, in [0, q): step's multipliers need
// that factor for montReduce, and g0 = 0 just when 2^16 g0 = 0 mod q.
func (st *leafState) run(n int, delta int32, fs, gs []uint64) int32 {
	if n > leafPlainMax {
		panic("core: leafState.run too long")
	}
	fs, gs = fs[:n], gs[:n]
	for i := range n {
		st.gf[64-i] = gs[i] | fs[i]<<32
	}
	st.uv[0], st.qr[0] = 1, 1<<32 // u = 1, r = 1
	const R = 1 << 16 % Q
	f0 := int32(reduceLane(fs[0] * R))
	g0 := int32(reduceLane(gs[0] * R))
	for k := range n {
		swap := negMask(-delta) & nzMask(g0) // δ > 0 and g0 != 0
		delta ^= swap & (delta ^ -delta)
		delta++
		a := (f0 ^ swap) - swap  // s f0
		nb := swap - (g0 ^ swap) // -s g0
		f0 ^= swap & (f0 ^ g0)
		a += Q & negMask(a)
		nb += Q & negMask(nb)
		acc := st.step(k, uint64(a), uint64(nb), uint64(int64(swap)), montMask)
		// g0 = 2^16 (acc>>32) mod q; the 32-bit acc>>32 is split into
		// 16-bit halves so that the sum to reduce stays below 2^31.
		const R2 = R * R % Q
		g := acc >> 32
		g0 = int32(reduceLane((g>>16)*R2 + (g&0xffff)*R))
	}
	return delta
}

// step turns the matrix of steps 0..k-1 into that of steps 0..k: the new
// q r row is (a*(q r) - b*(u v)), the new u v row is x times the row that
// the swap mask sw selects, with ap = 2^16 a and nb = -2^16 b mod q in
// [0, q). It returns the sum of qr[i] * gf[64-(k+1-i)] over the new row,
// whose high lane is g_(k+1)[0] mod q (see leafState).
func (st *leafState) step(k int, ap, nb, sw, mask uint64) uint64 {
	var acc uint64
	k &= 63
	uv, qr := &st.uv, &st.qr
	gf := (*[64]uint64)(st.gf[63-k:]) // gf[i] = g_(k+1-i) | f_(k+1-i)<<32
	// Two positions per iteration, from k|1 down: when k is even,
	// position k+1 holds zeros and stays zero.
	for i := (k | 1) & 63; i > 0; i -= 2 {
		uvi, qri := uv[i], qr[i]
		uv[i+1] = uvi ^ (sw & (uvi ^ qri))
		nq := montReduce(ap*qri+nb*uvi, mask)
		qr[i] = nq
		acc += nq * gf[i]
		uvi, qri = uv[i-1], qr[i-1]
		uv[i] = uvi ^ (sw & (uvi ^ qri))
		nq = montReduce(ap*qri+nb*uvi, mask)
		qr[i-1] = nq
		acc += nq * gf[i-1]
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
// each lane (mask = montMask) times qinv stay in their lane, and
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

// laneSubQ subtracts q from each 32-bit lane of x that is at least q; the
// lanes must be below 2q. Bit 31 of lane + 2^31 - q is set just when the
// lane is at least q. Constant time.
func laneSubQ(x uint64) uint64 {
	const c = (1<<31 - Q) * (1 + 1<<32)
	ge := ((x + c) >> 31) & (1 + 1<<32) // 1 in each lane >= q
	return x - ge*Q
}

// reduceLane returns y mod q for 0 <= y < 2^31: (y*reduceM)>>44 is
// exactly floor(y/q), as reduceM = ceil(2^44/q) exceeds 2^44/q by less
// than 1, so the estimate exceeds y/q by less than 2^31/2^44 = 2^-13,
// while y/q is at least 1/q > 2^-13 below the next integer; y*reduceM <
// 2^63. Constant time: multiplications and shifts only.
func reduceLane(y uint64) uint64 {
	const reduceM = (1<<44 + Q - 1) / Q
	return y - Q*((y*reduceM)>>44)
}

// reduceLanes is reduceLane on both 32-bit lanes of x.
func reduceLanes(x uint64) uint64 {
	return reduceLane(x&0xffffffff) | reduceLane(x>>32)<<32
}

// freezeLane returns x mod q in [-Q12, Q12] for 0 <= x < 2^31, as
// x - q*round(x/q) with round(x/q) = (x*m + 2^43)>>44, m = round(2^44/q):
// the estimate is off by at most x/2^45 < 2^-14, and x/q is at least
// 1/(2q) > 2^-14 from any half-integer (q is odd); x*m < 2^63.
func freezeLane(x uint64) int32 {
	const m = (1<<44 + Q/2) / Q
	return int32(int64(x) - int64((x*m+1<<43)>>44)*Q)
}

// Products of polynomials with scalar coefficients u, q by a polynomial b
// with packed ones: mulN sets p1 = u*b and p2 = q*b (2N-1 coefficients
// and a zero). mul12 is schoolbook; mul24 and mul48 are one Karatsuba
// level each: with u = u0 + x^h u1 etc., u*b = lo + x^h (m - lo - hi) +
// x^2h hi, where lo = u0*b0, hi = u1*b1, m = (u0+u1)*(b0+b1). All of it
// is exact modulo 2^64 for any inputs (TestLeafProducts).

func mul48(p1, p2 *[96]uint64, u, q, b *[48]uint64) {
	var su, sq, sb [24]uint64
	for i := range 24 {
		su[i], sq[i], sb[i] = u[i]+u[24+i], q[i]+q[24+i], b[i]+b[24+i]
	}
	var m1, m2 [48]uint64
	mul24(&m1, &m2, &su, &sq, &sb)
	mul24((*[48]uint64)(p1[:48]), (*[48]uint64)(p2[:48]), (*[24]uint64)(u[:24]), (*[24]uint64)(q[:24]), (*[24]uint64)(b[:24]))
	mul24((*[48]uint64)(p1[48:]), (*[48]uint64)(p2[48:]), (*[24]uint64)(u[24:]), (*[24]uint64)(q[24:]), (*[24]uint64)(b[24:]))
	kmid48(p1, &m1)
	kmid48(p2, &m2)
}

func mul24(p1, p2 *[48]uint64, u, q, b *[24]uint64) {
	var su, sq, sb [12]uint64
	for i := range 12 {
		su[i], sq[i], sb[i] = u[i]+u[12+i], q[i]+q[12+i], b[i]+b[12+i]
	}
	var m1, m2 [24]uint64
	mul12(&m1, &m2, &su, &sq, &sb)
	mul12((*[24]uint64)(p1[:24]), (*[24]uint64)(p2[:24]), (*[12]uint64)(u[:12]), (*[12]uint64)(q[:12]), (*[12]uint64)(b[:12]))
	mul12((*[24]uint64)(p1[24:]), (*[24]uint64)(p2[24:]), (*[12]uint64)(u[12:]), (*[12]uint64)(q[12:]), (*[12]uint64)(b[12:]))
	kmid24(p1, &m1)
	kmid24(p2, &m2)
}

// kmid48 adds m - lo - hi at offset 24 of p = lo ++ hi (48 words each).
func kmid48(p *[96]uint64, m *[48]uint64) {
	for i := range 24 {
		a, b := p[24+i], p[48+i] // lo[24+i], hi[i]
		p[24+i] = a + m[i] - p[i] - b
		p[48+i] = b + m[24+i] - a - p[72+i]
	}
}

// kmid24 adds m - lo - hi at offset 12 of p = lo ++ hi (24 words each).
func kmid24(p *[48]uint64, m *[24]uint64) {
	for i := range 12 {
		a, b := p[12+i], p[24+i] // lo[12+i], hi[i]
		p[12+i] = a + m[i] - p[i] - b
		p[24+i] = b + m[12+i] - a - p[36+i]
	}
}

// mul12 accumulates b_j times u and q into p1 and p2 at offset j (row by
// row, so each multiplication takes a freshly loaded u_i or q_i and adds
// into memory: about three instructions per 64-bit multiplication).
func mul12(p1, p2 *[24]uint64, u, q, b *[12]uint64) {
	clear(p1[:])
	clear(p2[:])
	for j := range 12 {
		bj := b[j]
		o := (*[12]uint64)(p1[j:])
		o[0] += u[0] * bj
		o[1] += u[1] * bj
		o[2] += u[2] * bj
		o[3] += u[3] * bj
		o[4] += u[4] * bj
		o[5] += u[5] * bj
		o[6] += u[6] * bj
		o[7] += u[7] * bj
		o[8] += u[8] * bj
		o[9] += u[9] * bj
		o[10] += u[10] * bj
		o[11] += u[11] * bj
		o = (*[12]uint64)(p2[j:])
		o[0] += q[0] * bj
		o[1] += q[1] * bj
		o[2] += q[2] * bj
		o[3] += q[3] * bj
		o[4] += q[4] * bj
		o[5] += q[5] * bj
		o[6] += q[6] * bj
		o[7] += q[7] * bj
		o[8] += q[8] * bj
		o[9] += q[9] * bj
		o[10] += q[10] * bj
		o[11] += q[11] * bj
	}
}

// Middle products: mpN sets o[i] = sum over t < N of h1[t] x[i+t] +
// h2[t] y[i+t] for i < N, for packed filters h1, h2 and scalar data x, y
// of 2N coefficients (the last unused). mp12 is schoolbook; mp24 and mp48
// are one transposed-Karatsuba level each: with h = h0 + x^h h1 and the
// data windows A, B, C starting at 0, h and 2h, the low half of o is
// S + mp(h0, A-B) and the high half S + mp(h1, C-B), where S =
// mp(h0+h1, B). The differences are taken modulo 2^64 (negative values
// wrap), which the linear arithmetic on packed words tolerates.

func mp48(o, h1, h2 *[48]uint64, x, y *[96]uint64) {
	var s1, s2 [24]uint64
	for t := range 24 {
		s1[t], s2[t] = h1[t]+h1[24+t], h2[t]+h2[24+t]
	}
	var s [24]uint64
	mp24(&s, &s1, &s2, (*[48]uint64)(x[24:72]), (*[48]uint64)(y[24:72]))
	var dx, dy [48]uint64
	for i := range 48 {
		dx[i], dy[i] = x[i]-x[24+i], y[i]-y[24+i]
	}
	mp24((*[24]uint64)(o[:24]), (*[24]uint64)(h1[:24]), (*[24]uint64)(h2[:24]), &dx, &dy)
	for i := range 48 {
		dx[i], dy[i] = x[48+i]-x[24+i], y[48+i]-y[24+i]
	}
	mp24((*[24]uint64)(o[24:]), (*[24]uint64)(h1[24:]), (*[24]uint64)(h2[24:]), &dx, &dy)
	for i := range 24 {
		o[i] += s[i]
		o[24+i] += s[i]
	}
}

func mp24(o, h1, h2 *[24]uint64, x, y *[48]uint64) {
	var s1, s2 [12]uint64
	for t := range 12 {
		s1[t], s2[t] = h1[t]+h1[12+t], h2[t]+h2[12+t]
	}
	var s [12]uint64
	mp12(&s, &s1, &s2, (*[24]uint64)(x[12:36]), (*[24]uint64)(y[12:36]))
	var dx, dy [24]uint64
	for i := range 24 {
		dx[i], dy[i] = x[i]-x[12+i], y[i]-y[12+i]
	}
	mp12((*[12]uint64)(o[:12]), (*[12]uint64)(h1[:12]), (*[12]uint64)(h2[:12]), &dx, &dy)
	for i := range 24 {
		dx[i], dy[i] = x[24+i]-x[12+i], y[24+i]-y[12+i]
	}
	mp12((*[12]uint64)(o[12:]), (*[12]uint64)(h1[12:]), (*[12]uint64)(h2[12:]), &dx, &dy)
	for i := range 12 {
		o[i] += s[i]
		o[12+i] += s[i]
	}
}

func mp12(o, h1, h2 *[12]uint64, x, y *[24]uint64) {
	clear(o[:])
	for t := range 12 {
		a, b := h1[t], h2[t]
		xs := (*[12]uint64)(x[t:])
		ys := (*[12]uint64)(y[t:])
		o[0] += a*xs[0] + b*ys[0]
		o[1] += a*xs[1] + b*ys[1]
		o[2] += a*xs[2] + b*ys[2]
		o[3] += a*xs[3] + b*ys[3]
		o[4] += a*xs[4] + b*ys[4]
		o[5] += a*xs[5] + b*ys[5]
		o[6] += a*xs[6] + b*ys[6]
		o[7] += a*xs[7] + b*ys[7]
		o[8] += a*xs[8] + b*ys[8]
		o[9] += a*xs[9] + b*ys[9]
		o[10] += a*xs[10] + b*ys[10]
		o[11] += a*xs[11] + b*ys[11]
	}
}

// dot48 returns the sum of a[i] x[i] + b[i] y[i] (mod 2^64).
func dot48(a, x, b, y *[48]uint64) uint64 {
	var s uint64
	for i := range 48 {
		s += a[i]*x[i] + b[i]*y[i]
	}
	return s
}
