package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const (
	p     = 761
	q12   = (q - 1) / 2
	steps = 2*p - 1
	barM  = (1 << 40) / q // freezeQ's Barrett constant (../rq.go)
	// shoupM is ceil(2^42/q): for 0 < n < 2^29, (n*shoupM)>>42 = n/q
	// rounded down, since the excess n*(shoupM - 2^42/q)/2^42 < 2^-13 is
	// below 1/q, the least distance from n/q up to the next integer.
	shoupM = (1<<42 + q - 1) / q
)

// recipRqSteps generates recipRqStepsAVX2: the 2p-1 divsteps of
// recipRqAVX2 (../asm_amd64.go, which explains the representation and the
// bounds) in one call: per step
// the scalars f0, g0 (reduced with freezeQ), the swap mask and delta, the
// multipliers and their Shoup companions, then the two block updates (divstepLoop)
// on (f, g) and (x*v, r).
//
// Constant time: the step loop runs 2p-1 times; the block counts and the
// windows g = gs[s:], v = vs[steps-s-1:] depend on the step counter s
// only; f0, g0, delta and the swap are secret and only ever go through
// arithmetic, shifts and masks (freezeQ is a Barrett reduction by
// multiplication, the Shoup companion a multiplication by shoupM and a
// shift, no DIV; IMUL's latency does not depend on its operands), never
// into a branch or an address.
func recipRqSteps(q16 Mem) {
	kernel("recipRqStepsAVX2", "func(f, r *[768]int16, gs, vs *[2289]int16) int32",
		"recipRqStepsAVX2 runs the 2p-1 divsteps of recipRqAVX2 on f, r and",
		"the windows of gs and vs and returns delta. Constant time in all of them.")
	args := loadArgs("f", "r", "gs", "vs")
	f, r, gs, vs := args[0], args[1], args[2], args[3]

	qv := YMM()
	VPBROADCASTW(q16, qv)
	delta, s := GP64(), GP64()
	MOVQ(U32(1), delta)
	XORQ(s, s)

	Label("step")
	// The windows: g = gs[s:], v = vs[steps-s-1:] (public offsets).
	g, v := GP64(), GP64()
	LEAQ(Mem{Base: gs, Index: s, Scale: 2}, g)
	MOVQ(U32(steps-1), v)
	SUBQ(s, v)
	LEAQ(Mem{Base: vs, Index: v, Scale: 2}, v)

	// f0, g0 reduced; swap = negMask(-delta) & nzMask(g0).
	f0 := freezeQ(Mem{Base: f})
	g0 := freezeQ(Mem{Base: g})
	swap, t := GP64(), GP64()
	MOVQ(delta, swap)
	NEGQ(swap)
	SARQ(U8(63), swap) // -delta < 0 (delta is small, so 64-bit = 32-bit sign)
	MOVQ(g0, t)
	NEGQ(t)
	ORQ(g0, t)
	SARQ(U8(63), t) // -1 iff g0 != 0
	ANDQ(t, swap)
	// delta = swap ? -delta : delta, then delta + 1.
	MOVQ(delta, t)
	NEGQ(t)
	XORQ(delta, t)
	ANDQ(swap, t)
	XORQ(t, delta)
	INCQ(delta)
	// Multipliers: (f0 ^ swap) - swap and (g0 ^ swap) - swap.
	XORQ(swap, f0)
	SUBQ(swap, f0)
	XORQ(swap, g0)
	SUBQ(swap, g0)
	ca, cah := shoupBroadcast(f0)
	cb, cbh := shoupBroadcast(g0)
	sw := YMM()
	VMOVQ(swap, sw.AsX())
	VPBROADCASTW(sw.AsX(), sw)

	// Block counts (public): nfg = min(steps-s, p+1) and nvr = min(s+2,
	// p+1), rounded up to 64 coefficients, in units of 64.
	nfg, nvr, lim := GP64(), GP64(), GP64()
	MOVQ(U32(p+1), lim)
	MOVQ(U32(steps), nfg)
	SUBQ(s, nfg)
	CMPQ(nfg, lim)
	CMOVQGT(lim, nfg)
	ADDQ(U8(63), nfg)
	SHRQ(U8(6), nfg)
	LEAQ(Mem{Base: s, Disp: 2}, nvr)
	CMPQ(nvr, lim)
	CMOVQGT(lim, nvr)
	ADDQ(U8(63), nvr)
	SHRQ(U8(6), nvr)

	k := [5]VecVirtual{ca, cah, cb, cbh, sw}
	fp, rp := GP64(), GP64() // the loops move their pointers
	MOVQ(f, fp)
	MOVQ(r, rp)
	divstepLoop("fg", fp, g, nfg, k, qv)
	divstepLoop("vr", v, rp, nvr, k, qv)

	INCQ(s)
	CMPQ(s, U32(steps))
	JNE(LabelRef("step"))

	Store(delta.As32(), ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// freezeQ loads the int16 at m and returns it reduced mod q into
// [-q12, q12] (freezeQ of ../rq.go: Barrett by multiplication, then a
// masked correction).
func freezeQ(m Mem) GPVirtual {
	y, t := GP64(), GP64()
	MOVQ(U64(q12+q<<22), t)
	MOVWQSX(m, y)
	ADDQ(t, y) // positive, below 2^35.1
	IMUL3Q(U32(barM), y, t)
	SHRQ(U8(40), t)
	IMUL3Q(U32(q), t, t)
	SUBQ(t, y) // in [0, 2q)
	SUBQ(U32(q), y)
	MOVQ(y, t)
	SARQ(U8(63), t)
	ANDQ(U32(q), t)
	ADDQ(t, y)
	SUBQ(U32(q12), y)
	return y
}

// shoupBroadcast broadcasts c (|c| <= q12, in a 64-bit register) and its
// Shoup companion round(c*2^16/q) = ((c+q)*2^16 + q/2)/q - 2^16 to every
// int16 lane (the division by q is the multiplication by shoupM and the
// shift; TestShoupCompanion in ../asm_amd64_test.go checks every c).
func shoupBroadcast(c Register) (VecVirtual, VecVirtual) {
	n, m := GP64(), GP64()
	LEAQ(Mem{Base: c, Disp: q}, n)
	SHLQ(U8(16), n)
	ADDQ(U32(q/2), n) // below 2^29
	MOVQ(U64(shoupM), m)
	IMULQ(m, n)
	SHRQ(U8(42), n)
	SUBQ(U32(1<<16), n)
	cv, hv := YMM(), YMM()
	VMOVQ(c, cv.AsX())
	VPBROADCASTW(cv.AsX(), cv)
	VMOVQ(n, hv.AsX())
	VPBROADCASTW(hv.AsX(), hv)
	return cv, hv
}

// divstepLoop emits a block loop of one divstep (labels prefixed by name): n >= 1 blocks of 64 coefficients of x and y, with k = ca, cah,
// cb, cbh, sw broadcast. x, y and n are clobbered.
func divstepLoop(name string, x, y, n Register, k [5]VecVirtual, qv VecVirtual) {
	ca, cah, cb, cbh, sw := k[0], k[1], k[2], k[3], k[4]
	Label(name)
	for b := 0; b < 4; b++ {
		divstepVec(Mem{Base: x, Disp: 32 * b}, Mem{Base: y, Disp: 32 * b}, ca, cah, cb, cbh, sw, qv)
	}
	ADDQ(U32(128), x)
	ADDQ(U32(128), y)
	DECQ(n)
	JNZ(LabelRef(name))
}
