//go:build goexperiment.simd && amd64

package core

import "simd/archsimd"

// Inversion in R/q with 16-bit lanes: the 2p-1 constant-time divsteps of
// ../ref.rqRecip, run directly (no jump recursion, no FFT) on 16
// coefficients per instruction. The quadratic algorithm does about 1.7 M
// coefficient updates; at 16 per instruction that is cheaper than the
// scalar transforms of recipRq.
//
// Representation. Coefficients are int16 lanes, congruent mod q to the
// reference's values but not reduced: every update is a difference of two
// Shoup products (mulShoup), each in [-q/4, 5q/4), so every stored value
// stays below 1.5q < 2^13 in absolute value. Only the two scalars f0 and g0
// of each step are reduced (freezeQ), since the swap decision needs g0 mod
// q and the multipliers need canonical values.
//
// Shifts without moving data. A divstep divides g by x and multiplies v by
// x. Instead of moving the arrays, g_k (g after k steps) is stored at
// gs[k:], and v_k at vs[steps-k:]: the update g <- (a*g - b*f)/x writes
// coefficient i-1 of the new g where coefficient i of the old one was, and
// the update of v reads x*v where the new v goes, so every store is in
// place and aligned with the loads of the same block.
//
// Work per step. After k steps only the first 2p-1-k coefficients of f and
// g can influence the result, and v and r have degree at most k+1; groups
// of four blocks of 16 beyond those bounds are skipped. The skipped coefficients of
// f and g go stale, but a coefficient only ever moves down one index per
// step, as fast as the bound, so stale ones never reach the part that
// matters; v's and r's only move up, past index p where the reference
// truncates. The block counts depend on k alone.
//
// Constant time: the same loads, multiplications, masks and stores on every
// lane for every input; the swap is a broadcast mask; the only branches and
// indices depend on the public step counter k.

// recipRqSIMD is recipRq on the vector path: out = scale/a in R/q and 0,
// or -1 if a is not invertible.
func recipRqSIMD(out *[P]int16, a *[P]int16, scale int16) int32 {
	const (
		steps = 2*P - 1
		n     = 48 * 16 // P+1 coefficients rounded up to whole blocks
	)
	var f, r [n]int16
	var gs, vs [steps + n]int16
	// f = reversed x^p - x - 1, g = reversed a, r = scale, v = 0.
	f[0], f[P-1], f[P] = 1, -1, -1
	for i := range P {
		gs[P-1-i] = a[i]
	}
	r[0] = scale
	q := archsimd.BroadcastInt16x16(Q)
	delta := int32(1)
	for k := range steps {
		// Coefficients of f, g that matter and of v, r that can be
		// nonzero, rounded up to groups of four blocks (at most n).
		nfg := (min(steps-k, P+1) + 63) &^ 63
		nvr := (min(k+2, P+1) + 63) &^ 63
		g := (*[n]int16)(gs[k : k+n])
		v := (*[n]int16)(vs[steps-k-1 : steps-k-1+n]) // x*v_k, overwritten by v_(k+1)

		f0 := int32(freezeQ(int64(f[0])))
		g0 := int32(freezeQ(int64(g[0])))
		swap := negMask(-delta) & nzMask(g0)
		delta ^= swap & (delta ^ -delta)
		delta++
		// With s = -1 on a swap: new g = s*(f0*g - g0*f)/x, new f = g or f;
		// likewise r = s*(f0*r - g0*x*v), v = r or x*v (see jumpPlain).
		ca, cah := shoupPair((f0 ^ swap) - swap)
		cb, cbh := shoupPair((g0 ^ swap) - swap)
		sw := archsimd.BroadcastInt16x16(int16(swap))

		divstepBlocks(&f, g, nfg, ca, cah, cb, cbh, sw, q)
		divstepBlocks(v, &r, nvr, ca, cah, cb, cbh, sw, q)
	}
	clearUpper()

	// f is now a nonzero constant (when a is invertible); v_(2p-1) is at
	// vs[0:]. out = v/f0, reversed.
	c := int64(recipQ(freezeQ(int64(f[0]))))
	for i := range P {
		out[i] = freezeQ(c * int64(vs[P-1-i]))
	}
	clear(f[:])
	clear(r[:])
	clear(gs[:])
	clear(vs[:])
	return nzMask(delta)
}

// divstepBlocks runs one divstep's update on the first m coefficients of x
// and y (m a multiple of 64, at most 768), 64 per iteration:
// y <- a*y - b*x and x <- y or x by the mask sw, lane by lane. For
// (x, y) = (f, g) the new g lands in the old g's place, which is the
// division by x; for (x, y) = (x*v, r) the new v lands in x*v's place.
func divstepBlocks(x, y *[768]int16, m int, ca, cah, cb, cbh, sw, q archsimd.Int16x16) {
	for j := range min(m/64, 768/64) {
		xb := (*[64]int16)(x[j*64 : j*64+64])
		yb := (*[64]int16)(y[j*64 : j*64+64])
		x0, y0 := (*[16]int16)(xb[0:16]), (*[16]int16)(yb[0:16])
		x1, y1 := (*[16]int16)(xb[16:32]), (*[16]int16)(yb[16:32])
		x2, y2 := (*[16]int16)(xb[32:48]), (*[16]int16)(yb[32:48])
		x3, y3 := (*[16]int16)(xb[48:64]), (*[16]int16)(yb[48:64])
		X0, Y0 := loadI16(x0), loadI16(y0)
		storeI16(mulShoup(Y0, ca, cah, q).Sub(mulShoup(X0, cb, cbh, q)), y0)
		storeI16(X0.Xor(sw.And(X0.Xor(Y0))), x0)
		X1, Y1 := loadI16(x1), loadI16(y1)
		storeI16(mulShoup(Y1, ca, cah, q).Sub(mulShoup(X1, cb, cbh, q)), y1)
		storeI16(X1.Xor(sw.And(X1.Xor(Y1))), x1)
		X2, Y2 := loadI16(x2), loadI16(y2)
		storeI16(mulShoup(Y2, ca, cah, q).Sub(mulShoup(X2, cb, cbh, q)), y2)
		storeI16(X2.Xor(sw.And(X2.Xor(Y2))), x2)
		X3, Y3 := loadI16(x3), loadI16(y3)
		storeI16(mulShoup(Y3, ca, cah, q).Sub(mulShoup(X3, cb, cbh, q)), y3)
		storeI16(X3.Xor(sw.And(X3.Xor(Y3))), x3)
	}
}

// shoupPair broadcasts c (|c| <= Q12) and its Shoup companion
// round(c*2^16/q), which lies in [-32762, 32762]. The division is by the
// constant q, which the compiler turns into a multiplication and shifts
// (no DIV instruction, so no operand-dependent timing); c+q > 0 keeps it
// unsigned.
func shoupPair(c int32) (archsimd.Int16x16, archsimd.Int16x16) {
	h := int32((uint32(c+Q)<<16+Q/2)/Q) - 1<<16
	return archsimd.BroadcastInt16x16(int16(c)), archsimd.BroadcastInt16x16(int16(h))
}

// mulShoup returns x*c - floor(x*ch/2^16)*q, congruent to x*c mod q, in
// [-q/4, 5q/4) for every int16 x: ch/2^16 is within 2^-17 of c/q, so the
// quotient estimate is within 2^15*2^-17 = 1/4 of x*c/q before the floor.
// The result fits 16 bits, so the wrapping low products give it exactly.
func mulShoup(x, c, ch, q archsimd.Int16x16) archsimd.Int16x16 {
	return x.Mul(c).Sub(x.MulHigh(ch).Mul(q))
}
