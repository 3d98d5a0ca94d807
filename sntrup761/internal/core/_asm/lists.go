package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The list conversions around the sorts (shortFromList and smallFromList
// in ../kem.go), eight 32-bit words at a time. Constant time: boolean
// operations, additions and shifts by constants on every word, packs and
// fixed lane moves; no branch, every address a pointer argument plus a
// constant.

const w = 286 // sntrup761's weight (p is in recipq.go)

// packStore8 stores the eight int32 lanes of v (each in [-128, 127]) as
// eight bytes at dst.
func packStore8(v VecVirtual, dst Mem) {
	hi := XMM()
	VEXTRACTI128(U8(1), v, hi)
	VPACKSSDW(hi, v.AsX(), hi) // words 0..7 in order
	VPACKSSWB(hi, hi, hi)
	VMOVQ(hi, dst)
}

// listKernels generates shortKeysAVX2, shortCoeffsAVX2 and
// smallFromListAVX2.
func listKernels() {
	clear1 := broadcast[uint32]("listClear1", ^uint32(1))
	clear3 := broadcast[uint32]("listClear3", ^uint32(3))
	one := broadcast[uint32]("listOne", 1)
	three := broadcast[uint32]("listThree", 3)
	low30 := broadcast[uint32]("listLow30", 0x3fffffff)
	// the group of eight that holds index w: its first w%8 keys are even
	edge := vector("listEdgeOr", func(l int) uint32 { return map[bool]uint32{true: 0, false: 1}[l < w%8] })
	edgeClear := vector("listEdgeClear", func(l int) uint32 { return map[bool]uint32{true: ^uint32(1), false: ^uint32(3)}[l < w%8] })

	kernel("shortKeysAVX2", "func(x *[1024]uint32, L *[761]uint32)",
		"shortKeysAVX2 sets x to shortFromList's sort keys: L_i with bit 0",
		"cleared for i < w, with bits 1, 0 set to 01 for w <= i < p, then",
		"0xffffffff up to 1024.")
	regs := loadArgs("x", "L")
	x, L := regs[0], regs[1]
	c1, c3, o1, ones := YMM(), YMM(), YMM(), YMM()
	VMOVDQU(clear1, c1)
	VMOVDQU(clear3, c3)
	VMOVDQU(one, o1)
	VPCMPEQD(ones, ones, ones)
	for g := 0; g < p/8; g++ {
		v := YMM()
		switch {
		case 8*g+8 <= w:
			VPAND(Mem{Base: L, Disp: 32 * g}, c1, v)
		case 8*g >= w:
			VPAND(Mem{Base: L, Disp: 32 * g}, c3, v)
			VPOR(o1, v, v)
		default:
			VMOVDQU(edgeClear, v)
			VPAND(Mem{Base: L, Disp: 32 * g}, v, v)
			VPOR(edge, v, v)
		}
		VMOVDQU(v, Mem{Base: x, Disp: 32 * g})
	}
	for g := p / 8; g < 128; g++ {
		VMOVDQU(ones, Mem{Base: x, Disp: 32 * g})
	}
	last := GP32() // key p-1 (>= w)
	MOVL(Mem{Base: L, Disp: 4 * (p - 1)}, last)
	ANDL(U32(^uint32(3)), last)
	ORL(U8(1), last)
	MOVL(last, Mem{Base: x, Disp: 4 * (p - 1)})
	VZEROUPPER()
	RET()

	kernel("shortCoeffsAVX2", "func(out *[761]int8, x *[1024]uint32)",
		"shortCoeffsAVX2 sets out_i = (x_i & 3) - 1 for i < p-1 (shortFromList's",
		"coefficients from the sorted keys); out_(p-1) is the caller's.")
	regs = loadArgs("out", "x")
	out, xs := regs[0], regs[1]
	m3, o1 := YMM(), YMM()
	VMOVDQU(three, m3)
	VMOVDQU(one, o1)
	for g := 0; g < p/8; g++ {
		v := YMM()
		VPAND(Mem{Base: xs, Disp: 32 * g}, m3, v)
		VPSUBD(o1, v, v)
		packStore8(v, Mem{Base: out, Disp: 8 * g})
	}
	VZEROUPPER()
	RET()

	kernel("smallFromListAVX2", "func(out *[761]int8, L *[761]uint32)",
		"smallFromListAVX2 sets out_i = ((L_i & 0x3fffffff)*3 >> 30) - 1 for",
		"i < p-1 (smallFromList); out_(p-1) is the caller's.")
	regs = loadArgs("out", "L")
	out, L = regs[0], regs[1]
	m30, o1 := YMM(), YMM()
	VMOVDQU(low30, m30)
	VMOVDQU(one, o1)
	for g := 0; g < p/8; g++ {
		v, t := YMM(), YMM()
		VPAND(Mem{Base: L, Disp: 32 * g}, m30, v)
		VPADDD(v, v, t)
		VPADDD(t, v, v) // 3*(L_i & 0x3fffffff) < 2^32
		VPSRLD(U8(30), v, v)
		VPSUBD(o1, v, v)
		packStore8(v, Mem{Base: out, Disp: 8 * g})
	}
	VZEROUPPER()
	RET()
}

// encodeBulkKernels generates encodeBulk1AVX2 and encodeBulk2AVX2, the
// bulk loop of the mixed-radix encoder (encodeBulk in ../encode.go) for
// levels that emit one or two bytes per pair, eight pairs at a time: the
// sixteen values deinterleaved into the pairs' first and second values
// (VPERMD, VPERM2I128), r = first + second*m (VPMULLD; r < 2^32), the low
// byte or two of each r packed and stored, r shifted down by them stored
// as the level's next value (cur[i], written after cur[2i..2i+15] are
// read, so the pass can run in place). The codecs encode public data
// only; the kernels are constant time anyway (no branch or address on the
// values).
func encodeBulkKernels() {
	deint := lanes("encodeDeinterleave", []uint32{0, 2, 4, 6, 1, 3, 5, 7})
	low8 := broadcast[uint32]("encodeLow8", 0xff)
	low16 := broadcast[uint32]("encodeLow16", 0xffff)
	for _, bk := range []int{1, 2} {
		name := "encodeBulk" + string(rune('0'+bk)) + "AVX2"
		kernel(name, "func(o *byte, cur *uint32, m uint32, groups int)",
			name+" is encodeBulk's loop for a level emitting "+string(rune('0'+bk))+" byte(s) per pair",
			"with modulus m, on groups*8 pairs (o gets groups*8*"+string(rune('0'+bk))+" bytes, cur groups*8 values;",
			"none unless groups is positive).")
		o := Load(Param("o"), GP64())
		cur := Load(Param("cur"), GP64())
		mg := Load(Param("m"), GP32())
		n := Load(Param("groups"), GP64())
		skipUnlessPositive(name, n)
		mv, perm, mask := YMM(), YMM(), YMM()
		VMOVD(mg, mv.AsX())
		VPBROADCASTD(mv.AsX(), mv)
		VMOVDQU(deint, perm)
		if bk == 1 {
			VMOVDQU(low8, mask)
		} else {
			VMOVDQU(low16, mask)
		}
		in := GP64()
		MOVQ(cur, in) // reads at in (16 values per group), writes at cur (8)
		Label(name + "_loop")
		a, b := YMM(), YMM()
		VPERMD(Mem{Base: in}, perm, a)           // a0 a2 a4 a6 | a1 a3 a5 a7
		VPERMD(Mem{Base: in, Disp: 32}, perm, b) // b0 b2 b4 b6 | b1 b3 b5 b7
		ev, od := YMM(), YMM()
		VPERM2I128(U8(0x20), b, a, ev) // first values of the eight pairs
		VPERM2I128(U8(0x31), b, a, od) // second values
		VPMULLD(mv, od, od)
		VPADDD(od, ev, ev) // r
		lo, hi := YMM(), XMM()
		VPAND(mask, ev, lo)
		VEXTRACTI128(U8(1), lo, hi)
		VPACKUSDW(hi, lo.AsX(), hi) // eight words in order
		if bk == 1 {
			VPACKUSWB(hi, hi, hi)
			VMOVQ(hi, Mem{Base: o})
			VPSRLD(U8(8), ev, ev)
		} else {
			VMOVDQU(hi, Mem{Base: o})
			VPSRLD(U8(16), ev, ev)
		}
		VMOVDQU(ev, Mem{Base: cur})
		ADDQ(U8(64), in)
		ADDQ(U8(32), cur)
		ADDQ(U8(uint8(8*bk)), o)
		DECQ(n)
		JNZ(LabelRef(name + "_loop"))
		VZEROUPPER()
		RET()
		earlyReturn(name)
	}
}

// decodeListKernel generates decodeListAVX2: the first 760 little-endian
// uint32 of buf copied to L (on amd64 a plain copy), 32 bytes at a time.
func decodeListKernel() {
	kernel("decodeListAVX2", "func(L *[761]uint32, buf *[3044]byte)",
		"decodeListAVX2 sets L_i to the little-endian uint32 at buf[4i:] for i < p-1",
		"(decodeList); L_(p-1) is the caller's.")
	regs := loadArgs("L", "buf")
	L, buf := regs[0], regs[1]
	for g := 0; g < p/8; g++ {
		v := YMM()
		VMOVDQU(Mem{Base: buf, Disp: 32 * g}, v)
		VMOVDQU(v, Mem{Base: L, Disp: 32 * g})
	}
	VZEROUPPER()
	RET()
}

// decodeBulkKernels generates decodeBulk1AVX2 and decodeBulk2AVX2, the
// bulk loop of the mixed-radix decoder (decodeBulk in ../encode.go) for
// levels that read one or two bytes per pair, four pairs at a time: x =
// the bytes + cur_i shifted above them (x < 2^31: cur_i is below the
// level above's modulus, < 2^14), converted to float64 (VCVTDQ2PD, exact),
// q = floor(x/m) by VDIVPD and VROUNDPD (exact: x/m is correctly rounded,
// and a quotient just below an integer k is at least 1/m < 2^-14 below
// it, far more than the rounding error, so the floor is that of x/m),
// x - q*m exact, then the same for q modulo m; both converted back
// (VCVTTPD2DQ, exact on integers) and interleaved into nx. The decoder
// reads public data only (public keys and ciphertexts): VDIVPD's latency
// may depend on its operands, which is why the kernels are not used on
// secrets.
func decodeBulkKernels() {
	for _, bk := range []int{1, 2} {
		name := "decodeBulk" + string(rune('0'+bk)) + "AVX2"
		kernel(name, "func(nx *uint32, cur *uint32, o *byte, m uint32, groups int)",
			name+" is decodeBulk's loop for a level reading "+string(rune('0'+bk))+" byte(s) per pair",
			"with modulus m, on groups*4 pairs: nx_(2i) = x mod m, nx_(2i+1) = (x/m) mod m",
			"for x = o's bytes of pair i + cur_i shifted above them (none unless groups",
			"is positive). For public data only.")
		nx := Load(Param("nx"), GP64())
		cur := Load(Param("cur"), GP64())
		o := Load(Param("o"), GP64())
		mg := Load(Param("m"), GP32())
		n := Load(Param("groups"), GP64())
		skipUnlessPositive(name, n)
		mv, mx := YMM(), XMM()
		VMOVD(mg, mx)
		VPBROADCASTD(mx, mx)
		VCVTDQ2PD(mx, mv) // m in four float64 lanes
		Label(name + "_loop")
		x, h := XMM(), XMM()
		// (VPSLLD by an immediate takes a register: its memory form is
		// AVX-512 only)
		VMOVDQU(Mem{Base: cur}, h)
		if bk == 1 {
			VPMOVZXBD(Mem{Base: o}, x)
			VPSLLD(U8(8), h, h)
		} else {
			VPMOVZXWD(Mem{Base: o}, x)
			VPSLLD(U8(16), h, h)
		}
		VPOR(h, x, x)
		xf, q, t := YMM(), YMM(), YMM()
		VCVTDQ2PD(x, xf)
		VDIVPD(mv, xf, q)
		VROUNDPD(U8(1), q, q) // floor
		VMULPD(mv, q, t)
		VSUBPD(t, xf, xf) // x mod m
		q2 := YMM()
		VDIVPD(mv, q, q2)
		VROUNDPD(U8(1), q2, q2)
		VMULPD(mv, q2, t)
		VSUBPD(t, q, q) // (x/m) mod m
		r0, r1 := XMM(), XMM()
		VCVTTPD2DQY(xf, r0)
		VCVTTPD2DQY(q, r1)
		lo := XMM()
		VPUNPCKLDQ(r1, r0, lo) // pairs 0, 1
		VPUNPCKHDQ(r1, r0, r0) // pairs 2, 3
		VMOVDQU(lo, Mem{Base: nx})
		VMOVDQU(r0, Mem{Base: nx, Disp: 16})
		ADDQ(U8(32), nx)
		ADDQ(U8(16), cur)
		ADDQ(U8(uint8(4*bk)), o)
		DECQ(n)
		JNZ(LabelRef(name + "_loop"))
		VZEROUPPER()
		RET()
		earlyReturn(name)
	}
}

// smallEncodeKernel generates smallEncodeAVX2: Small_encode's first 190
// bytes (smallEncode in ../encode.go), 32 coefficients (eight bytes) at a
// time: plus one (VPADDB), pairs combined as a + 4b (VPMADDUBSW), pairs of
// those as a + 16b (VPMADDWD), packed to bytes. The last group starts at
// coefficient 728 (not 736) so that it reads inside the 761 coefficients;
// it rewrites two bytes of the group before with the same values.
// Constant time: the same instructions on every coefficient, constant
// addresses.
func smallEncodeKernel() {
	ones := broadcast[uint8]("smallEncOnes", 1)
	m14 := vector("smallEnc14", func(l int) uint8 { return map[bool]uint8{true: 1, false: 4}[l%2 == 0] })
	m116 := vector("smallEnc116", func(l int) uint16 { return map[bool]uint16{true: 1, false: 16}[l%2 == 0] })
	kernel("smallEncodeAVX2", "func(out *[191]byte, f *[761]int8)",
		"smallEncodeAVX2 sets out[:190] to smallEncode's bytes of f's first 760",
		"coefficients; out[190] is the caller's. Constant time in f.")
	regs := loadArgs("out", "f")
	out, f := regs[0], regs[1]
	one, a, b := YMM(), YMM(), YMM()
	VMOVDQU(ones, one)
	VMOVDQU(m14, a)
	VMOVDQU(m116, b)
	for g := 0; g < 24; g++ {
		c := 32 * g
		if g == 23 {
			c = 728
		}
		v := YMM()
		VPADDB(Mem{Base: f, Disp: c}, one, v) // coefficients plus one, 0..3
		VPMADDUBSW(a, v, v)                   // c0 + 4c1 per word
		VPMADDWD(b, v, v)                     // + 16(c2 + 4c3) per dword
		hi := XMM()
		VEXTRACTI128(U8(1), v, hi)
		VPACKUSDW(hi, v.AsX(), hi)
		VPACKUSWB(hi, hi, hi)
		VMOVQ(hi, Mem{Base: out, Disp: c / 4})
	}
	VZEROUPPER()
	RET()
}

// decryptFinishKernel generates decryptFinishAVX2, the end of decryption
// (decrypt in ../kem.go): the weight of ev (its nonzero coefficients:
// bit 0 of each byte, summed by VPSADBW over the 768 zero-padded bytes),
// the mask "weight != w" (all ones or zero, from NEGQ and SBBQ on the
// difference, no branch), and r = ((ev ^ k) &^ mask) ^ k with k = 1 for
// the first w coefficients and 0 for the others (the reference's
// 1, ..., 1, 0, ..., 0 Short returned when the weight is wrong), 32 bytes
// at a time; the last window starts at p-32 and rewrites some bytes with
// the same values. Constant time in ev: boolean operations, VPSADBW,
// arithmetic on the weight, constant addresses.
func decryptFinishKernel() {
	lowBits := broadcast[uint8]("decryptOnes", 1)
	// k for coefficients 256..287
	edge := vector("decryptEdge", func(l int) uint8 { return map[bool]uint8{true: 1, false: 0}[256+l < w] })
	kernel("decryptFinishAVX2", "func(r *[761]int8, ev *[768]int8)",
		"decryptFinishAVX2 sets r to ev if ev has weight w, else to the Short",
		"1, ..., 1, 0, ..., 0 (decrypt); ev's bytes past p are zero. Constant time in ev.")
	regs := loadArgs("r", "ev")
	r, ev := regs[0], regs[1]
	one, zero, acc := YMM(), YMM(), YMM()
	VMOVDQU(lowBits, one)
	VPXOR(zero, zero, zero)
	VPXOR(acc, acc, acc)
	for g := 0; g < 24; g++ {
		v := YMM()
		VPAND(Mem{Base: ev, Disp: 32 * g}, one, v)
		VPSADBW(zero, v, v) // four 64-bit partial sums
		VPADDQ(v, acc, acc)
	}
	hi := XMM()
	VEXTRACTI128(U8(1), acc, hi)
	VPADDQ(acc.AsX(), hi, hi)
	t := XMM()
	VPSHUFD(U8(0x4e), hi, t)
	VPADDQ(t, hi, hi)
	wt, m := GP64(), GP64()
	VMOVQ(hi, wt)
	SUBQ(U32(w), wt)
	NEGQ(wt)   // carry set iff weight != w
	SBBQ(m, m) // all ones iff weight != w
	mv := YMM()
	MOVQ(m, mv.AsX())
	VPBROADCASTQ(mv.AsX(), mv)
	for g := 0; g < 24; g++ {
		c := 32 * g
		if g == 23 {
			c = p - 32
		}
		v := YMM()
		VMOVDQU(Mem{Base: ev, Disp: c}, v)
		switch {
		case c+32 <= w:
			VPXOR(one, v, v)
			VPANDN(v, mv, v) // v &^ mask
			VPXOR(one, v, v)
		case c >= w:
			VPANDN(v, mv, v)
		default:
			k := YMM()
			VMOVDQU(edge, k)
			VPXOR(k, v, v)
			VPANDN(v, mv, v)
			VPXOR(k, v, v)
		}
		VMOVDQU(v, Mem{Base: r, Disp: c})
	}
	VZEROUPPER()
	RET()
}
