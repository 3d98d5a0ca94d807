package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The radix-16 passes of the scalar FFT (dif16, dit16Products in
// ../fft16.go) on two blocks of 16 values at once: register lanes 0-1 hold
// value i of block A (re, im), lanes 2-3 value i of block B, so every lane
// pair performs exactly the scalar code's operations on one value, in its
// order (the constant multiplications written out as fft16.go writes
// them; negations and swaps are exact), and the passes compute the same
// numbers. Constant time as the other FFT kernels: the same operations on
// every input, loops over public sizes.

// Constants: 4-lane broadcasts of fft16.go's twiddle parts and sign masks.
type fft16Consts struct {
	cos1, sin1, ncos1, nsin1, rt2h Mem
	signOdd, signAll, signEven     Mem
}

func fft16Data(signOdd, signAll Mem) fft16Consts {
	const (
		cos1 = 0.92387953251128675612818318939678828682241662586364
		sin1 = 0.38268343236508977172845998403039886676134456248563
		rt2h = 0.70710678118654752440084436210484903928483593768847
	)
	even := vector("signEven", func(l int) uint64 { return uint64(1-l&1) << 63 })
	return fft16Consts{
		cos1: broadcastF64("cos1", cos1), sin1: broadcastF64("sin1", sin1),
		ncos1: broadcastF64("ncos1", -cos1), nsin1: broadcastF64("nsin1", -sin1),
		rt2h: broadcastF64("rt2h", rt2h), signOdd: signOdd, signAll: signAll, signEven: even,
	}
}

// swapRI returns (im, re) of each value of z.
func swapRI(z Register) VecVirtual {
	s := YMM()
	VPERMILPD(U8(0x5), z, s)
	return s
}

// mulAB sets z = (x*a + y*b, y*a - x*b) for z = (x, y), given a and -b
// (fft16.go's mulW1, mulW3, mulW1c, mulW3c).
func mulAB(z Register, a, nb Mem) {
	t := YMM()
	VMULPD(a, z, t)
	s := swapRI(z)
	VMULPD(nb, s, s)
	VADDSUBPD(s, t, z) // x*a - y*(-b), y*a + x*(-b)
}

// mulW2 is fft16.go's mulW2: ((x+y)*rt2h, (y-x)*rt2h).
func (k *fft16Consts) mulW2(z Register) {
	s := swapRI(z)
	VXORPD(k.signAll, s, s) // -y, -x
	VADDSUBPD(s, z, z)      // x - (-y), y + (-x)
	VMULPD(k.rt2h, z, z)
}

// mulW2c: ((x-y)*rt2h, (x+y)*rt2h).
func (k *fft16Consts) mulW2c(z Register) {
	s := swapRI(z)
	VADDSUBPD(s, z, z) // x - y, y + x
	VMULPD(k.rt2h, z, z)
}

// mulW6: ((y-x)*rt2h, -(x+y)*rt2h).
func (k *fft16Consts) mulW6(z Register) {
	s := swapRI(z)
	VADDSUBPD(z, s, z) // y - x, x + y
	VXORPD(k.signOdd, z, z)
	VMULPD(k.rt2h, z, z)
}

// mulW6c: (-(x+y)*rt2h, (x-y)*rt2h).
func (k *fft16Consts) mulW6c(z Register) {
	s := swapRI(z)
	VADDSUBPD(s, z, z) // x - y, y + x
	t := swapRI(z)     // y + x, x - y
	VXORPD(k.signEven, t, z)
	VMULPD(k.rt2h, z, z)
}

// negI sets z = complex(imag(z), -real(z)) = -i*z; posI = complex(-imag,
// real) = i*z.
func (k *fft16Consts) negI(z Register) {
	s := swapRI(z)
	VXORPD(k.signOdd, s, z)
}

func (k *fft16Consts) posI(z Register) {
	s := swapRI(z)
	VXORPD(k.signEven, s, z)
}

// butterfly4 is dif4 (dit false) or dit4 of fft16.go on registers, in
// place: s0 = a+c, d0 = a-c, s1 = b+d, d1 = b-d, m = -i*d1; outputs s0+s1,
// d0+m (dit: d0-m), s0-s1, d0-m (dit: d0+m).
func (k *fft16Consts) butterfly4(a, b, c, d Register, dit bool) {
	s0, d0, s1, d1 := YMM(), YMM(), YMM(), YMM()
	VADDPD(c, a, s0)
	VSUBPD(c, a, d0)
	VADDPD(d, b, s1)
	VSUBPD(d, b, d1)
	k.negI(d1) // m
	VADDPD(s1, s0, a)
	VSUBPD(s1, s0, c)
	if dit {
		VSUBPD(d1, d0, b)
		VADDPD(d1, d0, d)
	} else {
		VADDPD(d1, d0, b)
		VSUBPD(d1, d0, d)
	}
}

// columns16 emits the span-16 stage of the radix-16 pass on the two
// blocks at p, column j = 0..3 (values j, j+4, j+8, j+12) at a time: the
// radix-4 butterfly then the twiddles (dif16), or for dit (dit16Columns)
// the conjugate twiddles then the inverse butterfly.
func (k *fft16Consts) columns16(p Register, dit bool) {
	for j := 0; j < 4; j++ {
		a, b, c, d := loadPair(p, j), loadPair(p, j+4), loadPair(p, j+8), loadPair(p, j+12)
		if dit {
			k.twiddleColumn(j, b, c, d, true)
			k.butterfly4(a, b, c, d, true)
		} else {
			k.butterfly4(a, b, c, d, false)
			k.twiddleColumn(j, b, c, d, false)
		}
		storePair(a, p, j)
		storePair(b, p, j+4)
		storePair(c, p, j+8)
		storePair(d, p, j+12)
	}
}

// twiddleColumn multiplies b, c, d of column j of the radix-16 pass by
// the twiddles w^j, w^2j, w^3j (w = e^(-2*pi*i/16)), or by their
// conjugates when conj is set (the inverse pass): mulW1/mulW3 as products
// with (cos1, -sin1)/(sin1, -cos1) (or (cos1, sin1)/(sin1, cos1)), and
// w^9 = -w^1.
func (k *fft16Consts) twiddleColumn(j int, b, c, d Register, conj bool) {
	nsin1, ncos1 := k.nsin1, k.ncos1
	mulW2, mulW6, mulI := k.mulW2, k.mulW6, k.negI
	if conj {
		nsin1, ncos1 = k.sin1, k.cos1
		mulW2, mulW6, mulI = k.mulW2c, k.mulW6c, k.posI
	}
	switch j {
	case 1:
		mulAB(b, k.cos1, nsin1) // mulW1
		mulW2(c)
		mulAB(d, k.sin1, ncos1) // mulW3
	case 2:
		mulW2(b)
		mulI(c)
		mulW6(d)
	case 3:
		mulAB(b, k.sin1, ncos1) // mulW3
		mulW6(c)
		mulAB(d, k.cos1, nsin1) // -mulW1
		VXORPD(k.signAll, d, d)
	}
}

// loadPair loads value i of block A (at p) and of block B (p + 256);
// storePair stores them back.
func loadPair(p Register, i int) VecVirtual {
	v := YMM()
	VBROADCASTF128(Mem{Base: p, Disp: 16 * i}, v) // defines all of v
	VINSERTF128(U8(1), Mem{Base: p, Disp: 256 + 16*i}, v, v)
	return v
}

func storePair(v VecVirtual, p Register, i int) {
	VMOVUPD(v.AsX(), Mem{Base: p, Disp: 16 * i})
	VEXTRACTF128(U8(1), v, Mem{Base: p, Disp: 256 + 16*i})
}

// dif16Kernel generates dif16AVX2.
func dif16Kernel(k *fft16Consts) {
	kernel("dif16AVX2", "func(x *complex128, pairs int)",
		"dif16AVX2 is dif16 (fft16.go) on 2*pairs blocks of 16 values at x",
		"(none unless pairs is positive).")
	p := Load(Param("x"), GP64())
	n := Load(Param("pairs"), GP64())
	skipUnlessPositive("dif16", n)
	Label("dif16_loop")
	// Stage of span 16, column by column.
	k.columns16(p, false)
	// Stage of span 4, group by group.
	for g := 0; g < 4; g++ {
		a, b, c, d := loadPair(p, 4*g), loadPair(p, 4*g+1), loadPair(p, 4*g+2), loadPair(p, 4*g+3)
		k.butterfly4(a, b, c, d, false)
		storePair(a, p, 4*g)
		storePair(b, p, 4*g+1)
		storePair(c, p, 4*g+2)
		storePair(d, p, 4*g+3)
	}
	ADDQ(U32(512), p)
	DECQ(n)
	JNZ(LabelRef("dif16_loop"))
	VZEROUPPER()
	RET()
	earlyReturn("dif16")
}

// dit16ProductsKernel generates dit16ProductsAVX2: the pointwise products
// z = a*b (+ c*d when sum is set: Go's complex products, then the complex
// sum) formed as the first stage reads them, then dit16Columns.
func dit16ProductsKernel(k *fft16Consts, sum bool) {
	name := "dit16ProductsAVX2"
	sig := "func(z, a, b *complex128, pairs int)"
	cd := "c and d nil: z = a*b,"
	if sum {
		name = "dit16ProductSumsAVX2"
		sig = "func(z, a, b, c, d *complex128, pairs int)"
		cd = "c and d: z = a*b + c*d,"
	}
	kernel(name, sig, name+" is dit16Products (fft16.go) with "+cd,
		"then the inverse radix-16 pass, on 2*pairs blocks of 16 values (none unless",
		"pairs is positive).")
	args := loadArgs("z", "a", "b")
	z, pa, pb := args[0], args[1], args[2]
	var pc, pd Register
	if sum {
		pc = Load(Param("c"), GP64())
		pd = Load(Param("d"), GP64())
	}
	n := Load(Param("pairs"), GP64())
	skipUnlessPositive(name, n)
	Label(name + "_loop")
	// First stage: dit4 on each group of 4 of the products.
	for g := 0; g < 4; g++ {
		var v [4]VecVirtual
		for t := 0; t < 4; t++ {
			i := 4*g + t
			v[t] = loadPair(pa, i)
			w := loadPair(pb, i)
			cmulFull(v[t], w)
			if sum {
				u := loadPair(pc, i)
				e := loadPair(pd, i)
				cmulFull(u, e)
				VADDPD(u, v[t], v[t])
			}
		}
		k.butterfly4(v[0], v[1], v[2], v[3], true)
		for t := 0; t < 4; t++ {
			storePair(v[t], z, 4*g+t)
		}
	}
	// dit16Columns.
	k.columns16(z, true)
	for _, r := range []Register{z, pa, pb, pc, pd} {
		if r != nil {
			ADDQ(U32(512), r)
		}
	}
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	VZEROUPPER()
	RET()
	earlyReturn(name)
}

// cmulFull sets v = v*w as Go multiplies complex128 values: (vr*wr -
// vi*wi, vr*wi + vi*wr).
func cmulFull(v, w Register) {
	wr, wi := YMM(), YMM()
	VMOVDDUP(w, wr)
	VPERMILPD(U8(0xF), w, wi)
	cmul(v, wr, wi)
}
