package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The folds after a ring product (mulRounded, mulLift3, foldR3 and foldRq in
// ../rq.go) for coefficients 1..p-2, four at a time: v = c_i + c_(p+i) +
// c_(p+i-1) in int64 lanes (exact), converted to float64 exactly (|v| <
// 2^51: the bits of v added to those of 1.5*2^52, then 1.5*2^52
// subtracted), reduced with float64 arithmetic that is exact here:
//
//   - freezeQ(v) = v - q*round(v/q): v/q is never within 1/(2q) of a
//     half-integer (q is odd) and the product v*(1/q) is within 2^-25 of it
//     for |v| < 2^27, so the rounding (adding and subtracting 1.5*2^52)
//     picks the same integer; v - q*t is exact (integers below 2^53); the
//     result is the representative in [-q12, q12] that freezeQ returns;
//   - freeze3(r) = r - 3*round(r/3) in {-1, 0, 1} likewise (r/3 is k or
//     k ± 1/3);
//   - Round's digit floor((r + q12 + 1)/3) = round((r + q12)/3) (r + q12
//     is 3k, 3k+1 or 3k+2).
//
// The integers are converted back with VCVTPD2DQ (exact: they are
// integral). Coefficients 0 and p-1 have two terms only; the Go callers
// set them (and overwrite coefficient p-1, which the last group of four
// also writes). Constant time: the same instructions on every lane,
// fixed loop counts and addresses.

// freezer emits the float64 arithmetic above; its constants are those of
// one group of kernels.
type freezer struct {
	magic, qinv, qf, third, three, magicBits Mem
}

// magic is 1.5*2^52: adding and subtracting it rounds a float64 below
// 2^51 in magnitude to an integer, and adding its bits to an int64 lane
// and subtracting it converts the lane to float64.
const magic = 6755399441055744.0

// newFreezer emits the float64 constants under the names given: magic,
// 1/q, q, 1/3 and 3. The caller emits magic's bits with setBits, after
// the constants of its own (the order of the committed assembly).
func newFreezer(magicName, qinv, qf, third, three string) freezer {
	return freezer{
		magic: broadcastF64(magicName, magic),
		qinv:  broadcastF64(qinv, 1.0/q),
		qf:    broadcastF64(qf, q),
		third: broadcastF64(third, 1.0/3),
		three: broadcastF64(three, 3),
	}
}

// setBits emits magic's bits as the int64 vector name.
func (f *freezer) setBits(name string) {
	f.magicBits = broadcast(name, math.Float64bits(magic))
}

// toFloat converts the int64 lanes of v (|v| < 2^51) to float64, exactly.
func (f *freezer) toFloat(v VecVirtual) {
	VPADDQ(f.magicBits, v, v)
	VSUBPD(f.magic, v, v)
}

// round rounds the lanes of v to integers.
func (f *freezer) round(v VecVirtual) {
	VADDPD(f.magic, v, v)
	VSUBPD(f.magic, v, v)
}

// freezeQ sets v = v - q*round(v/q) (scratch t).
func (f *freezer) freezeQ(v, t VecVirtual) {
	VMULPD(f.qinv, v, t)
	f.round(t)
	VMULPD(f.qf, t, t)
	VSUBPD(t, v, v)
}

// freeze3 sets v = v - 3*round(v/3) (scratch t).
func (f *freezer) freeze3(v, t VecVirtual) {
	VMULPD(f.third, v, t)
	f.round(t)
	VMULPD(f.three, t, t)
	VSUBPD(t, v, v)
}

// foldKernels generates foldRoundAVX2, foldLift3AVX2, foldR3AVX2 and
// foldRqAVX2.
func foldKernels() {
	f := newFreezer("foldMagic", "qInv", "qF", "third", "three")
	q12f := broadcastF64("q12F", q12)
	f.setBits("foldMagicBits")

	type kind struct {
		name, sig, doc string
		out            int // bytes per output coefficient
	}
	for _, k := range []kind{
		{"foldRoundAVX2", "func(R *[761]uint32, c *[1536]int64)", "Round's digits of freezeQ(v) (mulRounded)", 4},
		{"foldLift3AVX2", "func(e *[761]int8, c *[1536]int64)", "freeze3(freezeQ(3v)) (mulLift3)", 1},
		{"foldR3AVX2", "func(e *[761]int8, c *[1536]int64)", "freeze3(v) (foldR3)", 1},
		{"foldRqAVX2", "func(out *[761]int16, c *[1536]int64)", "freezeQ(v) (foldRq)", 2},
	} {
		kernel(k.name, k.sig, k.name+" sets coefficients 1..p-1 of its output to "+k.doc+" for",
			"v = c_i + c_(p+i) + c_(p+i-1); coefficient p-1 is the caller's to",
			"overwrite.")
		var out Register
		if k.out == 4 {
			out = Load(Param("R"), GP64())
		} else if k.out == 2 {
			out = Load(Param("out"), GP64())
		} else {
			out = Load(Param("e"), GP64())
		}
		c := Load(Param("c"), GP64())
		ADDQ(U8(8), c)              // c_1
		ADDQ(U8(uint8(k.out)), out) // coefficient 1
		n := GP64()
		MOVQ(U32(190), n) // coefficients 1..760
		Label(k.name + "_loop")
		v, t := YMM(), YMM()
		VMOVDQU(Mem{Base: c}, v)
		VPADDQ(Mem{Base: c, Disp: 8 * p}, v, v)
		VPADDQ(Mem{Base: c, Disp: 8 * (p - 1)}, v, v)
		if k.name == "foldLift3AVX2" {
			VPADDQ(v, v, t)
			VPADDQ(t, v, v) // 3v
		}
		f.toFloat(v)
		if k.name != "foldR3AVX2" {
			f.freezeQ(v, t)
		}
		switch k.name {
		case "foldRqAVX2":
		case "foldRoundAVX2":
			VADDPD(q12f, v, v)
			VMULPD(f.third, v, v)
			f.round(v)
		default:
			f.freeze3(v, t)
		}
		x := XMM()
		VCVTPD2DQY(v, x)
		if k.out == 4 {
			VMOVDQU(x, Mem{Base: out})
		} else if k.out == 2 {
			VPACKSSDW(x, x, x)
			VMOVQ(x, Mem{Base: out})
		} else {
			VPACKSSDW(x, x, x)
			VPACKSSWB(x, x, x)
			VMOVD(x, Mem{Base: out})
		}
		ADDQ(U8(32), c)
		ADDQ(U8(uint8(4*k.out)), out)
		DECQ(n)
		JNZ(LabelRef(k.name + "_loop"))
		VZEROUPPER()
		RET()
	}
}

// foldSplitKernels generates foldSplit1AVX2 and foldSplit3AVX2, the split
// of mulSplit (foldSplit in ../rq.go) for coefficients 1..p-2, four at a
// time: v = c_i + c_(p+i) + c_(p+i-1) in int64 lanes (exact); the centered
// residue l = ((v + 2^23) & (2^24 - 1)) - 2^23 with integer instructions;
// l and v converted to float64 exactly (as in foldKernels: |v| < 2^51);
// h = (v - l)*2^-24, exact (v - l is a multiple of 2^24 below 2^51); then
// rq = freezeQ(k*l) (|k*l| < 3*2^23 < 2^27, the bound foldKernels' freezeQ
// needs) and r3 = freeze3(h) (|h| < 2^27 for |v| < 2^51) in float64 as
// there, converted back with VCVTPD2DQ and packed to int16 and int8. The
// same constant-time argument as foldKernels: the same instructions on
// every lane, fixed loop count and addresses.
func foldSplitKernels() {
	f := newFreezer("splitMagic", "splitQInv", "splitQF", "splitThird", "splitThree")
	scale := broadcastF64("splitScale", 1.0/(1<<24))
	f.setBits("splitMagicBits")
	half := broadcast[uint64]("splitHalf", 1<<23)
	mask := broadcast[uint64]("splitMask", 1<<24-1)
	for _, k := range []int{1, 3} {
		name := "foldSplit" + string(rune('0'+k)) + "AVX2"
		kernel(name, "func(rq *[761]int16, r3 *[761]int8, c *[1536]int64)",
			name+" is foldSplit (mulSplit) with k = "+string(rune('0'+k))+" for coefficients 1..p-1:",
			"rq_i = freezeQ(k*l), r3_i = freeze3((v-l)/2^24) for the centered",
			"residue l of v = c_i + c_(p+i) + c_(p+i-1) modulo 2^24; coefficient",
			"p-1 is the caller's to overwrite.")
		rq := Load(Param("rq"), GP64())
		r3 := Load(Param("r3"), GP64())
		c := Load(Param("c"), GP64())
		ADDQ(U8(8), c)  // c_1
		ADDQ(U8(2), rq) // coefficient 1
		ADDQ(U8(1), r3)
		n := GP64()
		MOVQ(U32(190), n) // coefficients 1..760
		Label(name + "_loop")
		v, l, t := YMM(), YMM(), YMM()
		VMOVDQU(Mem{Base: c}, v)
		VPADDQ(Mem{Base: c, Disp: 8 * p}, v, v)
		VPADDQ(Mem{Base: c, Disp: 8 * (p - 1)}, v, v)
		// centered residue modulo 2^24
		VPADDQ(half, v, l)
		VPAND(mask, l, l)
		VPSUBQ(half, l, l)
		// both to float64, exactly
		f.toFloat(v)
		f.toFloat(l)
		// h = (v - l)/2^24, freeze3(h)
		VSUBPD(l, v, v)
		VMULPD(scale, v, v)
		f.freeze3(v, t)
		// freezeQ(k*l)
		if k == 3 {
			VADDPD(l, l, t)
			VADDPD(t, l, l)
		}
		f.freezeQ(l, t)
		x, y := XMM(), XMM()
		VCVTPD2DQY(l, x)
		VPACKSSDW(x, x, x)
		VMOVQ(x, Mem{Base: rq})
		VCVTPD2DQY(v, y)
		VPACKSSDW(y, y, y)
		VPACKSSWB(y, y, y)
		VMOVD(y, Mem{Base: r3})
		ADDQ(U8(32), c)
		ADDQ(U8(8), rq)
		ADDQ(U8(4), r3)
		DECQ(n)
		JNZ(LabelRef(name + "_loop"))
		VZEROUPPER()
		RET()
	}
}

// splitSpectrumKernels generates scaleSplitAVX2 and addSplitAVX2, the
// spectrum arithmetic of batch key generation (scaleSplit and addSplit in
// ../rq.go): x = 2^24*x and z = a + 2^24*b on the 1536 float64 values of a
// spectrum, four at a time. Multiplying by 2^24 is exact, so each value is
// rounded at most once, by the addition, as in the scalar code. Constant
// time: the same instructions on every value, fixed loop count and
// addresses.
func splitSpectrumKernels() {
	scale := broadcastF64("splitTwo24", 1<<24)
	kernel("scaleSplitAVX2", "func(x *[768]complex128)",
		"scaleSplitAVX2 multiplies every value of x by 2^24 (scaleSplit).")
	x := Load(Param("x"), GP64())
	k := YMM()
	VMOVUPD(scale, k)
	n := GP64()
	MOVQ(U32(192), n) // 1536 values, eight per iteration
	Label("scaleSplit_loop")
	for u := 0; u < 2; u++ {
		v := YMM()
		VMULPD(Mem{Base: x, Disp: 32 * u}, k, v)
		VMOVUPD(v, Mem{Base: x, Disp: 32 * u})
	}
	ADDQ(U8(64), x)
	DECQ(n)
	JNZ(LabelRef("scaleSplit_loop"))
	VZEROUPPER()
	RET()

	kernel("addSplitAVX2", "func(z, a, b *[768]complex128)",
		"addSplitAVX2 sets z = a + 2^24*b (addSplit).")
	regs := loadArgs("z", "a", "b")
	z, a, b := regs[0], regs[1], regs[2]
	k = YMM()
	VMOVUPD(scale, k)
	n = GP64()
	MOVQ(U32(192), n)
	Label("addSplit_loop")
	for u := 0; u < 2; u++ {
		v := YMM()
		VMULPD(Mem{Base: b, Disp: 32 * u}, k, v)
		VADDPD(Mem{Base: a, Disp: 32 * u}, v, v)
		VMOVUPD(v, Mem{Base: z, Disp: 32 * u})
	}
	ADDQ(U8(64), z)
	ADDQ(U8(64), a)
	ADDQ(U8(64), b)
	DECQ(n)
	JNZ(LabelRef("addSplit_loop"))
	VZEROUPPER()
	RET()
}
