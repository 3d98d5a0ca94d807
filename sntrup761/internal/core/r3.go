package core

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

// r3pair holds two rows of the divsteps side by side, f and g or v and r,
// and the decisions of the current pass (one base pointer for all).
type r3pair struct {
	a, b r3vec
	c    [2]r3Ctl
}

// r3Decide returns the masks of the divstep that sees the constant
// coefficients f0 (never zero) and g0 in bit 0 of fs, gn, gs, and the new
// delta. Constant time: masks only.
func r3Decide(delta int32, fs, gn, gs uint64) (r3Ctl, int32) {
	g0 := gn & 1
	swap := negMask(-delta) & -int32(g0)
	delta ^= swap & (delta ^ -delta)
	delta++
	return r3Ctl{
		sw:  uint64(int64(swap)),
		cn:  -g0,
		ncs: -((gs ^ fs) & 1), // c = -g0*f0 is -1 iff g0 = f0
	}, delta
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
//	sn = x | (gn & q)         zero iff both are zero or opposite
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
	sn = x | (gn & q)
	ss = gs ^ (hn & (x ^ q))
	fn2 = fn ^ (c.sw & x)
	fs2 = fs ^ (c.sw & q)
	return fn2, fs2, sn, ss
}

// r3Recip sets out = 1/a in R/3 and returns 0, or returns -1 (and garbage)
// if a is not invertible. It runs the same 2p-1 divsteps as ../ref.R3Recip
// (Bernstein–Yang), 64 coefficients per machine word, with the same
// sequence of delta and swap decisions.
//
// No swap of the second row. The reference swaps (f, v) with (g, r) and
// then adds c*f to g, c = -g0*f0. We instead compute g + c*f from the rows
// before the swap and only select the new f (f' = swap ? g : f). Without a
// swap the result is the same; with one (then c = ±1) the reference gets
// f + c*g = c*(g + c*f), so our second row (g, r) is the reference's times
// c = ±1. Scaling a row by ±1 changes nothing that matters: the decisions
// depend on delta and on g0 != 0 only, c is computed from our own f0, g0
// (so the scales carry through), and the result v/f0 has v and f in the
// same row.
//
// Two steps per pass. The decision of a step depends only on delta and the
// constant coefficients of f and g, so the decisions of steps k and k+1
// are computed first on word 0 alone (step k on word 0 gives the constant
// coefficients after step k: f'_0 and s_1). Then one pass over the words
// applies both steps to each word:
//
//   - f, g top-down: step k on word i gives f'[i] and s[i]; g'[i] =
//     s/x = s[i]>>1 | s[i+1]<<63 needs bit 0 of s[i+1], kept from the
//     word above, so step k+1 runs on word i at once, and the same holds
//     for its own s.
//   - v, r bottom-up: x*v[i] = v[i]<<1 | v[i-1]>>63 needs the top bit of
//     the word below, kept from the previous word for both steps.
//
// Each word is loaded and stored once per two steps.
//
// Word counts: after k steps only the first 2p-1-k coefficients of f and g
// can still influence the result, and v and r have at most k+2 nonzero
// coefficients (k+1 before the step); a pass uses the larger count of its
// two steps. Words past the precision of f, g hold stale values that are
// never read again; the top word takes a zero carry, wrong only past the
// precision. The words touched and all loop bounds depend on k alone.
//
// Constant time: only boolean operations, shifts by public amounts and
// masks; no branch or index depends on the coefficients.
func r3Recip(out *[P]int8, a *[P]int8) int32 {
	if simdEnabled {
		return r3RecipSIMD(out, a)
	}
	var fg, vr r3pair
	f, g, v, r := &fg.a, &fg.b, &vr.a, &vr.b
	// f = reversed x^p - x - 1: coefficients f_0 = 1, f_{p-1} = f_p = -1.
	setCoeff(f, 0, 1)
	setCoeff(f, P-1, -1)
	setCoeff(f, P, -1)
	for i := range P {
		setCoeff(g, P-1-i, a[i])
	}
	setCoeff(r, 0, 1)
	delta := int32(1)

	const steps = 2*P - 1
	k := 0
	for ; k+2 <= steps; k += 2 {
		// Decisions of steps k and k+1 from word 0.
		c := &fg.c
		c[0], delta = r3Decide(delta, f.sg[0], g.nz[0], g.sg[0])
		_, fs, sn, ss := r3Elim(f.nz[0], f.sg[0], g.nz[0], g.sg[0], &c[0])
		c[1], delta = r3Decide(delta, fs, sn>>1, ss>>1)
		vr.c = *c

		nfg := min(r3Words, (steps-k+63)/64)
		nvr := min(r3Words, (k+3+63)/64)
		r3PassFG2(&fg, nfg)
		r3PassVR2(&vr, nvr)
	}
	if k < steps { // the last step alone; only v and f0 matter after it
		c, d := r3Decide(delta, f.sg[0], g.nz[0], g.sg[0])
		delta = d
		f.sg[0] ^= c.sw & (f.sg[0] ^ g.sg[0] ^ c.ncs) // f0 = -c*g0 on a swap
		var kn, ks uint64
		for i := range r3Words {
			xn, xs := v.nz[i]<<1|kn, v.sg[i]<<1|ks
			kn, ks = v.nz[i]>>63, v.sg[i]>>63
			v.nz[i] = xn ^ (c.sw & (xn ^ r.nz[i]))
			v.sg[i] = xs ^ (c.sw & (xs ^ r.sg[i] ^ c.ncs))
		}
	}

	// out = v / f_0, reversed: out_i = f0 * v_(p-1-i) since f0 = ±1.
	fsg := -(f.sg[0] & 1)
	for i := range P {
		j := P - 1 - i
		nz := (v.nz[j/64] >> (j % 64)) & 1
		sg := ((v.sg[j/64] ^ fsg) >> (j % 64)) & 1
		out[i] = int8(nz) - 2*int8(sg&nz)
	}
	return nzMask(delta)
}

// r3PassFG2 applies two divsteps with decisions c1, c2 to words 0..n-1 of
// f and g: f, g <- f', (g + c*f)/x twice (see r3Recip). It runs top-down:
// k1, k2 hold bit 0 of the sums s of the word above, moved to bit 63.
func r3PassFG2(fg *r3pair, n int) {
	f, g, c := &fg.a, &fg.b, &fg.c
	var k1n, k1s, k2n, k2s uint64
	for i := n - 1; i >= 0; i-- {
		fn, fs, sn, ss := r3Elim(f.nz[i], f.sg[i], g.nz[i], g.sg[i], &c[0])
		gn, gs := sn>>1|k1n, ss>>1|k1s
		k1n, k1s = sn<<63, ss<<63
		fn, fs, sn, ss = r3Elim(fn, fs, gn, gs, &c[1])
		f.nz[i], f.sg[i] = fn, fs
		g.nz[i], g.sg[i] = sn>>1|k2n, ss>>1|k2s
		k2n, k2s = sn<<63, ss<<63
	}
}

// r3PassVR2 applies two divsteps with decisions c1, c2 to words 0..n-1 of
// v and r: v, r <- (sw ? r : x*v), r + c*x*v twice. It runs bottom-up: k1,
// k2 hold the top bits of the words below (v before and after step 1),
// moved to bit 0.
func r3PassVR2(vr *r3pair, n int) {
	v, r, c := &vr.a, &vr.b, &vr.c
	var k1n, k1s, k2n, k2s uint64
	for i := range n {
		vn, vs := v.nz[i], v.sg[i]
		xn, xs := vn<<1|k1n, vs<<1|k1s
		k1n, k1s = vn>>63, vs>>63
		vn, vs, rn, rs := r3Elim(xn, xs, r.nz[i], r.sg[i], &c[0])
		xn, xs = vn<<1|k2n, vs<<1|k2s
		k2n, k2s = vn>>63, vs>>63
		vn, vs, rn, rs = r3Elim(xn, xs, rn, rs, &c[1])
		v.nz[i], v.sg[i] = vn, vs
		r.nz[i], r.sg[i] = rn, rs
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
