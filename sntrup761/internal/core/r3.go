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

// add3 returns a + b for single F_3 "words" (nonzero, sign planes).
//
// With a, b in {0, 1, -1} encoded as (nz, sg) = (0,0), (1,0), (1,1):
// the sum is zero when a = -b (both nonzero, signs differ) or both zero;
// it is a when b = 0, b when a = 0, and -a when a = b (1+1 = -1, -1-1 = 1).
func add3(anz, asg, bnz, bsg uint64) (nz, sg uint64) {
	x := asg ^ bsg
	both := anz & bnz
	cancel := both & x // a = -b
	same := both &^ x  // a = b: result is -a
	nz = (anz | bnz) &^ cancel
	sg = (asg & anz &^ bnz) | (bsg & bnz &^ anz) | (same &^ asg)
	return nz, sg & nz
}

// r3Recip sets out = 1/a in R/3 and returns 0, or returns -1 (and garbage)
// if a is not invertible. It runs the same 2p-1 divsteps as ../ref.R3Recip
// (Bernstein–Yang), 64 coefficients per machine word.
func r3Recip(out *[P]int8, a *[P]int8) int32 {
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

	for range 2*P - 1 {
		// v = x*v
		shiftUp1(&v)

		f0nz, f0sg := f.nz[0]&1, f.sg[0]&1
		g0nz, g0sg := g.nz[0]&1, g.sg[0]&1
		swap := negMask(-delta) & -int32(g0nz)
		delta ^= swap & (delta ^ -delta)
		delta++
		sw := uint64(int64(swap))
		for i := range r3Words {
			t := sw & (f.nz[i] ^ g.nz[i])
			f.nz[i] ^= t
			g.nz[i] ^= t
			t = sw & (f.sg[i] ^ g.sg[i])
			f.sg[i] ^= t
			g.sg[i] ^= t
			t = sw & (v.nz[i] ^ r.nz[i])
			v.nz[i] ^= t
			r.nz[i] ^= t
			t = sw & (v.sg[i] ^ r.sg[i])
			v.sg[i] ^= t
			r.sg[i] ^= t
		}
		// After the swap the constant terms are exchanged too.
		f0nz, g0nz = f0nz^(sw&1&(f0nz^g0nz)), g0nz^(sw&1&(f0nz^g0nz))
		f0sg, g0sg = f0sg^(sw&1&(f0sg^g0sg)), g0sg^(sw&1&(f0sg^g0sg))

		// g = g + c*f and r = r + c*v with c = -g0/f0 = -g0*f0: zero if
		// g0 = 0, otherwise a sign.
		cnz := -(g0nz)                  // all ones if c != 0
		csg := -((g0sg ^ f0sg ^ 1) & 1) // all ones if c = -1
		for i := range r3Words {
			// c*f: zero or f with its sign flipped when c = -1
			fnz := f.nz[i] & cnz
			g.nz[i], g.sg[i] = add3(g.nz[i], g.sg[i], fnz, (f.sg[i]^csg)&fnz)
			vnz := v.nz[i] & cnz
			r.nz[i], r.sg[i] = add3(r.nz[i], r.sg[i], vnz, (v.sg[i]^csg)&vnz)
		}
		// g = g/x
		shiftDown1(&g)
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

func shiftUp1(x *r3vec) {
	for i := r3Words - 1; i > 0; i-- {
		x.nz[i] = x.nz[i]<<1 | x.nz[i-1]>>63
		x.sg[i] = x.sg[i]<<1 | x.sg[i-1]>>63
	}
	x.nz[0] <<= 1
	x.sg[0] <<= 1
	// keep p+1 coefficients, like the reference's array of p+1 entries
	const topMask = 1<<((P+1)%64) - 1
	x.nz[r3Words-1] &= topMask
	x.sg[r3Words-1] &= topMask
}

func shiftDown1(x *r3vec) {
	for i := range r3Words - 1 {
		x.nz[i] = x.nz[i]>>1 | x.nz[i+1]<<63
		x.sg[i] = x.sg[i]>>1 | x.sg[i+1]<<63
	}
	x.nz[r3Words-1] >>= 1
	x.sg[r3Words-1] >>= 1
}
