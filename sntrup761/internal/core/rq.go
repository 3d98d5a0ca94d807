package core

// Arithmetic in R/q = Z_q[x]/(x^p - x - 1) and R/3, on top of the exact FFT
// product. Elements of R/q are [P]int16 with coefficients in [-Q12, Q12];
// small elements are [P]int8 with coefficients in {-1, 0, 1} (decoded secret
// keys may also carry 2, which is multiplied as the integer 2, exactly as the
// reference code does).

import "sync"

// Barrett constants for freezeQ: for 0 <= y < 2^40, (y*barM)>>40 is
// floor(y/Q) or one less.
const barM = (1 << 40) / Q

// freezeQ returns x mod q in [-Q12, Q12] for |x| < 2^34 (y*barM stays
// below 2^63). Constant time: multiply, shift and a masked correction.
func freezeQ(x int64) int16 {
	y := x + Q12 + Q<<22 // positive and below 2^35.1
	t := (y * barM) >> 40
	r := y - t*Q // in [0, 2Q)
	r -= Q
	r += (r >> 63) & Q
	return int16(r - Q12)
}

// freezeQ26 returns x mod q in [-Q12, Q12] for |x| < 2^26, as
// x - Q*round(x/Q): the rounded quotient is computed as (x*m + 2^39) >> 40
// with m = round(2^40/Q), whose error (< 2^-15) is far below the distance
// 1/(2Q) of x/Q from any half-integer (Q is odd). Constant time.
func freezeQ26(x int32) int32 {
	const m = ((1 << 40) + Q/2) / Q
	t := (int64(x)*m + 1<<39) >> 40
	return x - int32(t)*Q
}

// freeze3 returns x mod 3 in {-1, 0, 1} for |x| < 2^24.
func freeze3(x int64) int8 {
	y := x + 1 + 3<<24 // positive and below 2^26
	t := (y * ((1 << 30) / 3)) >> 30
	r := y - 3*t // in [0, 6)
	r -= 3
	r += (r >> 63) & 3
	return int8(r - 1)
}

// plan768 returns the plan that multiplies elements of R/q and R/3:
// 2*768 >= 2P-1. It is built on first use, as are the package's other
// tables (fftPlans, rqCodec and roundedCodec, r3Tables, rem682Rows): a
// program that links the package without calling it, as every program
// with one of the SSH methods does through the hybrid engine, builds
// none of them at start-up (sntrup761's TestInitBuildsNoTables). The
// tables are public constants; no secret decides when they are built.
var plan768 = sync.OnceValue(func() *fftPlan { return newFFTPlan(768) })

// spectrum is the transform of one ring element.
type spectrum [768]complex128

// transformRq sets s to the transform of a.
func (s *spectrum) transformRq(a *[P]int16) { forwardInt(plan768(), s[:], a[:]) }

// transformSmall sets s to the transform of a small element.
func (s *spectrum) transformSmall(a *[P]int8) { forwardInt(plan768(), s[:], a[:]) }

// inverseOfProduct sets c to the linear product of the polynomials with
// spectra sa and sb, using z as scratch (z may be sa or sb).
func inverseOfProduct(c *[2 * 768]int64, z, sa, sb *spectrum) {
	plan768().inverseProducts(c[:], z[:], sa[:], sb[:], nil, nil)
}

// mulRq sets out = a*b in R/q, where sa and sb are their spectra, using z
// as scratch (z may be sa or sb, which is then destroyed).
func mulRq(out *[P]int16, z, sa, sb *spectrum) {
	var c [2 * 768]int64
	inverseOfProduct(&c, z, sa, sb)
	foldRq(out, &c)
}

// foldRq sets out = c mod (x^p-x-1, q) for a linear product c.
func foldRq(out *[P]int16, c *[2 * 768]int64) {
	if asmEnabled {
		foldRqAVX2(out, c)
		out[0] = freezeQ(c[0] + c[P])
		out[P-1] = freezeQ(c[P-1] + c[2*P-2])
		return
	}
	foldRqScaled(out, c, 1)
}

// foldRqScaled sets out = k*c mod (x^p-x-1, q) for a linear product c
// (k*|c| folded below 2^34 / 3).
func foldRqScaled(out *[P]int16, c *[2 * 768]int64, k int64) {
	lo, hi, hm := foldParts(c)
	o := out[1 : P-1]
	o = o[:len(lo)]
	for i, v := range lo {
		o[i] = freezeQ(k * (v + hi[i] + hm[i]))
	}
	out[0] = freezeQ(k * (c[0] + c[P]))
	out[P-1] = freezeQ(k * (c[P-1] + c[2*P-2]))
}

// mulRounded sets R to the digits of Rounded_encode(Round(a*b)) for a*b in
// R/q (spectra sa, sb; z scratch as for mulRq): R_i = (Round(y_i) + Q12)/3,
// where Round takes y_i in [-Q12, Q12] to the nearest multiple of 3. Since
// 3 divides Q12, that is floor((y_i + Q12 + 1)/3), computed as a
// multiplication by 10923/2^15 (exact for 0 < v <= Q: the excess
// v*(10923/2^15 - 1/3) stays below 0.05).
func mulRounded(R *[P]uint32, z, sa, sb *spectrum) {
	var c [2 * 768]int64
	inverseOfProduct(&c, z, sa, sb)
	foldRound(R, &c)
}

// foldRound sets R to the digits of Rounded_encode(Round(c)) for c
// reduced modulo (x^p-x-1, q) (see mulRounded).
func foldRound(R *[P]uint32, c *[2 * 768]int64) {
	digit := func(v int64) uint32 { return (uint32(int32(freezeQ(v))+Q12+1) * 10923) >> 15 }
	if asmEnabled {
		foldRoundAVX2(R, c)
		R[0] = digit(c[0] + c[P])
		R[P-1] = digit(c[P-1] + c[2*P-2])
		return
	}
	lo, hi, hm := foldParts(c)
	o := R[1 : P-1]
	o = o[:len(lo)]
	for i, v := range lo {
		o[i] = digit(v + hi[i] + hm[i])
	}
	R[0] = digit(c[0] + c[P])
	R[P-1] = digit(c[P-1] + c[2*P-2])
}

// mulLift3 sets e = 3*a*b in R/q, lifted to R/3 (coefficients in [-Q12,
// Q12] reduced mod 3), as decryption needs (spectra sa, sb; z scratch as
// for mulRq).
func mulLift3(e *[P]int8, z, sa, sb *spectrum) {
	var c [2 * 768]int64
	inverseOfProduct(&c, z, sa, sb)
	foldLift3(e, &c)
}

// foldLift3 sets e = 3*c reduced modulo (x^p-x-1, q) and lifted to R/3
// (see mulLift3).
func foldLift3(e *[P]int8, c *[2 * 768]int64) {
	if asmEnabled {
		foldLift3AVX2(e, c)
		e[0] = freeze3(int64(freezeQ(3 * (c[0] + c[P]))))
		e[P-1] = freeze3(int64(freezeQ(3 * (c[P-1] + c[2*P-2]))))
		return
	}
	lo, hi, hm := foldParts(c)
	o := e[1 : P-1]
	o = o[:len(lo)]
	for i, v := range lo {
		o[i] = freeze3(int64(freezeQ(3 * (v + hi[i] + hm[i]))))
	}
	e[0] = freeze3(int64(freezeQ(3 * (c[0] + c[P]))))
	e[P-1] = freeze3(int64(freezeQ(3 * (c[P-1] + c[2*P-2]))))
}

// mulR3 sets out = a*b in R/3 (spectra sa, sb; z scratch as for mulRq).
func mulR3(out *[P]int8, z, sa, sb *spectrum) {
	var c [2 * 768]int64
	inverseOfProduct(&c, z, sa, sb)
	foldR3(out, &c)
}

// foldR3 sets out = c mod (x^p-x-1, 3) for a linear product c.
func foldR3(out *[P]int8, c *[2 * 768]int64) {
	if asmEnabled {
		foldR3AVX2(out, c)
		out[0] = freeze3(c[0] + c[P])
		out[P-1] = freeze3(c[P-1] + c[2*P-2])
		return
	}
	lo, hi, hm := foldParts(c)
	o := out[1 : P-1]
	o = o[:len(lo)]
	for i, v := range lo {
		o[i] = freeze3(v + hi[i] + hm[i])
	}
	out[0] = freeze3(c[0] + c[P])
	out[P-1] = freeze3(c[P-1] + c[2*P-2])
}

// foldParts returns the three slices whose sums are coefficients 1..p-2 of
// the linear product c (len >= 2p-1) reduced modulo x^p - x - 1: since
// x^(p+k) = x^(k+1) + x^k, coefficient p+k of c adds to coefficients k and
// k+1, so coefficient i is c_i + c_(p+i) + c_(p+i-1). Coefficients 0
// (c_0 + c_p) and p-1 (c_(p-1) + c_(2p-2)) have only two terms each. The
// result is at most three times the largest |c_i|.
func foldParts(c *[2 * 768]int64) (lo, hi, hm []int64) {
	lo, hi, hm = c[1:P-1], c[P+1:2*P-1], c[P:2*P-2]
	return lo, hi[:len(lo)], hm[:len(lo)]
}

// splitShift separates two products summed in one inverse transform, as
// batch key generation (batch.go) uses it: y = lo + 2^splitShift*hi, where
// lo is a linear product of an R/q element (|coefficients| <= Q12) and a
// small one with coefficients in {-1, 0, 1}, so |lo_i| <= P*Q12, and hi is
// an integer polynomial. Reduced modulo x^p - x - 1 (three terms per
// coefficient, see foldParts) lo stays below 3*P*Q12 < 2^23 =
// 2^(splitShift-1) in absolute value, so the centered residue of a folded
// coefficient of y modulo 2^splitShift is that of lo exactly. For the
// products batch.go forms (hi a product of two small elements, |hi_i| <=
// P), |y_i| < 2^34; their FFT error bounds are in fftbound_test.go.
const splitShift = 24

// scaleSplit multiplies s by 2^splitShift (exact: a power of two), as
// batch key generation scales the R/3 part of a split product.
func (s *spectrum) scaleSplit() {
	if asmEnabled {
		scaleSplitAVX2((*[768]complex128)(s))
		return
	}
	for j := range s {
		s[j] *= 1 << splitShift
	}
}

// addSplit sets s = lo + 2^splitShift*hi (one rounding per value, by the
// addition; the scaling is exact), the spectrum of a split operand.
func (s *spectrum) addSplit(lo, hi *spectrum) {
	if asmEnabled {
		addSplitAVX2((*[768]complex128)(s), (*[768]complex128)(lo), (*[768]complex128)(hi))
		return
	}
	for j := range s {
		s[j] = lo[j] + hi[j]*(1<<splitShift)
	}
}

// mulSplit computes the linear product y = a*b + c*d from spectra (c and d
// nil: y = a*b; z scratch as for mulRq), reduces it modulo x^p - x - 1,
// splits each coefficient as lo + 2^splitShift*hi (see splitShift for the
// bound lo must meet), and sets rq = k*lo in R/q (k = 1 or 3) and r3 = hi in
// R/3. Constant time: the split is shifts and masks.
func mulSplit(rq *[P]int16, r3 *[P]int8, k int64, z, a, b, c, d *spectrum) {
	var y [2 * 768]int64
	var cs, ds []complex128
	if c != nil {
		cs, ds = c[:], d[:]
	}
	plan768().inverseProducts(y[:], z[:], a[:], b[:], cs, ds)
	foldSplit(rq, r3, k, &y)
}

// foldSplit is the split of mulSplit: it reduces the linear product y
// modulo x^p - x - 1 and sets rq = k*lo in R/q (k = 1 or 3) and r3 = hi in
// R/3 for each coefficient lo + 2^splitShift*hi (|coefficients| < 2^34).
// On the assembly path foldSplit1AVX2 and foldSplit3AVX2 compute
// coefficients 1..p-2. Constant time: shifts and masks.
func foldSplit(rq *[P]int16, r3 *[P]int8, k int64, y *[2 * 768]int64) {
	const half = 1 << (splitShift - 1)
	split := func(v int64) (int16, int8) {
		l := (v+half)&(1<<splitShift-1) - half // centered residue
		return freezeQ(k * l), freeze3((v - l) >> splitShift)
	}
	if asmEnabled && (k == 1 || k == 3) { // k is public
		if k == 1 {
			foldSplit1AVX2(rq, r3, y)
		} else {
			foldSplit3AVX2(rq, r3, y)
		}
		rq[0], r3[0] = split(y[0] + y[P])
		rq[P-1], r3[P-1] = split(y[P-1] + y[2*P-2])
		return
	}
	lo, hi, hm := foldParts(y)
	o, o3 := rq[1:P-1], r3[1:P-1]
	o, o3 = o[:len(lo)], o3[:len(lo)]
	for i, v := range lo {
		o[i], o3[i] = split(v + hi[i] + hm[i])
	}
	rq[0], r3[0] = split(y[0] + y[P])
	rq[P-1], r3[P-1] = split(y[P-1] + y[2*P-2])
}

// forwardInt is fftPlan.forward for any integer coefficient type.
func forwardInt[T int8 | int16 | int32](pl *fftPlan, x []complex128, a []T) {
	m := pl.m
	x = x[:m]
	if len(a) <= m { // public length: real inputs only
		if asmEnabled && m == 768 {
			twistRadix3Asm(pl, x, a)
		} else {
			twistRadix3(pl, x, a)
		}
		pl.difFrom(x, 1)
		return
	}
	twistRadix3Complex(pl, x, a)
	pl.difFrom(x, 1)
}

// twistRadix3Complex is twistRadix3 for m < len(a) <= 2m: value j is
// a_j + i*a_(j+m), times the twist factor.
func twistRadix3Complex[T int8 | int16 | int32](pl *fftPlan, x []complex128, a []T) {
	st, q := pl.firstRadix3()
	re, im := a[:pl.m], a[pl.m:]
	x0, x1, x2 := x[:q], x[q:2*q], x[2*q:3*q]
	t0, t1, t2 := pl.twist[:q], pl.twist[q:2*q], pl.twist[2*q:3*q]
	w1, w2 := st.tw[0][:q], st.tw[1][:q]
	for j := range x0 {
		i0, i1, i2 := coefAt(im, j), coefAt(im, j+q), coefAt(im, j+2*q)
		p := complex(float64(re[j]), i0) * t0[j]
		b := complex(float64(re[j+q]), i1) * t1[j]
		c := complex(float64(re[j+2*q]), i2) * t2[j]
		x0[j], x1[j], x2[j] = butterfly3(p, b, c, w1[j], w2[j])
	}
}

// twistRadix3 is the twist of forwardInt for a real input a (len(a) <= m)
// fused with the first, radix-3 stage of dif: each butterfly reads its three
// coefficients straight from a, so x is written once.
func twistRadix3[T int8 | int16 | int32](pl *fftPlan, x []complex128, a []T) {
	st, q := pl.firstRadix3()
	x0, x1, x2 := x[:q], x[q:2*q], x[2*q:3*q]
	t0, t1, t2 := pl.twist[:q], pl.twist[q:2*q], pl.twist[2*q:3*q]
	w1, w2 := st.tw[0][:q], st.tw[1][:q]
	for j := range x0 {
		a0, a1, a2 := coefAt(a, j), coefAt(a, j+q), coefAt(a, j+2*q)
		p, b, c := t0[j], t1[j], t2[j]
		p = complex(a0*real(p), a0*imag(p))
		b = complex(a1*real(b), a1*imag(b))
		c = complex(a2*real(c), a2*imag(c))
		x0[j], x1[j], x2[j] = butterfly3(p, b, c, w1[j], w2[j])
	}
}

// coefAt returns a[i] as a float64, or 0 for i past len(a): the
// coefficients past the input are zero. The test is on the public length
// and index, never on a coefficient.
func coefAt[T int8 | int16 | int32](a []T, i int) float64 {
	if i < len(a) {
		return float64(a[i])
	}
	return 0
}
