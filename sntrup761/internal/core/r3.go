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
// The code shares t = hn & q between sn and ss = gs ^ t ^ (hn & x): one
// operation more, but on amd64 the compiler then needs one register copy
// less (14 operations, 19-20 instructions with the two mask loads).
//
// Checked on all encodings by TestR3Elim.
func r3Elim(fn, fs, gn, gs uint64, c *r3Ctl) (fn2, fs2, sn, ss uint64) {
	hn := fn & c.cn
	x := gn ^ hn
	q := fs ^ gs ^ c.ncs
	t := hn & q
	ss = gs ^ t ^ (hn & x)
	sn = t | x
	fn2 = fn ^ (c.sw & x)
	fs2 = fs ^ (c.sw & q)
	return fn2, fs2, sn, ss
}

// Layout of r3Recip: overlapping windows.
//
// A pass applies r3T divsteps to one word before it moves on to the next.
// Each step moves f, g down by one coefficient (g/x) and v, r up by one
// (x*v), so a word needs one coefficient of its neighbour per step.
// Instead of passing these along, every plane of a row is a byte string
// and word i is the 8-byte little-endian window at offset o(i), with
// stride 7: a word owns the r3Own = 56 coefficients in its top 7 bytes
// (bits 8..63), and its low byte (bits 0..7) is the top byte of the
// neighbour whose coefficients the shift brings in. Apart from the shift a
// step works coefficient by coefficient, and in both rows the shift is a
// shift up (<<1), so the r3T = 8 steps of a pass run on each word alone:
// afterwards bits 8..63 are right and bits 0..7 wrong.
//
//   - f, g: bit 63-t of word i is coefficient 56i+t (t = 0..63), so g/x is
//     g<<1, and word i's low byte is the top byte of word i+1:
//     o(i) = r3FG0-7i. Word r3N is zero (above the top coefficient p).
//   - v, r: bit t of word i is coefficient 56(i-1)+t-8, so x*v is v<<1,
//     and word i's low byte is the top byte of word i-1: o(i) = 7i. Word 0
//     is zero (below coefficient 0).
//
// A pass reads the words from one copy of the rows and writes them, as
// whole windows, to the other (the copies swap roles every pass), so each
// word reads its neighbour's byte as it was before the pass. A written
// window's wrong low byte lands on the neighbour's top byte; the passes
// write that neighbour afterwards (f, g bottom-up, v, r top-down) and
// finally the zero word beyond the last word written.
const (
	r3T   = 8                           // divsteps per pass
	r3Own = 64 - r3T                    // coefficients owned by a word
	r3N   = (P + 1 + r3Own - 1) / r3Own // words for p+1 coefficients: 14
	r3FG0 = 7 * r3N                     // offset of word 0 of f, g
	r3Len = 128 + 8                     // bytes per plane; offsets are < 128
)

// r3Rows holds one copy of the rows of r3Recip in the overlapping layout,
// and the decisions of the pass that reads it.
type r3Rows struct {
	fn, fs, gn, gs, vn, vs, rn, rs [r3Len]byte
	c                              [r3T]r3Ctl
}

// r3Ld returns the window at offset o of p (o < 128).
func r3Ld(p *[r3Len]byte, o int) uint64 {
	b := (*[8]byte)(p[o&127:]) // o&127 = o lets the compiler drop the checks
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// r3St stores x as the window at offset o of p (o < 128).
func r3St(p *[r3Len]byte, o int, x uint64) {
	b := (*[8]byte)(p[o&127:]) // o&127 = o lets the compiler drop the checks
	b[0], b[1], b[2], b[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	b[4], b[5], b[6], b[7] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
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
// alone (r3Decide8); that word's new value is kept. Then every other word
// gets the same r3T steps, one after the other in registers (r3PassFG,
// r3PassVR). 2p-1 = 190*r3T + 1: the last step runs alone.
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
// Constant time: only boolean operations, shifts by public amounts, masks
// and (to convert in and out) multiplications by constants; no branch,
// index or address depends on the coefficients or on delta.
func r3Recip(out *[P]int8, a *[P]int8) int32 {
	if asmEnabled {
		return r3RecipAVX2(out, a)
	}
	var rows [2]r3Rows
	src, dst := &rows[0], &rows[1]
	// g = reversed a: coefficient j is a[p-1-j] = pa[r3Pad+p-1-j], so bit
	// 63-t of word i, coefficient r3Own*i+t, is byte b+63-t of pa for
	// b = r3Pad+p-64-r3Own*i: gather pa[b..b+63] into bits 0..63.
	// f = reversed x^p - x - 1: coefficients f_0 = 1, f_{p-1} = f_p = -1.
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
		var fn, fs uint64
		for _, j := range [...]int{0, P - 1, P} {
			if t := j - r3Own*i; t >= 0 && t < 64 { // public
				fn |= 1 << (63 - t)
				fs |= uint64(min(j, 1)) << (63 - t) // -1 for j > 0
			}
		}
		o := r3FG0 - 7*i
		r3St(&src.fn, o, fn)
		r3St(&src.fs, o, fs)
		r3St(&src.gn, o, nz)
		r3St(&src.gs, o, sg)
	}
	r3St(&src.rn, 7, 1<<r3T) // r = 1
	delta := int64(1)

	const steps = 2*P - 1
	k := 0
	for ; k+r3T <= steps; k += r3T {
		delta = r3Decide8(src, dst, delta)
		r3PassFG(src, dst, min(r3N, (min(steps-k-r3T, P+1)+r3Own-1)/r3Own))
		r3PassVR(src, dst, min(r3N, (min(k+r3T+1, P)+r3Own-1)/r3Own))
		src, dst = dst, src
	}
	if steps-k != 1 {
		panic("r3Recip: steps") // constant; see the doc comment
	}
	// The last step: only v and f0 matter after it.
	fn, fs := r3Ld(&src.fn, r3FG0), r3Ld(&src.fs, r3FG0)
	gn, gs := r3Ld(&src.gn, r3FG0), r3Ld(&src.gs, r3FG0)
	var c r3Ctl
	c, delta = r3Decide(delta, fs, gn, gs)
	_, fs, _, _ = r3Elim(fn, fs, gn, gs, &c)
	for i := r3N; i >= 1; i-- { // top-down, as in r3PassVR
		vn, vs := r3Ld(&src.vn, 7*i), r3Ld(&src.vs, 7*i)
		rn, rs := r3Ld(&src.rn, 7*i), r3Ld(&src.rs, 7*i)
		vn, vs, _, _ = r3Elim(vn<<1, vs<<1, rn, rs, &c)
		r3St(&dst.vn, 7*i, vn)
		r3St(&dst.vs, 7*i, vs)
	}

	// out = v / f_0, reversed: out_i = f0 * v_(p-1-i) since f0 = ±1.
	// Word 1+w of v holds coefficient r3Own*w+t in bit r3T+t, which is
	// bit 55-t = s of the word reversed, and out index p-1-r3Own*w-t =
	// p-r3Own-r3Own*w+s: bytes po[r3Pad+...] in order.
	fsg := -(fs >> 63)
	var po [r3Pad + P]int8 // po[r3Pad+i] = out[i]
	for w := range r3N {
		nz := bits.Reverse64(r3Ld(&dst.vn, 7*(1+w)))
		sg := bits.Reverse64(r3Ld(&dst.vs, 7*(1+w))^fsg) & nz
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

// r3Decide8 finds the decisions of the next r3T divsteps from word 0 of f
// and g in src, keeps them in src.c, writes that word's new value to dst
// and returns the new delta.
func r3Decide8(src, dst *r3Rows, delta int64) int64 {
	fn, fs := r3Ld(&src.fn, r3FG0), r3Ld(&src.fs, r3FG0)
	gn, gs := r3Ld(&src.gn, r3FG0), r3Ld(&src.gs, r3FG0)
	delta, fn, fs, gn, gs = r3Steps(&src.c, delta, fn, fs, gn, gs)
	r3St(&dst.fn, r3FG0, fn)
	r3St(&dst.fs, r3FG0, fs)
	r3St(&dst.gn, r3FG0, gn)
	r3St(&dst.gs, r3FG0, gs)
	return delta
}

// r3Steps runs r3T divsteps on one word of f and g, finding each decision
// from its bit 63 (the constant coefficients) and keeping it in c. (Two
// steps per iteration: fewer instructions than one or eight on amd64.)
func r3Steps(c *[r3T]r3Ctl, delta int64, fn, fs, gn, gs uint64) (int64, uint64, uint64, uint64, uint64) {
	for j := 0; j < r3T; j += 2 {
		c[j], delta = r3Decide(delta, fs, gn, gs)
		fn, fs, gn, gs = r3Elim(fn, fs, gn, gs, &c[j])
		c[j+1], delta = r3Decide(delta, fs, gn<<1, gs<<1)
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &c[j+1])
		gn, gs = gn<<1, gs<<1
	}
	return delta, fn, fs, gn, gs
}

// r3PassFG applies the r3T divsteps of src.c to words 1..n-1 of f and g
// (word 0 is done), bottom-up: f, g <- f', (g + c*f)/x. Then word n is
// written as zero.
func r3PassFG(src, dst *r3Rows, n int) {
	end := r3FG0 - 7*n
	for o := r3FG0 - 7; o > end; o -= 7 {
		// o&127 = o, masked on the loads' line: the compiler drops the
		// bounds checks and finds an instruction of this line for the
		// inlined calls (else it adds a NOP for each).
		q := o & 127
		fn, fs, gn, gs := r3Ld(&src.fn, q), r3Ld(&src.fs, q), r3Ld(&src.gn, q), r3Ld(&src.gs, q)
		fn, fs, gn, gs = r3Elim(fn, fs, gn, gs, &src.c[0])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[1])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[2])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[3])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[4])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[5])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[6])
		fn, fs, gn, gs = r3Elim(fn, fs, gn<<1, gs<<1, &src.c[7])
		r3St(&dst.fn, o, fn)
		r3St(&dst.fs, o, fs)
		r3St(&dst.gn, o, gn<<1)
		r3St(&dst.gs, o, gs<<1)
	}
	r3St(&dst.fn, end, 0)
	r3St(&dst.fs, end, 0)
	r3St(&dst.gn, end, 0)
	r3St(&dst.gs, end, 0)
}

// r3PassVR applies the r3T divsteps of src.c to words n..1 of v and r,
// top-down: with w = x*v, v, r <- (sw ? -c*r : w), r + c*w. Then word 0
// is written as zero.
func r3PassVR(src, dst *r3Rows, n int) {
	for o := 7 * n; o > 0; o -= 7 {
		q := o & 127 // = o; see r3PassFG
		vn, vs, rn, rs := r3Ld(&src.vn, q), r3Ld(&src.vs, q), r3Ld(&src.rn, q), r3Ld(&src.rs, q)
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[0])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[1])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[2])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[3])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[4])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[5])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[6])
		vn, vs, rn, rs = r3Elim(vn<<1, vs<<1, rn, rs, &src.c[7])
		r3St(&dst.vn, o, vn)
		r3St(&dst.vs, o, vs)
		r3St(&dst.rn, o, rn)
		r3St(&dst.rs, o, rs)
	}
	r3St(&dst.vn, 0, 0)
	r3St(&dst.vs, 0, 0)
	r3St(&dst.rn, 0, 0)
	r3St(&dst.rs, 0, 0)
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
