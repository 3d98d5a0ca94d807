package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The twiddled radix-4 stages of the scalar FFT (difFrom and ditStage in
// ../fft.go) on complex128 values, two per YMM register (re0, im0, re1,
// im1): values j and j+1 of each quarter of a block go through the same
// operations as the scalar code performs on one value, in the same order
// (every sum, difference and product rounded once, as Go rounds them; no
// fused multiply-add), so the stages compute the same numbers.
//
// Complex products: with wr = (wr, wr) (VMOVDDUP) and wi = (wi, wi)
// (VPERMILPD), z*w = VADDSUBPD(z*wr, swap(z)*wi) = (zr*wr - zi*wi, zi*wr +
// zr*wi); z*conj(w) uses -wi (a sign flip, exact): (zr*wr + zi*wi, zi*wr -
// zr*wi).
//
// Constant time: the same floating-point additions, subtractions and
// multiplications of normal numbers and fixed lane shuffles for every
// input; the loops run over public sizes (n, span, q).

// fftSigns emits the constants: sign bits of the odd (imaginary) lanes,
// and of every lane.
func fftSigns() (odd, all Mem) {
	odd = vector("signOdd", func(l int) uint64 { return uint64(l&1) << 63 })
	return odd, broadcast("signAll", uint64(1<<63))
}

// twiddle loads two twiddles at m as (wr, wr), (wi, wi), negating wi if
// conj is set.
func twiddle(m Mem, conj bool, all VecVirtual) (VecVirtual, VecVirtual) {
	w, wr, wi := YMM(), YMM(), YMM()
	VMOVUPD(m, w)
	VMOVDDUP(w, wr)
	VPERMILPD(U8(0xF), w, wi)
	if conj {
		VXORPD(all, wi, wi)
	}
	return wr, wi
}

// cmul sets z = z*w for w given as (wr, wr), (wi, wi) (with wi negated:
// z*conj(w)).
func cmul(z, wr, wi Register) {
	t, u := YMM(), YMM()
	VMULPD(wr, z, t)         // zr*wr, zi*wr
	VPERMILPD(U8(0x5), z, u) // zi, zr
	VMULPD(wi, u, u)         // zi*wi, zr*wi
	VADDSUBPD(u, t, z)       // zr*wr - zi*wi, zi*wr + zr*wi
}

// cmulTwiddles multiplies each z[k] by the twiddle pair at w[k] plus the
// byte offset j (conjugated when conj is set, see twiddle).
func cmulTwiddles(z, w [3]Register, j Register, conj bool, all VecVirtual) {
	for k := range z {
		wr, wi := twiddle(Mem{Base: w[k], Index: j, Scale: 1}, conj, all)
		cmul(z[k], wr, wi)
	}
}

// fftStage generates dif4StageAVX2 (dit false) or dit4StageAVX2.
func fftStage(name string, dit bool, odd, all Mem) {
	stageOf := "difFrom"
	if dit {
		stageOf = "ditStage"
	}
	kernel(name, "func(x *complex128, n, q int, w1, w2, w3 *complex128)",
		name+" is the twiddled radix-4 stage of "+stageOf+" (fft.go) on the",
		"n values at x, blocks of span 4q (q even, n a multiple of 4q), with",
		"the twiddles w1, w2, w3 (q each). It returns at once unless n and q are positive.")
	args := loadArgs("x", "n", "q", "w1", "w2", "w3")
	x, n, q, w1, w2, w3 := args[0], args[1], args[2], args[3], args[4], args[5]
	skipUnlessPositive(name, n, q)
	oddv, allv := YMM(), YMM()
	VMOVUPD(odd, oddv)
	VMOVUPD(all, allv)

	// qb = 16q bytes (a quarter); the blocks end at x + 16n bytes.
	qb := GP64()
	MOVQ(q, qb)
	SHLQ(U8(4), qb)
	end := GP64()
	MOVQ(n, end)
	SHLQ(U8(4), end)
	ADDQ(x, end)

	Label(name + "_block")
	j, p := GP64(), GP64()
	XORQ(j, j)
	MOVQ(x, p)
	Label(name + "_pair")
	a, b, c, d := YMM(), YMM(), YMM(), YMM()
	VMOVUPD(Mem{Base: p}, a)
	VMOVUPD(Mem{Base: p, Index: qb, Scale: 1}, b)
	VMOVUPD(Mem{Base: p, Index: qb, Scale: 2}, c)
	t3 := GP64()
	LEAQ(Mem{Base: qb, Index: qb, Scale: 2}, t3)
	VMOVUPD(Mem{Base: p, Index: t3, Scale: 1}, d)
	if dit {
		cmulTwiddles([3]Register{b, c, d}, [3]Register{w1, w2, w3}, j, true, allv)
	}
	s0, d0, s1, d1 := YMM(), YMM(), YMM(), YMM()
	VADDPD(c, a, s0)
	VSUBPD(c, a, d0)
	VADDPD(d, b, s1)
	VSUBPD(d, b, d1)
	y0, y1, y2, y3 := YMM(), YMM(), YMM(), YMM()
	VADDPD(s1, s0, y0)
	VSUBPD(s1, s0, y2)
	sw := YMM()
	VPERMILPD(U8(0x5), d1, sw) // d1i, d1r
	// plus = (d0r + d1i, d0i - d1r), minus = (d0r - d1i, d0i + d1r)
	plus, minus := YMM(), YMM()
	VXORPD(oddv, sw, plus)
	VADDPD(plus, d0, plus)
	VADDSUBPD(sw, d0, minus)
	if dit {
		// y1 = d0 + i*d1 = minus, y3 = d0 - i*d1 = plus
		VMOVAPD(minus, y1)
		VMOVAPD(plus, y3)
	} else {
		// y1 = (d0 - i*d1)*w1 = plus*w1, y2 *= w2, y3 = (d0 + i*d1)*w3
		VMOVAPD(plus, y1)
		VMOVAPD(minus, y3)
		cmulTwiddles([3]Register{y1, y2, y3}, [3]Register{w1, w2, w3}, j, false, allv)
	}
	VMOVUPD(y0, Mem{Base: p})
	VMOVUPD(y1, Mem{Base: p, Index: qb, Scale: 1})
	VMOVUPD(y2, Mem{Base: p, Index: qb, Scale: 2})
	VMOVUPD(y3, Mem{Base: p, Index: t3, Scale: 1})
	ADDQ(U8(32), p)
	ADDQ(U8(32), j)
	CMPQ(j, qb)
	JNE(LabelRef(name + "_pair"))

	// Next block: x += 4 quarters.
	LEAQ(Mem{Base: x, Index: qb, Scale: 4}, x)
	CMPQ(x, end)
	JNE(LabelRef(name + "_block"))
	VZEROUPPER()
	RET()
	earlyReturn(name)
}
