package main

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sortKeys generates sortKeys1024AVX2: the bitonic sorting network
// described at sortShortAVX2 (../asm_amd64.go) on 1024 uint32 keys, key
// 8*v+l in lane l of vector v. Its 55 stages run in 13 passes over the
// keys, each pass running several stages on vectors held in registers:
// phases 1 to 3 in one pass; in phase m (blocks of bv = 2^(m-3) vectors)
// the mirror stage with the next two half-cleaners at vector distances
// (mirrorPass), then the remaining ones up to three at a time
// (levelsPass), the last pass of a phase also running the three in-vector
// stages. The grouping only changes the order of comparators that are
// independent, not the network. The generator unrolls each pass's group of vectors and emits loops over the
// groups; every loop bound and offset comes from the fixed network (n =
// 1024), so the code is the same for every input.
//
// Constant time: comparators are VPMINUD/VPMAXUD, lane permutations
// VPERMD/VPSHUFD with fixed indices and blends VPBLENDD with constant
// masks; there is no branch but the loop counters of the fixed network and
// every address is x plus a constant or a counter-derived offset.
func sortKeys(laneReverse Mem) {
	kernel("sortKeys1024AVX2", "func(x *[1024]uint32)",
		"sortKeys1024AVX2 sorts the 1024 keys of x in place (ascending), with",
		"a fixed sorting network: constant time in the keys.")
	x := Load(Param("x"), GP64())

	rev := YMM()
	VMOVDQU(laneReverse, rev)
	s := &sorter{x: x, rev: rev}

	// Phases 1 to 3 sort each vector.
	s.loop(128, 32, func(p Register) {
		a := YMM()
		VMOVDQU(Mem{Base: p}, a)
		s.stageShuf(a, 0xB1, 0xAA) // m = 1: mirror l^1
		s.stageShuf(a, 0x1B, 0xCC) // m = 2: mirror l^3, then distance 1
		s.stageShuf(a, 0xB1, 0xAA)
		s.stagePerm(a, 0xF0) // m = 3: mirror l^7, then 2 and 1
		s.stageShuf(a, 0x4E, 0xCC)
		s.stageShuf(a, 0xB1, 0xAA)
		VMOVDQU(a, Mem{Base: p})
	})
	for m := 4; m <= 10; m++ {
		bv := 1 << (m - 3)
		nl := m - 4
		s.mirrorPass(bv, min(nl, 2), nl <= 2)
		for e := bv / 16; e >= 1; {
			k := min(3, bits.Len(uint(e)))
			s.levelsPass(e, k, e>>k == 0)
			e >>= k
		}
	}
	VZEROUPPER()
	RET()
}

// laneReverseData emits the VPERMD index of the lane reversal l -> 7-l.
func laneReverseData() Mem {
	return vector("laneReverse", func(l int) uint32 { return uint32(7 - l) })
}

type sorter struct {
	x   Register
	rev Register
	n   int // labels emitted
}

func (s *sorter) label() string {
	s.n++
	return fmt.Sprintf("sort%d", s.n)
}

// loop emits count iterations of body(p), p stepping by stride bytes from
// x (count and stride public constants).
func (s *sorter) loop(count, stride int, body func(p Register)) {
	s.loopFrom(s.x, GP64(), GP64(), count, stride, body)
}

// loop2 emits outer x inner iterations of body(p), p starting at x plus
// outerStride*i + innerStride*j bytes. (Its four registers are taken in
// this order, base, p, then the counters, so that the register allocation,
// and with it the generated file, stays as it was before loopFrom.)
func (s *sorter) loop2(outer, outerStride, inner, innerStride int, body func(p Register)) {
	base, p, co, ci := GP64(), GP64(), GP64(), GP64()
	s.loopFrom(s.x, base, co, outer, outerStride, func(base Register) {
		s.loopFrom(base, p, ci, inner, innerStride, body)
	})
}

// loopFrom emits count iterations of body(p), p stepping by stride bytes
// from from (which it leaves unchanged), c the counter.
func (s *sorter) loopFrom(from, p, c Register, count, stride int, body func(p Register)) {
	MOVQ(from, p)
	MOVQ(U32(count), c)
	l := s.label()
	Label(l)
	body(p)
	ADDQ(U32(stride), p)
	DECQ(c)
	JNZ(LabelRef(l))
}

func cmpx(a, b Register) {
	t := YMM()
	VPMINUD(b, a, t)
	VPMAXUD(b, a, b)
	VMOVDQA(t, a)
}

// stageShuf is an in-vector stage whose partner lanes are given by a
// VPSHUFD immediate (within 128-bit halves); the lanes set in up take the
// maximum.
func (s *sorter) stageShuf(a Register, shuf, up uint8) {
	y, lo := YMM(), YMM()
	VPSHUFD(U8(shuf), a, y)
	VPMINUD(y, a, lo)
	VPMAXUD(y, a, y)
	VPBLENDD(U8(up), y, lo, a)
}

// stagePerm is an in-vector stage with the lane reversal (mirror l^7).
func (s *sorter) stagePerm(a Register, up uint8) {
	y, lo := YMM(), YMM()
	VPERMD(a, s.rev, y)
	VPMINUD(y, a, lo)
	VPMAXUD(y, a, y)
	VPBLENDD(U8(up), y, lo, a)
}

// stageSwap4 is the in-vector stage at distance 4 (the two 128-bit halves).
func (s *sorter) stageSwap4(a Register) {
	y, lo := YMM(), YMM()
	VPERMQ(U8(0x4E), a, y)
	VPMINUD(y, a, lo)
	VPMAXUD(y, a, y)
	VPBLENDD(U8(0xF0), y, lo, a)
}

// lanes3 runs the half-cleaners at distances 4, 2 and 1 inside a vector.
func (s *sorter) lanes3(a Register) {
	s.stageSwap4(a)
	s.stageShuf(a, 0x4E, 0xCC)
	s.stageShuf(a, 0xB1, 0xAA)
}

func (s *sorter) reverse(a Register) { VPERMD(a, s.rev, a) }

// mirrorPass emits the mirror stage of a phase with blocks of bv vectors,
// the half-cleaners at vector distances bv/4 and bv/8 (k of them, k <= 2)
// and, if lanes is set, the in-vector stages. A group is the vectors j +
// t*q (t = 0..3, q = bv/8; here q is not the modulus) of a block's lower
// half and their mirror images bv-1-j-t*q in its upper half: the mirror
// stage compares lower t with upper t (lanes reversed), the stage at
// distance 2q compares t with t+2 within each half and the one at
// distance q t with t+1 (in the upper
// half, the vector further down the block has the larger t).
func (s *sorter) mirrorPass(bv, k int, lanes bool) {
	const vb = 32 // bytes per vector
	switch k {
	case 0: // bv = 2
		s.loop(64, 2*vb, func(p Register) {
			a0, u0 := YMM(), YMM()
			VMOVDQU(Mem{Base: p}, a0)
			VMOVDQU(Mem{Base: p, Disp: vb}, u0)
			s.reverse(u0)
			cmpx(a0, u0)
			s.reverse(u0)
			s.lanes3(a0)
			s.lanes3(u0)
			VMOVDQU(a0, Mem{Base: p})
			VMOVDQU(u0, Mem{Base: p, Disp: vb})
		})
	case 1: // bv = 4
		s.loop(32, 4*vb, func(p Register) {
			a0, a1, u1, u0 := YMM(), YMM(), YMM(), YMM()
			VMOVDQU(Mem{Base: p}, a0)
			VMOVDQU(Mem{Base: p, Disp: vb}, a1)
			VMOVDQU(Mem{Base: p, Disp: 2 * vb}, u1)
			VMOVDQU(Mem{Base: p, Disp: 3 * vb}, u0)
			s.reverse(u0)
			s.reverse(u1)
			cmpx(a0, u0)
			cmpx(a1, u1)
			s.reverse(u0)
			s.reverse(u1)
			cmpx(a0, a1)
			cmpx(u1, u0)
			if lanes {
				for _, v := range []Register{a0, a1, u1, u0} {
					s.lanes3(v)
				}
			}
			VMOVDQU(a0, Mem{Base: p})
			VMOVDQU(a1, Mem{Base: p, Disp: vb})
			VMOVDQU(u1, Mem{Base: p, Disp: 2 * vb})
			VMOVDQU(u0, Mem{Base: p, Disp: 3 * vb})
		})
	default: // bv >= 8: group j + t*q (lower half), bv-1-j-t*q (upper)
		q := bv / 8
		base, lo, hi, co, ci := GP64(), GP64(), GP64(), GP64(), GP64()
		MOVQ(s.x, base)
		MOVQ(U32(128/bv), co)
		lb := s.label()
		Label(lb)
		MOVQ(base, lo)
		LEAQ(Mem{Base: base, Disp: (bv - 1) * vb}, hi)
		MOVQ(U32(q), ci)
		lj := s.label()
		Label(lj)
		var a, u [4]Register
		for t := 0; t < 4; t++ {
			a[t], u[t] = YMM(), YMM()
			VMOVDQU(Mem{Base: lo, Disp: t * q * vb}, a[t])
			VMOVDQU(Mem{Base: hi, Disp: -t * q * vb}, u[t])
			s.reverse(u[t])
			cmpx(a[t], u[t])
			s.reverse(u[t])
		}
		// distance 2q
		cmpx(a[0], a[2])
		cmpx(a[1], a[3])
		cmpx(u[2], u[0])
		cmpx(u[3], u[1])
		// distance q
		cmpx(a[0], a[1])
		cmpx(a[2], a[3])
		cmpx(u[1], u[0])
		cmpx(u[3], u[2])
		for t := 0; t < 4; t++ {
			if lanes {
				s.lanes3(a[t])
				s.lanes3(u[t])
			}
			VMOVDQU(a[t], Mem{Base: lo, Disp: t * q * vb})
			VMOVDQU(u[t], Mem{Base: hi, Disp: -t * q * vb})
		}
		ADDQ(U32(vb), lo)
		SUBQ(U32(vb), hi)
		DECQ(ci)
		JNZ(LabelRef(lj))
		ADDQ(U32(bv*vb), base)
		DECQ(co)
		JNZ(LabelRef(lb))
	}
}

// levelsPass emits the half-cleaners at vector distances e, e/2, ... (k of
// them, k <= 3, e >= 2^(k-1)) and, if lanes is set, the in-vector stages
// after them. A group is the 2^k vectors r + t*e/2^(k-1) of a block of 2e
// vectors (r below that stride): the stage at distance e compares t with
// t + 2^(k-1), the next one t with t + 2^(k-2), and so on.
func (s *sorter) levelsPass(e, k int, lanes bool) {
	const vb = 32
	g := 1 << k       // vectors per group
	d := e >> (k - 1) // distance between them
	s.loop2(128/(2*e), 2*e*vb, d, vb, func(p Register) {
		v := make([]Register, g)
		for t := range v {
			v[t] = YMM()
			VMOVDQU(Mem{Base: p, Disp: t * d * vb}, v[t])
		}
		for h := g / 2; h >= 1; h /= 2 {
			for t := range v {
				if t&h == 0 {
					cmpx(v[t], v[t+h])
				}
			}
		}
		for t := range v {
			if lanes {
				s.lanes3(v[t])
			}
			VMOVDQU(v[t], Mem{Base: p, Disp: t * d * vb})
		}
	})
}
