package core

import "math/bits"

// Bitsliced arithmetic in R/3 for the inversion of g.
//
// A vector of up to 64*r3Words coefficients in F_3 is held in two bit-planes
// per word: bit i of lo is set for coefficients 1 and -1, bit i of hi only
// for -1 ("nonzero" and "sign"). Addition and negation are a handful of
// boolean operations per 64 coefficients, so one divstep costs O(p/64).
//
// Constant time: only boolean operations, shifts by public amounts and
// masks; no branch or index depends on the coefficients.

const r3Words = (P + 1 + 63) / 64 // 12 words hold p+1 = 762 coefficients

// r3vec is a bitsliced vector of F_3 coefficients; coefficient i lives in
// bit i%64 of word i/64.
type r3vec struct{ nz, sg [r3Words]uint64 }

// add3 returns a + b for 64 F_3 coefficients at once (nonzero, sign
// planes), with canonical encodings in and out: 0 = (0,0), 1 = (1,0),
// -1 = (1,1).
//
// The sum is nonzero iff exactly one operand is, or both are with the same
// sign: nz = (anz ^ bnz) | (anz &^ (asg ^ bsg)). Its sign is set iff one
// operand is zero and the other is -1, or both are 1 (1+1 = -1); both -1
// gives 1 and opposite signs give 0, so sg = (asg | bsg) ^ (anz & bnz)
// (checked on all nine inputs by TestAdd3).
func add3(anz, asg, bnz, bsg uint64) (nz, sg uint64) {
	nz = (anz ^ bnz) | (anz &^ (asg ^ bsg))
	sg = (asg | bsg) ^ (anz & bnz)
	return nz, sg
}

// r3Ctl holds the decision of one divstep as word masks: sw is all ones if
// the step swaps, cn all ones if c != 0, and ncs all ones if c != -1,
// where c = -g0*f0 is the multiple of f added to g.
type r3Ctl struct{ sw, cn, ncs uint64 }

// r3Decide returns the masks of the divstep that sees the constant
// coefficients f0 (never zero) and g0 in bit 63 of fs, gn, gs, and the new
// delta. Constant time: masks and arithmetic shifts only.
func r3Decide(delta int64, fs, gn, gs uint64) (r3Ctl, int64) {
	cn := uint64(int64(gn) >> 63) // g0 != 0
	sw := uint64(-delta>>63) & cn // delta > 0 and g0 != 0
	return r3Ctl{
		sw:  sw,
		cn:  cn,
		ncs: uint64(int64(gs^fs) >> 63), // c = -g0*f0 is -1 iff g0 = f0
	}, 1 + (delta ^ int64(sw)) - int64(sw) // 1-delta on a swap, else 1+delta
}

// r3Elim is one divstep on one word of two rows: it returns the new first
// row f' = (sw ? -c*g : f) and s = g + c*f (the caller divides s by x, or
// for v, r multiplies f by x first).
//
// Encoding: the sign bit of a zero coefficient is arbitrary here (inputs
// and outputs), which saves masking it. With h = c*f (h nonzero iff f is
// and c != 0), x = gn ^ hn (exactly one of g, h nonzero) and q = 1 where
// g and h would have equal signs (q = fs ^ gs ^ ncs, meaningful where both
// are nonzero):
//
//	sn = x | (hn & q)         zero iff both are zero or opposite (where
//	                          x = 0, gn = hn)
//	ss = gs ^ (hn & (x ^ q))  g's sign if h = 0; -g's if equal signs
//	                          (1+1 = -1, -1-1 = 1); h's if g = 0
//	                          (then x = 1 and gs ^ ^q = sign of h)
//	fn' = fn ^ (sw & x)       with sw, c != 0, so hn = fn
//	fs' = fs ^ (sw & q)       the sign of -c*g
//
// Checked on all encodings by TestR3Elim.
func r3Elim(fn, fs, gn, gs uint64, c *r3Ctl) (fn2, fs2, sn, ss uint64) {
	hn := fn & c.cn
	x := gn ^ hn
	q := fs ^ gs ^ c.ncs
	sn = x | (hn & q)
	ss = gs ^ (hn & (x ^ q))
	fn2 = fn ^ (c.sw & x)
	fs2 = fs ^ (c.sw & q)
	return fn2, fs2, sn, ss
}

// Layout of r3Recip: words that overlap.
//
// A pass applies r3T divsteps to one word before it moves on to the next.
// Each step moves f, g down by one coefficient (g/x) and v, r up by one
// (x*v), so a word needs one coefficient of its neighbour per step.
// Instead of passing these along, a word owns r3Own = 64-r3T coefficients
// and also holds copies of the r3T coefficients next to them. Apart from
// the shift a step works coefficient by coefficient, so r3T steps can run
// on each word alone; in both rows the shift is a shift up (<<1), so
// afterwards bits r3T..63 are right and the copies in bits 0..r3T-1 are
// wrong. Each pass renews them as it loads a word, from the neighbour's
// bits r3Own..63 (its own coefficients) before that neighbour has been
// processed in the pass: word i is w[i]&^0xff | w[i±1]>>r3Own.
//
//   - f, g (word 0..r3N-1): bit 63-t of word i is coefficient r3Own*i+t,
//     t = 0..63, so g/x is g<<1; bits 0..r3T-1 copy word i+1 (word r3N
//     stays zero, above the top coefficient p). Passes run bottom-up.
//   - v, r (word 1..r3N; word 0 stays zero, below coefficient 0): bit t of
//     word i is coefficient r3Own*(i-1)+t-r3T, so x*v is v<<1; bits
//     0..r3T-1 copy word i-1. Passes run top-down.
const (
	r3T   = 8                           // divsteps per pass
	r3Own = 64 - r3T                    // coefficients owned by a word
	r3N   = (P + 1 + r3Own - 1) / r3Own // words for p+1 coefficients: 14
	r3Cp  = 1<<r3T - 1                  // the copied bits
)

// r3State holds the rows of r3Recip in the overlapping layout and the
// decisions of the current pass, all behind one pointer.
type r3State struct {
	fn, fs, gn, gs [r3N + 1]uint64
	vn, vs, rn, rs [r3N + 1]uint64
	c              [r3T]r3Ctl
}

// r3Recip sets out = 1/a in R/3 and returns 0, or returns -1 (and garbage)
// if a is not invertible. It runs the same 2p-1 divsteps as ../ref.R3Recip
// (Bernstein–Yang), bitsliced, with the same sequence of delta and swap
// decisions.
//
// No swap of the second row. The reference swaps (f, v) with (g, r) and
// then adds c*f to g, c = -g0*f0. We instead compute g + c*f from the rows
// before the swap and select the new first row: f' = swap ? -c*g : f (the
// factor -c saves an operation in r3Elim). Without a swap the result is
// the reference's; with one (then c = ±1) the reference gets f' = g and
// f + c*g = c*(g + c*f), so our rows are the reference's times ±1. Such
// scalings change nothing that matters: the decisions depend on delta and
// on g0 != 0 only, c is computed from our own f0, g0 (so the scales carry
// through: with f = a*f*, g = b*g* our c is a*b*c* and our g + c*f is
// b*(g* + c*f*)), and the result v/f0 has v and f in the same row.
//
// r3T steps per pass (see the layout above). The decision of a step
// depends only on delta and the constant coefficients of f and g, so the
// decisions of a pass are found by running its r3T steps on word 0 of f, g
// alone (decide); that word's new value is kept. Then every other word
// gets the same r3T steps, one after the other in registers (passFG,
// passVR).
//
// Word counts: with k steps done, only the first L = 2p-1-k coefficients
// of f and g can still influence the result (coefficient j after a step
// depends on coefficients j and j+1 before it). A pass that starts with
// the first L right ends with the first L-r3T right if it processes the
// words that own them (their inputs, up to r3T coefficients higher, are
// right as loaded); words above are stale, wrong only past the precision.
// v and r have at most k+1 nonzero coefficients, of which only the first p
// matter (coefficient j never influences lower ones); a pass processes
// the words that can be nonzero after it. The words touched and all loop
// bounds depend on k alone.
//
// Constant time: only boolean operations, shifts by public amounts and
// masks; no branch or index depends on the coefficients.
func r3Recip(out *[P]int8, a *[P]int8) int32 {
	if simdEnabled {
		return r3RecipSIMD(out, a)
	}
	var st r3State
	// f = reversed x^p - x - 1: coefficients f_0 = 1, f_{p-1} = f_p = -1.
	st.setF(0, 1)
	st.setF(P-1, -1)
	st.setF(P, -1)
	// g = reversed a: coefficient j is a[p-1-j] = pa[r3Pad+p-1-j], so bit
	// 63-t of word i, coefficient r3Own*i+t, is byte b+63-t of pa for
	// b = r3Pad+p-64-r3Own*i: gather pa[b..b+63] into bits 0..63.
	var pa [r3Pad + P]int8 // zeros below a
	copy(pa[r3Pad:], a[:])
	for i := range r3N {
		b := r3Pad + P - 64 - r3Own*i
		var nz, sg uint64
		for u := 0; u < 64; u += 8 {
			x := r3Load8(&pa, b+u)
			nz |= r3Gather8(x) << u    // c = ±1 has its low bit set
			sg |= r3Gather8(x>>1) << u // c = -1 has all bits set
		}
		st.gn[i], st.gs[i] = nz, sg
	}
	st.rn[1] = 1 << r3T // r = 1
	delta := int64(1)

	const steps = 2*P - 1
	k := 0
	for ; k+r3T <= steps; k += r3T {
		delta = st.decide(delta)
		st.passFG(min(r3N, (min(steps-k-r3T, P+1)+r3Own-1)/r3Own))
		st.passVR(min(r3N, (min(k+r3T+1, P)+r3Own-1)/r3Own))
	}
	f0s := st.fs[0] >> 63
	for ; k < steps; k++ { // the last steps one by one: only v and f0 matter
		fn, fs := st.fn[0]&^r3Cp|st.fn[1]>>r3Own, st.fs[0]&^r3Cp|st.fs[1]>>r3Own
		gn, gs := st.gn[0]&^r3Cp|st.gn[1]>>r3Own, st.gs[0]&^r3Cp|st.gs[1]>>r3Own
		var c r3Ctl
		c, delta = r3Decide(delta, fs, gn, gs)
		fn, fs, gn, gs = r3Elim(fn, fs, gn, gs, &c)
		st.fn[0], st.fs[0], st.gn[0], st.gs[0] = fn, fs, gn<<1, gs<<1
		f0s = fs >> 63
		for i := r3N; i >= 1; i-- {
			vn, vs := st.vn[i]&^r3Cp|st.vn[i-1]>>r3Own, st.vs[i]&^r3Cp|st.vs[i-1]>>r3Own
			rn, rs := st.rn[i]&^r3Cp|st.rn[i-1]>>r3Own, st.rs[i]&^r3Cp|st.rs[i-1]>>r3Own
			st.vn[i], st.vs[i], st.rn[i], st.rs[i] = r3Elim(vn<<1, vs<<1, rn, rs, &c)
		}
	}

	// out = v / f_0, reversed: out_i = f0 * v_(p-1-i) since f0 = ±1.
	// Word 1+w of v holds coefficient r3Own*w+t in bit r3T+t, which is
	// bit 55-t = s of the word reversed, and out index p-1-r3Own*w-t =
	// p-r3Own-r3Own*w+s: bytes po[r3Pad+...] in order.
	fsg := -f0s
	var po [r3Pad + P]int8 // po[r3Pad+i] = out[i]
	for w := range r3N {
		nz := bits.Reverse64(st.vn[1+w])
		sg := bits.Reverse64(st.vs[1+w]^fsg) & nz
		b := r3Pad + P - r3Own - r3Own*w
		for u := 0; u < r3Own; u += 8 {
			// 1, all ones (-1) or 0 in each byte.
			r3Store8(&po, b+u, r3Spread8(nz>>u&0xff)|r3Spread8(sg>>u&0xff)*0xfe)
		}
	}
	copy(out[:], po[r3Pad:])
	return nzMask(int32(delta)) // |delta| <= 2p
}

// r3Pad is the zero padding below the byte buffers of r3Recip: the top
// word of g takes bytes from below a, and of v gives bytes below out.
const r3Pad = 64

// setF sets coefficient j of f to c = ±1 in every word that holds it (f
// is zero before); j is public.
func (st *r3State) setF(j int, c int8) {
	for i := range r3N {
		if t := j - r3Own*i; t >= 0 && t < 64 { // public
			st.fn[i] |= 1 << (63 - t)
			st.fs[i] |= uint64(c>>1&1) << (63 - t)
		}
	}
}

// r3Load8 returns the bytes p[k..k+7] as a little-endian word.
func r3Load8(p *[r3Pad + P]int8, k int) uint64 {
	q := (*[8]int8)(p[k : k+8])
	return uint64(uint8(q[0])) | uint64(uint8(q[1]))<<8 | uint64(uint8(q[2]))<<16 |
		uint64(uint8(q[3]))<<24 | uint64(uint8(q[4]))<<32 | uint64(uint8(q[5]))<<40 |
		uint64(uint8(q[6]))<<48 | uint64(uint8(q[7]))<<56
}

// r3Store8 stores x little-endian into p[k..k+7].
func r3Store8(p *[r3Pad + P]int8, k int, x uint64) {
	q := (*[8]int8)(p[k : k+8])
	q[0], q[1], q[2], q[3] = int8(x), int8(x>>8), int8(x>>16), int8(x>>24)
	q[4], q[5], q[6], q[7] = int8(x>>32), int8(x>>40), int8(x>>48), int8(x>>56)
}

// r3Gather8 returns bit 0 of byte u of x in bit u, u = 0..7. The product
// moves bit 8u by 7k+7 for k = 0..7, to 56+u for k = 7-u; no two terms
// meet (8u+7k = 8u'+7k' forces k = k'), so nothing carries.
func r3Gather8(x uint64) uint64 {
	return (x & 0x0101010101010101) * 0x0102040810204080 >> 56
}

// r3Spread8 returns bit u of b (b < 256) in bit 0 of byte u: byte u of
// the copies keeps bit u, and adding 0x7f carries it into bit 7 (no byte
// overflows).
func r3Spread8(b uint64) uint64 {
	y := b * 0x0101010101010101 & 0x8040201008040201
	return (y + 0x7f7f7f7f7f7f7f7f) & 0x8080808080808080 >> 7
}

// decide finds the decisions of the next r3T divsteps from word 0 of f
// and g, whose new value it keeps, and returns the new delta.
func (st *r3State) decide(delta int64) int64 {
	fn, fs := st.fn[0]&^r3Cp|st.fn[1]>>r3Own, st.fs[0]&^r3Cp|st.fs[1]>>r3Own
	gn, gs := st.gn[0]&^r3Cp|st.gn[1]>>r3Own, st.gs[0]&^r3Cp|st.gs[1]>>r3Own
	for j := range r3T {
		st.c[j], delta = r3Decide(delta, fs, gn, gs)
		fn, fs, gn, gs = r3Elim(fn, fs, gn, gs, &st.c[j])
		gn, gs = gn<<1, gs<<1
	}
	st.fn[0], st.fs[0], st.gn[0], st.gs[0] = fn, fs, gn, gs
	return delta
}

// passFG applies the r3T divsteps of st.c to words 1..n-1 of f and g (word
// 0 is done), bottom-up: f, g <- f', (g + c*f)/x.
func (st *r3State) passFG(n int) {
	n = min(n, r3N) // no-op; lets the compiler drop the bounds checks
	for i := 1; i < n; i++ {
		fn, fs := st.fn[i]&^r3Cp|st.fn[i+1]>>r3Own, st.fs[i]&^r3Cp|st.fs[i+1]>>r3Own
		gn, gs := st.gn[i]&^r3Cp|st.gn[i+1]>>r3Own, st.gs[i]&^r3Cp|st.gs[i+1]>>r3Own
		fn, fs, gn, gs = r3Elim(fn, fs, gn, gs, &st.c[0])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[1])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[2])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[3])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[4])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[5])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[6])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &st.c[7])
		st.fn[i], st.fs[i], st.gn[i], st.gs[i] = fn, fs, gn<<1, gs<<1
	}
}

// passVR applies the r3T divsteps of st.c to words 1..n of v and r,
// top-down: with w = x*v, v, r <- (sw ? -c*r : w), r + c*w.
func (st *r3State) passVR(n int) {
	n = min(n, r3N) // no-op; lets the compiler drop the bounds checks
	for i := n; i >= 1; i-- {
		vn, vs := st.vn[i]&^r3Cp|st.vn[i-1]>>r3Own, st.vs[i]&^r3Cp|st.vs[i-1]>>r3Own
		rn, rs := st.rn[i]&^r3Cp|st.rn[i-1]>>r3Own, st.rs[i]&^r3Cp|st.rs[i-1]>>r3Own
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[0])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[1])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[2])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[3])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[4])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[5])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[6])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &st.c[7])
		st.vn[i], st.vs[i], st.rn[i], st.rs[i] = vn, vs, rn, rs
	}
}

// setCoeff sets coefficient i of x to c in {-1, 0, 1}; i is public.
func setCoeff(x *r3vec, i int, c int8) {
	bit := uint64(1) << (i % 64)
	x.nz[i/64] &^= bit
	x.sg[i/64] &^= bit
	nz := uint64(c&1) * bit      // c = ±1 has its low bit set
	sg := uint64((c>>1)&1) * bit // c = -1 has all bits set
	x.nz[i/64] |= nz
	x.sg[i/64] |= sg
}
