package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The radix-3 ends of the 768-point transform (twistRadix3 in ../rq.go and
// lastInverse768 in ../fft.go) on two values j, j+1 per register, the
// scalar code's operations in its order (products by the real constants
// 0.5 and sqrt(3)/2 taken lane by lane: the scalar complex products by
// them differ at most in the sign of a zero product, never in a value;
// roundInt's 1.5*2^52 addition and subtraction of bit patterns exactly as
// written). Constant time as the other FFT kernels.

const sqrt3h = 0.86602540378443864676372317075293618347140262690519

// loadPairOf loads the complex128 values at m1 and m2 into one register.
func loadPairOf(m1, m2 Mem) VecVirtual {
	v := YMM()
	VBROADCASTF128(m1, v)
	VINSERTF128(U8(1), m2, v, v)
	return v
}

// radix3Kernels generates twistRadix3AVX2 and lastInverse768AVX2.
func radix3Kernels(k *fft16Consts) {
	half := broadcastF64("half", 0.5)
	s3 := broadcastF64("sqrt3h", sqrt3h)
	magic := broadcastF64("roundMagic", 6755399441055744.0)

	for _, in := range []struct {
		name, typ string
		size      int
	}{{"twistRadix3I8AVX2", "int8", 1}, {"twistRadix3I16AVX2", "int16", 2}} {
		twistRadix3Kernel(k, in.name, in.typ, in.size, half, s3)
	}

	// lastInverse768AVX2: the radix-3 DIT butterfly with conjugated
	// twiddles, the untwist and the rounding (lastStep, lastInverse768).
	kernel("lastInverse768AVX2", "func(c *[1536]int64, x *[768]complex128, k *[256][5]complex128)",
		"lastInverse768AVX2 is lastInverse768 (fft.go): c from x with the",
		"constants k (plan768.last: w1, w2, u0, u1, u2 per step).")
	args := loadArgs("c", "x", "k")
	c, x, kp := args[0], args[1], args[2]
	j := GP64()
	XORQ(j, j)
	jc := GP64() // byte offset of c[j]
	XORQ(jc, jc)
	kk := GP64() // byte offset of k[j]
	XORQ(kk, kk)
	Label("last_loop")
	kc := func(field int) VecVirtual { // field of k[j] and k[j+1]
		return loadPairOf(Mem{Base: kp, Index: kk, Scale: 1, Disp: 16 * field},
			Mem{Base: kp, Index: kk, Scale: 1, Disp: 80 + 16*field})
	}
	av, bv, dv := YMM(), YMM(), YMM()
	VMOVUPD(Mem{Base: x, Index: j, Scale: 1}, av)
	VMOVUPD(Mem{Base: x, Index: j, Scale: 1, Disp: 16 * 256}, bv)
	VMOVUPD(Mem{Base: x, Index: j, Scale: 1, Disp: 16 * 512}, dv)
	cmulFull(bv, kc(0)) // b *= k.w1
	cmulFull(dv, kc(1)) // d *= k.w2
	sum, dif := YMM(), YMM()
	VADDPD(dv, bv, sum)
	VSUBPD(dv, bv, dif)
	t := YMM()
	VMULPD(half, sum, t)
	VSUBPD(t, av, t) // t = a - sum*0.5
	u := swapRI(dif)
	VMULPD(s3, u, u)
	VXORPD(k.signEven, u, u) // u = (-imag(dif)*s, real(dif)*s)
	v0, v1, v2 := YMM(), YMM(), YMM()
	VADDPD(sum, av, v0)
	VADDPD(u, t, v1)
	VSUBPD(u, t, v2)
	for i, v := range []VecVirtual{v0, v1, v2} {
		cmulFull(v, kc(2+i))
		// roundInt on every lane, then (re_j, re_j+1) to c[j+256i],
		// (im_j, im_j+1) to c[768+j+256i].
		VADDPD(magic, v, v)
		VPSUBQ(magic, v, v)
		VPERMQ(U8(0xD8), v, v)
		VMOVDQU(v.AsX(), Mem{Base: c, Index: jc, Scale: 1, Disp: 8 * 256 * i})
		VEXTRACTI128(U8(1), v, Mem{Base: c, Index: jc, Scale: 1, Disp: 8 * (768 + 256*i)})
	}
	ADDQ(U8(32), j)
	ADDQ(U8(16), jc)
	ADDQ(U8(160), kk)
	CMPQ(j, U32(16*256))
	JNE(LabelRef("last_loop"))
	VZEROUPPER()
	RET()
}

// butterfly3 is butterfly3 of ../fft.go before its twiddles, in place:
// sum = b+c, dif = b-c, t = a - sum*0.5, u = (imag(dif)*s, -real(dif)*s);
// a = a + sum, b = t + u, c = t - u.
func butterfly3(k *fft16Consts, a, b, c Register, half, s3 Mem) {
	sum, dif := YMM(), YMM()
	VADDPD(c, b, sum)
	VSUBPD(c, b, dif)
	t := YMM()
	VMULPD(half, sum, t)
	VSUBPD(t, a, t)
	u := swapRI(dif)
	VMULPD(s3, u, u)
	VXORPD(k.signOdd, u, u)
	VADDPD(sum, a, a)
	VADDPD(u, t, b)
	VSUBPD(u, t, c)
}

// twistRadix3Kernel generates twistRadix3I8AVX2 or twistRadix3I16AVX2:
// x[j], x[j+256], x[j+512] = butterfly3(a_j*t_j, a_(j+256)*t_(j+256),
// a_(j+512)*t_(j+512), w1[j], w2[j]) for integer coefficients a of the
// given size in bytes (converted exactly: VPMOVSX, VCVTDQ2PD).
func twistRadix3Kernel(k *fft16Consts, name, typ string, size int, half, s3 Mem) {
	kernel(name, "func(x *[768]complex128, a *[776]"+typ+", tw *[768]complex128, w1, w2 *[256]complex128)",
		name+" is twistRadix3 (rq.go) for plan768 on the coefficients a",
		"(zero past the input), with the twist factors tw and the radix-3",
		"twiddles w1, w2.")
	args := loadArgs("x", "a", "tw", "w1", "w2")
	x, a, tw, w1, w2 := args[0], args[1], args[2], args[3], args[4]
	j := GP64() // byte offset of value j in a complex128 array
	XORQ(j, j)
	ja := GP64() // byte offset of a[j]
	XORQ(ja, ja)
	Label(name + "_loop")
	var v [3]VecVirtual
	for t := 0; t < 3; t++ {
		// a_j, a_(j+1) as float64, then (a_j, a_j, a_j+1, a_j+1).
		w, av := XMM(), YMM()
		m := Mem{Base: a, Index: ja, Scale: 1, Disp: size * 256 * t}
		if size == 1 {
			VPMOVSXBD(m, w) // 4 bytes (2 used)
		} else {
			VPMOVSXWD(m, w) // 4 int16 (2 used)
		}
		VCVTDQ2PD(w, av)
		VPERMPD(U8(0x50), av, av)
		v[t] = YMM()
		VMULPD(Mem{Base: tw, Index: j, Scale: 1, Disp: 16 * 256 * t}, av, v[t])
	}
	butterfly3(k, v[0], v[1], v[2], half, s3)
	for t, w := range []Register{nil, w1, w2} {
		if w != nil {
			wv := YMM()
			VMOVUPD(Mem{Base: w, Index: j, Scale: 1}, wv)
			cmulFull(v[t], wv)
		}
		VMOVUPD(v[t], Mem{Base: x, Index: j, Scale: 1, Disp: 16 * 256 * t})
	}
	ADDQ(U8(32), j)
	ADDQ(U8(2*size), ja)
	CMPQ(j, U32(16*256))
	JNE(LabelRef(name + "_loop"))
	VZEROUPPER()
	RET()
}
