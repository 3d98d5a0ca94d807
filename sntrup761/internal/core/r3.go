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

// r3Recip sets out = 1/a in R/3 and returns 0, or returns -1 (and garbage)
// if a is not invertible. It runs the same 2p-1 divsteps as ../ref.R3Recip
// (Bernstein–Yang), 64 coefficients per machine word.
//
// After k steps only the first 2p-1-k coefficients of f and g can still
// influence the result, and v and r have at most k+1 nonzero coefficients,
// so each step touches only those words (the counts depend on k alone).
func r3Recip(out *[P]int8, a *[P]int8) int32 {
	if simdEnabled {
		return r3RecipSIMD(out, a)
	}
	var f, g, v, r r3vec
	// f = reversed x^p - x - 1: coefficients f_0 = 1, f_{p-1} = f_p = -1.
	setCoeff(&f, 0, 1)
	setCoeff(&f, P-1, -1)
	setCoeff(&f, P, -1)
	for i := range P {
		setCoeff(&g, P-1-i, a[i])
	}
	setCoeff(&r, 0, 1)
	delta := int32(1)

	for k := range 2*P - 1 {
		nfg := min(r3Words, (2*P-1-k+63)/64) // words of f, g still meaningful
		nvr := min(r3Words, (k+2+63)/64)     // words of v, r that can be nonzero

		f0sg := f.sg[0] & 1 // f0 is never zero
		g0nz, g0sg := g.nz[0]&1, g.sg[0]&1
		swap := negMask(-delta) & -int32(g0nz)
		delta ^= swap & (delta ^ -delta)
		delta++
		sw := uint64(int64(swap))
		// c = -g0/f0 = -g0*f0 (f0 = ±1), the same before and after the
		// swap: zero if g0 = 0, else a sign.
		cnz := -g0nz                       // all ones if c != 0
		csg := -((g0sg ^ f0sg ^ 1) & g0nz) // all ones if c = -1

		// f, g <- swapped; g <- (g + c*f)/x. The division by x shifts the
		// sum down one bit, so word i-1 of g is written once word i of
		// the sum is known.
		var prevNz, prevSg uint64
		for i := range nfg {
			fnz, fsg, gnz, gsg := f.nz[i], f.sg[i], g.nz[i], g.sg[i]
			t := sw & (fnz ^ gnz)
			fnz ^= t
			gnz ^= t
			t = sw & (fsg ^ gsg)
			fsg ^= t
			gsg ^= t
			f.nz[i], f.sg[i] = fnz, fsg
			pnz := fnz & cnz
			sNz, sSg := add3(gnz, gsg, pnz, (fsg^csg)&pnz)
			if i > 0 { // public index
				g.nz[i-1] = prevNz>>1 | sNz<<63
				g.sg[i-1] = prevSg>>1 | sSg<<63
			}
			prevNz, prevSg = sNz, sSg
		}
		g.nz[nfg-1] = prevNz >> 1
		g.sg[nfg-1] = prevSg >> 1

		// v <- x*v; then v, r <- swapped; r <- r + c*v. Bit carry of the
		// shift is taken from the word below before it is overwritten.
		var carryNz, carrySg uint64
		for i := range nvr {
			vnz := v.nz[i]<<1 | carryNz
			vsg := v.sg[i]<<1 | carrySg
			carryNz, carrySg = v.nz[i]>>63, v.sg[i]>>63
			rnz, rsg := r.nz[i], r.sg[i]
			t := sw & (vnz ^ rnz)
			vnz ^= t
			rnz ^= t
			t = sw & (vsg ^ rsg)
			vsg ^= t
			rsg ^= t
			pnz := vnz & cnz
			r.nz[i], r.sg[i] = add3(rnz, rsg, pnz, (vsg^csg)&pnz)
			v.nz[i], v.sg[i] = vnz, vsg
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
