package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The invertibility test of batch key generation (r3Invertible in
// ../batch.go) on the assembly path: g is invertible in R/3 iff it is not
// divisible by any of the three irreducible factors of x^p - x - 1, of
// degrees 19, 60 and 682.
//
// Constant time: g's coefficients only ever become masks (compares against
// constants) and operands of boolean instructions; loop counts, the
// unrolled reduction's shift amounts and lane choices, and every address
// come from public indices.

// r3ResiduesKernel generates r3ResiduesAVX2: the sums over i of g_i times
// the bit-sliced residues x^i mod phi (residueTable.isZeroMod) for the two
// small factors, four coefficients at a time, one per 64-bit lane: g_i
// sign-extended to a 64-bit lane (VPMOVSXBQ), the masks "g_i = 0" and
// "g_i = -1" by compares, the table words masked and their signs flipped,
// and an F_3 addition into the lane's accumulator. The four lanes' sums
// are left to the caller to add.
func r3ResiduesKernel() {
	kernel("r3ResiduesAVX2", "func(acc *[16]uint64, a *[768]int8, t19nz, t19sg, t60nz, t60sg *[764]uint64)",
		"r3ResiduesAVX2 sets acc to four lane sums (nz planes, then sg planes) for",
		"the factor of degree 19 and four for that of degree 60: lane l sums",
		"a_i * (x^i mod phi) over the i = l mod 4 below 764, from the tables of",
		"residueTable (zero past p). Constant time in a.")
	regs := loadArgs("acc", "a", "t19nz", "t19sg", "t60nz", "t60sg")
	acc, g, tn19, ts19, tn60, ts60 := regs[0], regs[1], regs[2], regs[3], regs[4], regs[5]
	zero, ones := YMM(), YMM()
	VPXOR(zero, zero, zero)
	VPCMPEQQ(ones, ones, ones)
	an19, as19, an60, as60 := YMM(), YMM(), YMM(), YMM()
	for _, r := range []Register{an19, as19, an60, as60} {
		VPXOR(r, r, r)
	}
	off := GP64()
	XORQ(off, off) // byte offset into the tables: 8 per coefficient
	n := GP64()
	MOVQ(U32(191), n) // 764 coefficients
	Label("r3Residues_loop")
	c, z, m := YMM(), YMM(), YMM()
	VPMOVSXBQ(Mem{Base: g}, c)
	VPCMPEQQ(zero, c, z) // all ones where g_i = 0
	VPCMPEQQ(ones, c, m) // all ones where g_i = -1
	for _, t := range []struct {
		nz, sg, an, as Register
	}{{tn19, ts19, an19, as19}, {tn60, ts60, an60, as60}} {
		pn, ps := YMM(), YMM()
		VPANDN(Mem{Base: t.nz, Index: off, Scale: 1}, z, pn) // word if g_i != 0
		VPXOR(Mem{Base: t.sg, Index: off, Scale: 1}, m, ps)  // sign flipped if g_i = -1
		VPAND(pn, ps, ps)
		add3(t.an, t.as, pn, ps)
	}
	ADDQ(U8(4), g)
	ADDQ(U8(32), off)
	DECQ(n)
	JNZ(LabelRef("r3Residues_loop"))
	VMOVDQU(an19, Mem{Base: acc})
	VMOVDQU(as19, Mem{Base: acc, Disp: 32})
	VMOVDQU(an60, Mem{Base: acc, Disp: 64})
	VMOVDQU(as60, Mem{Base: acc, Disp: 96})
	VZEROUPPER()
	RET()
}

// r3Rem682Kernel generates r3Rem682AVX2: g's bit-planes (VPMOVMSKB of the
// bytes, and of the bytes shifted up by 7 bits for the nonzero plane,
// through a stack buffer) held in six registers, 768 coefficients, then
// the division by the factor of degree 682 from the top coefficient down,
// as r3Remainder.isZeroMod: for i = p-1 .. 682, coefficient i of the
// current remainder as two broadcast masks (its lane broadcast by VPERMQ,
// the bit shifted to the top and compared with 0), the row divisor *
// x^(i-682) of the table masked by them and added in F_3. The 79 steps are
// unrolled; i, its lane and its bit are public. Returns the OR of the
// remainder's nonzero plane (zero iff the factor divides g).
func r3Rem682Kernel() {
	const d = 682
	kernel("r3Rem682AVX2", "func(a *[768]int8, rows *[79][24]uint64) uint64",
		"r3Rem682AVX2 reduces a modulo the factor of degree 682 (rows[s] is it",
		"times x^s: 12 nz words, then 12 sg words) and returns the OR of the",
		"remainder's nonzero words: zero iff the factor divides a. Constant time in a.")
	g := Load(Param("a"), GP64())
	rows := Load(Param("rows"), GP64())
	buf := AllocLocal(192) // nz words 0..11, then sg words
	for j := 0; j < 24; j++ {
		y := YMM()
		VMOVDQU(Mem{Base: g, Disp: 32 * j}, y)
		w := GP32()
		VPMOVMSKB(y, w) // bit 7 of each byte: g_i = -1
		MOVL(w, buf.Offset(96+4*j))
		VPSLLW(U8(7), y, y) // bit 0 of each byte to bit 7: g_i != 0
		VPMOVMSKB(y, w)
		MOVL(w, buf.Offset(4*j))
	}
	var xn, xs [3]VecVirtual
	for v := 0; v < 3; v++ {
		xn[v], xs[v] = YMM(), YMM()
		VMOVDQU(buf.Offset(32*v), xn[v])
		VMOVDQU(buf.Offset(96+32*v), xs[v])
	}
	zero, ones := YMM(), YMM()
	VPXOR(zero, zero, zero)
	VPCMPEQQ(ones, ones, ones)
	for i := 760; i >= d; i-- {
		s := i - d
		w, b := i/64, i%64
		lane := uint8(w % 4 * 0x55) // VPERMQ: the lane in all four
		Comment(fmt.Sprintf("coefficient %d", i))
		cn, ncs := YMM(), YMM()
		VPERMQ(U8(lane), xn[w/4], cn)
		VPSLLQ(U8(63-b), cn, cn)
		VPCMPGTQ(cn, zero, cn) // all ones if coefficient i != 0
		VPERMQ(U8(lane), xs[w/4], ncs)
		VPSLLQ(U8(63-b), ncs, ncs)
		VPCMPGTQ(ones, ncs, ncs) // all ones unless coefficient i = -1
		for v := 0; v < 3; v++ {
			// subtract c*row: add the row with its sign flipped unless c = -1
			pn, ps := YMM(), YMM()
			VPAND(Mem{Base: rows, Disp: 192*s + 32*v}, cn, pn)
			VPXOR(Mem{Base: rows, Disp: 192*s + 96 + 32*v}, ncs, ps)
			VPAND(pn, ps, ps)
			add3(xn[v], xs[v], pn, ps)
		}
	}
	o, x := YMM(), XMM()
	VPOR(xn[1], xn[0], o)
	VPOR(xn[2], o, o)
	VEXTRACTI128(U8(1), o, x)
	VPOR(o.AsX(), x, x)
	t := XMM()
	VPSHUFD(U8(0x4e), x, t)
	VPOR(t, x, x)
	r := GP64()
	VMOVQ(x, r)
	// the bit-planes on the stack derive from g
	VPXOR(o, o, o)
	for j := 0; j < 6; j++ {
		VMOVDQU(o, buf.Offset(32*j))
	}
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
