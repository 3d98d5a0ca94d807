//go:build goexperiment.simd && amd64

package core

import "simd/archsimd"

// Inversion in R/3 with 8-bit lanes: the 2p-1 divsteps of ../ref.R3Recip
// on 32 coefficients per instruction, with the layout of recipRqSIMD (g_k
// at gs[k:], v_k at vs[steps-k:], in-place updates, block counts that depend
// on the step alone). Coefficients are exactly -1, 0 or 1 after every step.
//
// Constant time: every lane and every input sees the same loads, sign
// products, table lookups (a shuffle whose indices are lane values, not
// memory addresses), masks and stores; only the public step counter
// chooses how many blocks are processed.

// r3RecipSIMD is r3Recip on the vector path: out = 1/a in R/3 and 0, or
// -1 if a is not invertible.
func r3RecipSIMD(out *[P]int8, a *[P]int8) int32 {
	const (
		steps = 2*P - 1
		n     = 24 * 32 // P+1 coefficients rounded up to whole blocks
	)
	var f, r [n]int8
	var gs, vs [steps + n]int8
	f[0], f[P-1], f[P] = 1, -1, -1
	for i := range P {
		gs[P-1-i] = a[i]
	}
	r[0] = 1
	// mod3[t+2] = t mod 3 in {-1, 0, 1} for t in [-2, 2], in both halves.
	mod3 := loadI8(&[32]int8{
		1, -1, 0, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, -1, 0, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	})
	two := archsimd.BroadcastInt8x32(2)
	delta := int32(1)
	for k := range steps {
		// Coefficients of f, g that matter and of v, r that can be
		// nonzero (see recipRqSIMD), rounded up to groups of four blocks.
		nfg := (min(steps-k, P+1) + 127) &^ 127
		nvr := (min(k+2, P+1) + 127) &^ 127
		g := (*[n]int8)(gs[k : k+n])
		v := (*[n]int8)(vs[steps-k-1 : steps-k-1+n]) // x*v_k, overwritten by v_(k+1)

		f0, g0 := int32(f[0]), int32(g[0])
		swap := negMask(-delta) & nzMask(g0)
		delta ^= swap & (delta ^ -delta)
		delta++
		// new g = s*(f0*g - g0*f)/x, new f = g or f (s = -1 on a swap);
		// likewise for r and x*v, as in recipRqSIMD.
		ca := archsimd.BroadcastInt8x32(int8((f0 ^ swap) - swap))
		cb := archsimd.BroadcastInt8x32(int8((g0 ^ swap) - swap))
		sw := archsimd.BroadcastInt8x32(int8(swap))
		divstepBlocks3(&f, g, nfg, ca, cb, sw, mod3, two)
		divstepBlocks3(v, &r, nvr, ca, cb, sw, mod3, two)
	}
	clearUpper()

	// out = v/f0 = f0*v (f0 = ±1), reversed; v_(2p-1) is at vs[0:].
	f0 := f[0]
	for i := range P {
		out[i] = f0 * vs[P-1-i]
	}
	clear(f[:])
	clear(r[:])
	clear(gs[:])
	clear(vs[:])
	return nzMask(delta)
}

// divstepBlocks3 is divstepBlocks for R/3, on the first m coefficients
// (m a multiple of 128, at most 768): y <- a*y - b*x reduced mod 3,
// x <- y or x by sw. a*y is mulSign8(y, a) for a in {-1, 0, 1}; the
// difference, in [-2, 2], is reduced by a lookup in mod3.
func divstepBlocks3(x, y *[768]int8, m int, ca, cb, sw, mod3, two archsimd.Int8x32) {
	for j := range min(m/128, 768/128) {
		xb := (*[128]int8)(x[j*128 : j*128+128])
		yb := (*[128]int8)(y[j*128 : j*128+128])
		x0, y0 := (*[32]int8)(xb[0:32]), (*[32]int8)(yb[0:32])
		x1, y1 := (*[32]int8)(xb[32:64]), (*[32]int8)(yb[32:64])
		x2, y2 := (*[32]int8)(xb[64:96]), (*[32]int8)(yb[64:96])
		x3, y3 := (*[32]int8)(xb[96:128]), (*[32]int8)(yb[96:128])
		X0, Y0 := loadI8(x0), loadI8(y0)
		storeI8(mod3.PermuteOrZeroGrouped(mulSign8(Y0, ca).Sub(mulSign8(X0, cb)).Add(two)), y0)
		storeI8(X0.Xor(sw.And(X0.Xor(Y0))), x0)
		X1, Y1 := loadI8(x1), loadI8(y1)
		storeI8(mod3.PermuteOrZeroGrouped(mulSign8(Y1, ca).Sub(mulSign8(X1, cb)).Add(two)), y1)
		storeI8(X1.Xor(sw.And(X1.Xor(Y1))), x1)
		X2, Y2 := loadI8(x2), loadI8(y2)
		storeI8(mod3.PermuteOrZeroGrouped(mulSign8(Y2, ca).Sub(mulSign8(X2, cb)).Add(two)), y2)
		storeI8(X2.Xor(sw.And(X2.Xor(Y2))), x2)
		X3, Y3 := loadI8(x3), loadI8(y3)
		storeI8(mod3.PermuteOrZeroGrouped(mulSign8(Y3, ca).Sub(mulSign8(X3, cb)).Add(two)), y3)
		storeI8(X3.Xor(sw.And(X3.Xor(Y3))), x3)
	}
}
