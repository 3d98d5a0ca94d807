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
// Shoup products (see divstep64), each in [-q/4, 5q/4), so every stored value
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
// and y (m a multiple of 64, at most 768): y <- a*y - b*x and x <- y or x
// by the mask sw, lane by lane. For (x, y) = (f, g) the new g lands in the
// old g's place, which is the division by x; for (x, y) = (x*v, r) the new
// v lands in x*v's place. The blocks are written out with constant
// offsets, which the compiler folds into the loads and stores (in a loop
// it computes every address into a register of its own); the tests of m
// depend on the step counter only.
func divstepBlocks(x, y *[768]int16, m int, ca, cah, cb, cbh, sw, q archsimd.Int16x16) {
	if m > 0 {
		divstepVec((*[16]int16)(x[0:16]), (*[16]int16)(y[0:16]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[16:32]), (*[16]int16)(y[16:32]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[32:48]), (*[16]int16)(y[32:48]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[48:64]), (*[16]int16)(y[48:64]), ca, cah, cb, cbh, sw, q)
	}
	if m > 64 {
		divstepVec((*[16]int16)(x[64:80]), (*[16]int16)(y[64:80]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[80:96]), (*[16]int16)(y[80:96]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[96:112]), (*[16]int16)(y[96:112]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[112:128]), (*[16]int16)(y[112:128]), ca, cah, cb, cbh, sw, q)
	}
	if m > 128 {
		divstepVec((*[16]int16)(x[128:144]), (*[16]int16)(y[128:144]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[144:160]), (*[16]int16)(y[144:160]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[160:176]), (*[16]int16)(y[160:176]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[176:192]), (*[16]int16)(y[176:192]), ca, cah, cb, cbh, sw, q)
	}
	if m > 192 {
		divstepVec((*[16]int16)(x[192:208]), (*[16]int16)(y[192:208]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[208:224]), (*[16]int16)(y[208:224]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[224:240]), (*[16]int16)(y[224:240]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[240:256]), (*[16]int16)(y[240:256]), ca, cah, cb, cbh, sw, q)
	}
	if m > 256 {
		divstepVec((*[16]int16)(x[256:272]), (*[16]int16)(y[256:272]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[272:288]), (*[16]int16)(y[272:288]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[288:304]), (*[16]int16)(y[288:304]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[304:320]), (*[16]int16)(y[304:320]), ca, cah, cb, cbh, sw, q)
	}
	if m > 320 {
		divstepVec((*[16]int16)(x[320:336]), (*[16]int16)(y[320:336]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[336:352]), (*[16]int16)(y[336:352]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[352:368]), (*[16]int16)(y[352:368]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[368:384]), (*[16]int16)(y[368:384]), ca, cah, cb, cbh, sw, q)
	}
	if m > 384 {
		divstepVec((*[16]int16)(x[384:400]), (*[16]int16)(y[384:400]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[400:416]), (*[16]int16)(y[400:416]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[416:432]), (*[16]int16)(y[416:432]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[432:448]), (*[16]int16)(y[432:448]), ca, cah, cb, cbh, sw, q)
	}
	if m > 448 {
		divstepVec((*[16]int16)(x[448:464]), (*[16]int16)(y[448:464]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[464:480]), (*[16]int16)(y[464:480]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[480:496]), (*[16]int16)(y[480:496]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[496:512]), (*[16]int16)(y[496:512]), ca, cah, cb, cbh, sw, q)
	}
	if m > 512 {
		divstepVec((*[16]int16)(x[512:528]), (*[16]int16)(y[512:528]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[528:544]), (*[16]int16)(y[528:544]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[544:560]), (*[16]int16)(y[544:560]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[560:576]), (*[16]int16)(y[560:576]), ca, cah, cb, cbh, sw, q)
	}
	if m > 576 {
		divstepVec((*[16]int16)(x[576:592]), (*[16]int16)(y[576:592]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[592:608]), (*[16]int16)(y[592:608]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[608:624]), (*[16]int16)(y[608:624]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[624:640]), (*[16]int16)(y[624:640]), ca, cah, cb, cbh, sw, q)
	}
	if m > 640 {
		divstepVec((*[16]int16)(x[640:656]), (*[16]int16)(y[640:656]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[656:672]), (*[16]int16)(y[656:672]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[672:688]), (*[16]int16)(y[672:688]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[688:704]), (*[16]int16)(y[688:704]), ca, cah, cb, cbh, sw, q)
	}
	if m > 704 {
		divstepVec((*[16]int16)(x[704:720]), (*[16]int16)(y[704:720]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[720:736]), (*[16]int16)(y[720:736]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[736:752]), (*[16]int16)(y[736:752]), ca, cah, cb, cbh, sw, q)
		divstepVec((*[16]int16)(x[752:768]), (*[16]int16)(y[752:768]), ca, cah, cb, cbh, sw, q)
	}
}

// divstepVec is divstepBlocks on 16 coefficients.
//
// The update a*y - b*x is the difference of the Shoup products
// mulShoup(y, a) - mulShoup(x, b), where mulShoup(x, c) = x*c -
// floor(x*ch/2^16)*q is congruent to x*c mod q and lies in [-q/4, 5q/4)
// for every int16 x (ch/2^16 is within 2^-17 of c/q, so the quotient
// estimate is within 2^15*2^-17 = 1/4 of x*c/q before the floor). The two
// quotient corrections are subtracted in one multiplication by q; with
// wrapping 16-bit arithmetic that gives the same int16 as the difference
// of the two products, since the result lies in (-1.5q, 1.5q) and fits.
func divstepVec(x, y *[16]int16, ca, cah, cb, cbh, sw, q archsimd.Int16x16) {
	X, Y := loadI16(x), loadI16(y)
	storeI16(Y.Mul(ca).Sub(X.Mul(cb)).Sub(Y.MulHigh(cah).Sub(X.MulHigh(cbh)).Mul(q)), y)
	storeI16(X.Xor(sw.And(X.Xor(Y))), x)
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
