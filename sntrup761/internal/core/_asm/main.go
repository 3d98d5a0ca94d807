// Command _asm generates the AVX2 kernels of package core
// (../avx2_amd64.s) and their Go declarations (../avx2_amd64.go)
// with avo, the way the Go standard library generates its assembly. The
// //go:generate line in ../params.go runs it:
//
//	go generate ./sntrup761/internal/core
//
// The generated files are committed; .ci/run regenerates them and fails
// if they differ. This directory is a module of its own so that the main
// module does not depend on avo.
//
// Each kernel computes exactly what a piece of the scalar code of package
// core computes (the Go glue in ../asm_amd64.go says which); the tests in
// ../asm_amd64_test.go compare them on random inputs.
//
// Constant time. The kernels work on values that are secret (coefficients
// of private keys, of the inverses being computed, of plaintexts). In
// every kernel below:
//   - no branch depends on a secret: the only branches are loop counters
//     that come from public sizes (the number of blocks, fixed by the step
//     counter of the caller, not by any coefficient) and the return at
//     entry of a kernel given no blocks (skipUnlessPositive);
//   - no memory address depends on a secret: every load and store is at a
//     pointer argument plus a constant or plus a public loop offset;
//   - the instructions used (VPADDW, VPSUBW, VPMULLW, VPMULHW, VPAND,
//     VPANDN, VPOR, VPXOR, shifts by constants, VPERM2I128, VPALIGNR,
//     VPBROADCASTW/Q, VPMINUD/VPMAXUD, VPBLENDD) take a time that does not
//     depend on their operands on the x86 cores we know of; decisions
//     (swap or not) are applied as all-ones/all-zeros masks.
package main

import (
	"math"
	"unsafe"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// q is sntrup761's modulus.
const q = 4591 // sntrup761's modulus

func main() {
	ConstraintExpr("!purego")
	q16 := GLOBL("q16", RODATA|NOPTR)
	DATA(0, U16(q))

	recipRqSteps(q16)
	r3Step()
	sortKeys(laneReverseData())
	odd, all := fftSigns()
	fftStage("dif4StageAVX2", false, odd, all)
	fftStage("dit4StageAVX2", true, odd, all)
	k := fft16Data(odd, all)
	dif16Kernel(&k)
	dit16ProductsKernel(&k, false)
	dit16ProductsKernel(&k, true)
	radix3Kernels(&k)
	foldKernels()
	foldSplitKernels()
	splitSpectrumKernels()
	r3ResiduesKernel()
	r3Rem682Kernel()
	listKernels()
	encodeBulkKernels()
	decodeListKernel()
	decodeBulkKernels()
	smallEncodeKernel()
	decryptFinishKernel()
	Generate()
}

// Offsets in r3StepAVX2's state (r3State in ../asm_amd64.go): four
// polynomials f, g, v, r of 768 coefficients, each as two bit-planes
// (nz, sg) of three 256-bit vectors.
func r3Vec(s Register, poly, plane, i int) Mem {
	return Mem{Base: s, Disp: poly*192 + plane*96 + i*32}
}

const (
	polyF, polyG, polyV, polyR = 0, 1, 2, 3
	planeNZ, planeSG           = 0, 1
)

// add3 sets (anz, asg) to the sum in F_3 of (anz, asg) and (bnz, bsg),
// lane by lane on the bit-planes (add3 in ../r3.go): nz = (a.nz ^ b.nz) |
// (a.nz &^ (a.sg ^ b.sg)), sg = (a.sg | b.sg) ^ (a.nz & b.nz).
func add3(anz, asg, bnz, bsg Register) {
	t, u := YMM(), YMM()
	VPXOR(bsg, asg, t)  // a.sg ^ b.sg
	VPANDN(anz, t, t)   // a.nz &^ t
	VPXOR(bnz, anz, u)  // a.nz ^ b.nz
	VPOR(t, u, u)       // new nz
	VPAND(bnz, anz, t)  // a.nz & b.nz
	VPOR(bsg, asg, asg) // a.sg | b.sg
	VPXOR(t, asg, asg)  // new sg
	VMOVDQA(u, anz)
}

// kernel begins the kernel name with the Go signature sig and the doc
// comment lines doc: NOSPLIT, and noescape, since no kernel keeps a
// pointer argument past its return.
func kernel(name, sig string, doc ...string) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc...)
}

// skipUnlessPositive makes the count-driven kernel name return at once,
// before it touches memory or a vector register, unless every one of
// counts (block, pair or group counts, in general registers) is above
// zero: its loops test their counter after each pass, so a zero count
// would run them about 2^64 times, off the end of the buffers. The
// kernel ends with earlyReturn(name), the target. The counts are public
// sizes, so the branch is too.
func skipUnlessPositive(name string, counts ...Register) {
	for _, c := range counts {
		TESTQ(c, c)
		JLE(LabelRef(name + "_none"))
	}
}

// earlyReturn is the return that skipUnlessPositive(name, ...) jumps to,
// emitted after the kernel's own RET.
func earlyReturn(name string) {
	Label(name + "_none")
	RET()
}

// loadArgs loads the kernel's arguments names into general registers, in
// that order.
func loadArgs(names ...string) []Register {
	regs := make([]Register, len(names))
	for i, name := range names {
		regs[i] = Load(Param(name), GP64())
	}
	return regs
}

// vector emits the read-only 32-byte vector name whose lane l, of T's
// width (32 lanes of bytes down to four of 64-bit words), is lane(l).
func vector[T uint8 | uint16 | uint32 | uint64](name string, lane func(l int) T) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	size := int(unsafe.Sizeof(T(0)))
	for l := 0; l < 32/size; l++ {
		var c Constant
		switch v := any(lane(l)).(type) {
		case uint8:
			c = U8(v)
		case uint16:
			c = U16(v)
		case uint32:
			c = U32(v)
		case uint64:
			c = U64(v)
		}
		DATA(size*l, c)
	}
	return m
}

// broadcast emits the read-only vector name with v in every lane.
func broadcast[T uint8 | uint16 | uint32 | uint64](name string, v T) Mem {
	return vector(name, func(int) T { return v })
}

// broadcastF64 emits the read-only vector name with v in its four
// float64 lanes.
func broadcastF64(name string, v float64) Mem {
	return broadcast(name, math.Float64bits(v))
}

// lanes emits the read-only vector name whose lanes are a 32-byte table.
func lanes[T uint8 | uint16 | uint32 | uint64](name string, table []T) Mem {
	return vector(name, func(l int) T { return table[l] })
}

// swapMask exchanges a and b where sw is all ones.
func swapMask(a, b, sw Register) {
	t := YMM()
	VPXOR(a, b, t)
	VPAND(sw, t, t)
	VPXOR(t, a, a)
	VPXOR(t, b, b)
}

// shiftDown sets d to the 256 bits of x shifted down one bit, with bit 0
// of the next vector y at the top (a 768-bit division by x).
func shiftDown(d, x, y Register) { shiftOne(d, x, y, false) }

// shiftUp sets d to the 256 bits of y shifted up one bit, with the top bit
// of the previous vector x at the bottom (a 768-bit multiplication by x).
func shiftUp(d, x, y Register) { shiftOne(d, x, y, true) }

// shiftOne is shiftDown (up false) or shiftUp: the neighbouring 64-bit
// words of the vector shifted (x down, y up) gathered across the pair
// x, y, their carry bit moved to the other end and ORed in.
func shiftOne(d, x, y Register, up bool) {
	t := YMM()
	VPERM2I128(U8(0x21), y, x, t) // x2 x3 y0 y1
	if up {
		VPALIGNR(U8(8), t, y, t) // x3 y0 y1 y2: the words before y's
		VPSRLQ(U8(63), t, t)
		VPSLLQ(U8(1), y, d)
	} else {
		VPALIGNR(U8(8), x, t, t) // x1 x2 x3 y0: the words after x's
		VPSLLQ(U8(63), t, t)
		VPSRLQ(U8(1), x, d)
	}
	VPOR(t, d, d)
}

// r3Step generates r3StepAVX2, one divstep of the R/3 inversion on the
// bit-planes (the loop body of r3RecipAVX2 in ../asm_amd64.go, which
// explains the layout): f, g swapped by the mask sw;
// g = (g + c*f)/x; v = x*v; v, r swapped by sw; r = r + c*v, where c is
// given by its planes cnz, csg (masks).
//
// Constant time: boolean operations, shifts by constants and fixed lane
// shuffles on every word of all four polynomials; the swap and c are
// broadcast masks; there is no branch and every address is s plus a
// constant.
func r3Step() {
	kernel("r3StepAVX2", "func(s *[96]uint64, m *[3]uint64)",
		"r3StepAVX2 runs one divstep of the R/3 inversion on the state s",
		"(f, g, v, r as bit-planes, see r3State) with the masks m = sw, cnz,",
		"csg. Constant time in s and m.")
	s := Load(Param("s"), GP64())
	mp := Load(Param("m"), GP64())
	sw, cnz, csg := YMM(), YMM(), YMM()
	VPBROADCASTQ(Mem{Base: mp, Disp: 0}, sw)
	VPBROADCASTQ(Mem{Base: mp, Disp: 8}, cnz)
	VPBROADCASTQ(Mem{Base: mp, Disp: 16}, csg)

	// f, g <- swapped; (sn, ss) = g + c*f, stored back in g's place
	// before the shift.
	var sn, ss [3]VecVirtual
	for i := 0; i < 3; i++ {
		fn, fs, gn, gs := YMM(), YMM(), YMM(), YMM()
		VMOVDQU(r3Vec(s, polyF, planeNZ, i), fn)
		VMOVDQU(r3Vec(s, polyF, planeSG, i), fs)
		VMOVDQU(r3Vec(s, polyG, planeNZ, i), gn)
		VMOVDQU(r3Vec(s, polyG, planeSG, i), gs)
		swapMask(fn, gn, sw)
		swapMask(fs, gs, sw)
		VMOVDQU(fn, r3Vec(s, polyF, planeNZ, i))
		VMOVDQU(fs, r3Vec(s, polyF, planeSG, i))
		pn, ps := YMM(), YMM()
		VPAND(cnz, fn, pn)
		VPXOR(csg, fs, ps)
		VPAND(pn, ps, ps)
		add3(gn, gs, pn, ps)
		sn[i], ss[i] = gn, gs
	}
	zero := YMM()
	VPXOR(zero, zero, zero)
	next := [3]VecVirtual{sn[1], sn[2], zero}
	nexts := [3]VecVirtual{ss[1], ss[2], zero}
	for i := 0; i < 3; i++ {
		d := YMM()
		shiftDown(d, sn[i], next[i])
		VMOVDQU(d, r3Vec(s, polyG, planeNZ, i))
		shiftDown(d, ss[i], nexts[i])
		VMOVDQU(d, r3Vec(s, polyG, planeSG, i))
	}

	// v <- x*v; v, r <- swapped; r <- r + c*v.
	prevN, prevS := zero, zero
	for i := 0; i < 3; i++ {
		on, os := YMM(), YMM()
		VMOVDQU(r3Vec(s, polyV, planeNZ, i), on)
		VMOVDQU(r3Vec(s, polyV, planeSG, i), os)
		vn, vs := YMM(), YMM()
		shiftUp(vn, prevN, on)
		shiftUp(vs, prevS, os)
		prevN, prevS = on, os
		rn, rs := YMM(), YMM()
		VMOVDQU(r3Vec(s, polyR, planeNZ, i), rn)
		VMOVDQU(r3Vec(s, polyR, planeSG, i), rs)
		swapMask(vn, rn, sw)
		swapMask(vs, rs, sw)
		pn, ps := YMM(), YMM()
		VPAND(cnz, vn, pn)
		VPXOR(csg, vs, ps)
		VPAND(pn, ps, ps)
		add3(rn, rs, pn, ps)
		VMOVDQU(vn, r3Vec(s, polyV, planeNZ, i))
		VMOVDQU(vs, r3Vec(s, polyV, planeSG, i))
		VMOVDQU(rn, r3Vec(s, polyR, planeNZ, i))
		VMOVDQU(rs, r3Vec(s, polyR, planeSG, i))
	}
	VZEROUPPER()
	RET()
}

// divstepVec updates 16 coefficients: y = ca*y - cb*x - (cah*y - cbh*x
// high halves)*q (the difference of two Shoup products, see recipRqAVX2 in
// ../asm_amd64.go for the bounds), x = y or x by the mask sw.
func divstepVec(xm, ym Mem, ca, cah, cb, cbh, sw, qv Register) {
	X, Y, t, u, h, l := YMM(), YMM(), YMM(), YMM(), YMM(), YMM()
	VMOVDQU(xm, X)
	VMOVDQU(ym, Y)
	VPMULLW(ca, Y, t) // t = ca*y (low half)
	VPMULLW(cb, X, u) // u = cb*x
	VPSUBW(u, t, t)   // t = ca*y - cb*x
	VPMULHW(cah, Y, h)
	VPMULHW(cbh, X, l)
	VPSUBW(l, h, h)   // quotient estimates, subtracted
	VPMULLW(qv, h, h) // times q
	VPSUBW(h, t, t)
	VMOVDQU(t, ym)
	VPXOR(X, Y, u) // x ^= sw & (x ^ y)
	VPAND(sw, u, u)
	VPXOR(u, X, X)
	VMOVDQU(X, xm)
}
