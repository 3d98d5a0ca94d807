//go:build goexperiment.simd && amd64

package core

import (
	"simd/archsimd"
	"sync"
)

// The length-768 transform of plan768 on 4-lane float64 vectors.
//
// Same operations, same values. Every lane performs exactly the
// floating-point operations the scalar code performs on one value, in the
// same order and with the same constants (the twiddle tables are copied
// from plan768), so the vector transform computes the same numbers as the
// scalar one (TestFFTSIMD compares them) and the error bound of fft.go and
// fftbound_test.go applies unchanged. Complex products are written out as
// Go computes them (re = xr*wr - xi*wi, im = xr*wi + xi*wr); the scalar
// code's multiplications by constants with a zero part (sum*0.5, conj)
// differ from the forms below only in the sign of zero products, which
// changes no value. No fused multiply-add is used.
//
// Layout. A transform is held split: real and imaginary parts in separate
// arrays, value j in lane j%4 of vector j/4. The radix-3 stage and the two
// radix-4 stages of spans 256 and 64 combine values whose indices differ by
// multiples of 4, so lane j%4 meets lane j%4 (each lane with its own
// twiddle). The radix-16 pass (fft16.go) treats the four columns of a block
// differently, so before it each group of four blocks of 16 is transposed:
// lane L of vector i then holds value i of block L, and all four lanes run
// the scalar block code. The spectra the rest of the package keeps are
// complex128 arrays in the scalar order; they are converted on the way in
// and out (a fixed permutation of copies).
//
// Constant time: additions, subtractions, multiplications and lane
// shuffles on normal numbers, the same sequence for every input.

type f64x4 = archsimd.Float64x4

// simdTables holds plan768's twiddles in the split layout.
type simdTables struct {
	twR, twI     [3][64][4]float64 // twist, value 256*t + j at [t][j/4][j%4]
	r3R, r3I     [2][64][4]float64 // radix-3 stage: w1, w2
	r4aR, r4aI   [3][16][4]float64 // radix-4 stage of span 256: w1, w2, w3
	r4bR, r4bI   [3][16][4]float64 // radix-4 stage of span 64 (first 4 used)
	untwR, untwI [3][64][4]float64 // untwist, as twist
}

var fftTables = newSIMDTables(plan768)

func newSIMDTables(pl *fftPlan) *simdTables {
	st := pl.stages
	if pl.m != 768 || len(st) != 3 || !pl.tail16 || st[0].radix != 3 || st[1].span != 256 || st[2].span != 64 {
		panic("core: unexpected plan for the vector transform")
	}
	t := new(simdTables)
	split := func(re, im [][4]float64, w []complex128) {
		for j, z := range w {
			re[j/4][j%4], im[j/4][j%4] = real(z), imag(z)
		}
	}
	for k := range 3 {
		split(t.twR[k][:], t.twI[k][:], pl.twist[256*k:256*k+256])
		split(t.untwR[k][:], t.untwI[k][:], pl.untwist[256*k:256*k+256])
		split(t.r4aR[k][:], t.r4aI[k][:], st[1].tw[k])
		split(t.r4bR[k][:], t.r4bI[k][:], st[2].tw[k])
	}
	for k := range 2 {
		split(t.r3R[k][:], t.r3I[k][:], st[0].tw[k])
	}
	return t
}

// splitSpectrum is a transform in the split layout: before the radix-16
// pass (and after its inverse) value j is lane j%4 of vector j/4; in
// between, value 16*(4g+L)+i is lane L of vector 16g+i.
type splitSpectrum struct{ re, im [192][4]float64 }

func ld(p *[4]float64) f64x4 { return loadF(p) }

// cmulv returns (xr + i xi)(wr + i wi) as Go computes complex products.
func cmulv(xr, xi, wr, wi f64x4) (f64x4, f64x4) {
	return xr.Mul(wr).Sub(xi.Mul(wi)), xr.Mul(wi).Add(xi.Mul(wr))
}

// cmulConjv is cmulConj: (zr + i zi) times the conjugate of w.
func cmulConjv(zr, zi, wr, wi f64x4) (f64x4, f64x4) {
	return zr.Mul(wr).Add(zi.Mul(wi)), zi.Mul(wr).Sub(zr.Mul(wi))
}

// simdScratch holds a transform's working buffers. They come from a pool,
// cleared after every use (they hold secret-derived values), so that the
// transforms neither zero nor clear 30 KB of stack on each call.
type simdScratch struct {
	in   [192][4]float64 // input coefficient j at [j/4][j%4]
	s, t splitSpectrum
	i16  [768]int16
	i8   [800]int8 // padding for the last 16-byte load
}

var simdScratchPool = sync.Pool{New: func() any { return new(simdScratch) }}

// put clears the upper halves of the vector registers, then the transform
// buffers of sc (and the input buffers too if inputs is set), and returns
// sc to the pool. (The clearing comes after clearUpper: the compiler
// clears small arrays with legacy-SSE stores.)
func (sc *simdScratch) put(inputs bool) {
	clearUpper()
	clear(sc.s.re[:])
	clear(sc.s.im[:])
	clear(sc.t.re[:])
	clear(sc.t.im[:])
	if inputs { // public
		clear(sc.in[:])
		clear(sc.i16[:])
		clear(sc.i8[:])
	}
	simdScratchPool.Put(sc)
}

// group returns group g (16 vectors, 64 values) of s.
func group(s *splitSpectrum, g int) (re, im *[16][4]float64) {
	return (*[16][4]float64)(s.re[16*g : 16*g+16]), (*[16][4]float64)(s.im[16*g : 16*g+16])
}

// forward768SIMD is forwardInt(plan768, x, a) for len(a) <= 768.
func forward768SIMD[T int8 | int16 | int32](x *spectrum, a []T) {
	sc := simdScratchPool.Get().(*simdScratch)
	switch b := any(a).(type) {
	case []int8:
		copy(sc.i8[:], b)
		convertSmall(&sc.in, &sc.i8, false)
	case []int16:
		copy(sc.i16[:], b)
		convertRq(&sc.in, &sc.i16)
	default:
		for j, v := range a[:min(len(a), 768)] {
			sc.in[j/4][j%4] = float64(v)
		}
	}
	forwardSplit(&sc.t, &sc.s, &sc.in)
	clearUpper()
	fromSplit(x, &sc.t)
	sc.put(true)
}

// convertSmall sets in to the coefficients of a (768 of them, zero
// padded), times 2^splitShift if scaled (public): 8 values per step,
// sign-extended and converted.
func convertSmall(in *[192][4]float64, a *[800]int8, scaled bool) {
	sv := archsimd.BroadcastFloat64x4(1)
	if scaled {
		sv = archsimd.BroadcastFloat64x4(1 << splitShift)
	}
	for k := range 96 {
		w := loadI8x16((*[16]int8)(a[8*k : 8*k+16])).ExtendLo8ToInt16().ExtendToInt32()
		storeF(w.GetLo().ConvertToFloat64().Mul(sv), &in[2*k])
		storeF(w.GetHi().ConvertToFloat64().Mul(sv), &in[2*k+1])
	}
}

// convertRq sets in to the coefficients of a.
func convertRq(in *[192][4]float64, a *[768]int16) {
	for k := range 96 {
		w := loadI16x8((*[8]int16)(a[8*k : 8*k+8])).ExtendToInt32()
		storeF(w.GetLo().ConvertToFloat64(), &in[2*k])
		storeF(w.GetHi().ConvertToFloat64(), &in[2*k+1])
	}
}

// forwardSplit sets dst to the transform of in, in the transposed layout,
// using s as scratch: the twist and radix-3 stage, the radix-4 stage of
// span 256, then per group the stage of span 64 with the transpose
// (radix4DIFT) and the radix-16 pass.
func forwardSplit(dst, s *splitSpectrum, in *[192][4]float64) {
	tb := fftTables
	twistRadix3SIMD(s, in, tb)
	radix4DIF(s, 16, &tb.r4aR, &tb.r4aI)
	for g := range 12 {
		dre, dim := group(dst, g)
		sre, sim := group(s, g)
		radix4DIFT(dre, dim, sre, sim, tb)
		dif16SIMD(dre, dim)
	}
}

// twistRadix3SIMD is twistRadix3 for m = 768 (butterfly3 written out).
func twistRadix3SIMD(s *splitSpectrum, in *[192][4]float64, tb *simdTables) {
	half, sq := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h)
	for v := range 64 {
		a0, a1, a2 := ld(&in[v]), ld(&in[64+v]), ld(&in[128+v])
		ar, ai := a0.Mul(ld(&tb.twR[0][v])), a0.Mul(ld(&tb.twI[0][v]))
		br, bi := a1.Mul(ld(&tb.twR[1][v])), a1.Mul(ld(&tb.twI[1][v]))
		cr, ci := a2.Mul(ld(&tb.twR[2][v])), a2.Mul(ld(&tb.twI[2][v]))
		// butterfly3(a, b, c, w1, w2)
		sr, si := br.Add(cr), bi.Add(ci)
		dr, di := br.Sub(cr), bi.Sub(ci)
		tr, ti := ar.Sub(sr.Mul(half)), ai.Sub(si.Mul(half))
		// u = -i*(sqrt3/2)*dif = (di*sq, (-dr)*sq); t+u and t-u below
		// subtract and add dr*sq, which is the same value.
		ur, ui := di.Mul(sq), dr.Mul(sq)
		storeF(ar.Add(sr), &s.re[v])
		storeF(ai.Add(si), &s.im[v])
		xr, xi := cmulv(tr.Add(ur), ti.Sub(ui), ld(&tb.r3R[0][v]), ld(&tb.r3I[0][v]))
		storeF(xr, &s.re[64+v])
		storeF(xi, &s.im[64+v])
		xr, xi = cmulv(tr.Sub(ur), ti.Add(ui), ld(&tb.r3R[1][v]), ld(&tb.r3I[1][v]))
		storeF(xr, &s.re[128+v])
		storeF(xi, &s.im[128+v])
	}
}

// radix4DIF is the general radix-4 stage of difFrom with quarter-span q
// (in vectors: qv = q/4), on all blocks of 4q values.
func radix4DIF(s *splitSpectrum, qv int, wR, wI *[3][16][4]float64) {
	for b := 0; b+4*qv <= 192; b += 4 * qv {
		for j := range qv {
			p0, p1, p2, p3 := b+j, b+j+qv, b+j+2*qv, b+j+3*qv
			ar, ai := ld(&s.re[p0]), ld(&s.im[p0])
			br, bi := ld(&s.re[p1]), ld(&s.im[p1])
			cr, ci := ld(&s.re[p2]), ld(&s.im[p2])
			dr, di := ld(&s.re[p3]), ld(&s.im[p3])
			s0r, s0i := ar.Add(cr), ai.Add(ci)
			d0r, d0i := ar.Sub(cr), ai.Sub(ci)
			s1r, s1i := br.Add(dr), bi.Add(di)
			d1r, d1i := br.Sub(dr), bi.Sub(di)
			storeF(s0r.Add(s1r), &s.re[p0])
			storeF(s0i.Add(s1i), &s.im[p0])
			xr, xi := cmulv(d0r.Add(d1i), d0i.Sub(d1r), ld(&wR[0][j]), ld(&wI[0][j]))
			storeF(xr, &s.re[p1])
			storeF(xi, &s.im[p1])
			xr, xi = cmulv(s0r.Sub(s1r), s0i.Sub(s1i), ld(&wR[1][j]), ld(&wI[1][j]))
			storeF(xr, &s.re[p2])
			storeF(xi, &s.im[p2])
			xr, xi = cmulv(d0r.Sub(d1i), d0i.Add(d1r), ld(&wR[2][j]), ld(&wI[2][j]))
			storeF(xr, &s.re[p3])
			storeF(xi, &s.im[p3])
		}
	}
}

// radix4DIT is the general radix-4 stage of ditTo with quarter-span q
// (qv = q/4 vectors).
func radix4DIT(s *splitSpectrum, qv int, wR, wI *[3][16][4]float64) {
	for b := 0; b+4*qv <= 192; b += 4 * qv {
		for j := range qv {
			p0, p1, p2, p3 := b+j, b+j+qv, b+j+2*qv, b+j+3*qv
			ar, ai := ld(&s.re[p0]), ld(&s.im[p0])
			br, bi := cmulConjv(ld(&s.re[p1]), ld(&s.im[p1]), ld(&wR[0][j]), ld(&wI[0][j]))
			cr, ci := cmulConjv(ld(&s.re[p2]), ld(&s.im[p2]), ld(&wR[1][j]), ld(&wI[1][j]))
			dr, di := cmulConjv(ld(&s.re[p3]), ld(&s.im[p3]), ld(&wR[2][j]), ld(&wI[2][j]))
			s0r, s0i := ar.Add(cr), ai.Add(ci)
			d0r, d0i := ar.Sub(cr), ai.Sub(ci)
			s1r, s1i := br.Add(dr), bi.Add(di)
			d1r, d1i := br.Sub(dr), bi.Sub(di)
			storeF(s0r.Add(s1r), &s.re[p0])
			storeF(s0i.Add(s1i), &s.im[p0])
			storeF(d0r.Sub(d1i), &s.re[p1]) // d0 + i*d1
			storeF(d0i.Add(d1r), &s.im[p1])
			storeF(s0r.Sub(s1r), &s.re[p2])
			storeF(s0i.Sub(s1i), &s.im[p2])
			storeF(d0r.Add(d1i), &s.re[p3]) // d0 - i*d1
			storeF(d0i.Sub(d1r), &s.im[p3])
		}
	}
}

// radix4DIFT is the radix-4 stage of span 64 (radix4DIF with qv = 4) on
// one group of 16 vectors (s) fused with the transpose of the group into
// dst: vector 4r+c lane L of dst is vector 4L+r lane c of the stage's
// output. The outputs of butterfly j are vectors j, 4+j, 8+j, 12+j, so one
// 4x4 transpose of them gives vectors 4j..4j+3 of dst.
func radix4DIFT(dre, dim, sre, sim *[16][4]float64, tb *simdTables) {
	for j := range 4 {
		ar, ai := ld(&sre[j]), ld(&sim[j])
		br, bi := ld(&sre[4+j]), ld(&sim[4+j])
		cr, ci := ld(&sre[8+j]), ld(&sim[8+j])
		dr, di := ld(&sre[12+j]), ld(&sim[12+j])
		s0r, s0i := ar.Add(cr), ai.Add(ci)
		d0r, d0i := ar.Sub(cr), ai.Sub(ci)
		s1r, s1i := br.Add(dr), bi.Add(di)
		d1r, d1i := br.Sub(dr), bi.Sub(di)
		x0r, x0i := s0r.Add(s1r), s0i.Add(s1i)
		x1r, x1i := cmulv(d0r.Add(d1i), d0i.Sub(d1r), ld(&tb.r4bR[0][j]), ld(&tb.r4bI[0][j]))
		x2r, x2i := cmulv(s0r.Sub(s1r), s0i.Sub(s1i), ld(&tb.r4bR[1][j]), ld(&tb.r4bI[1][j]))
		x3r, x3i := cmulv(d0r.Sub(d1i), d0i.Add(d1r), ld(&tb.r4bR[2][j]), ld(&tb.r4bI[2][j]))
		c0, c1, c2, c3 := transpose4(x0r, x1r, x2r, x3r)
		storeF(c0, &dre[4*j])
		storeF(c1, &dre[4*j+1])
		storeF(c2, &dre[4*j+2])
		storeF(c3, &dre[4*j+3])
		c0, c1, c2, c3 = transpose4(x0i, x1i, x2i, x3i)
		storeF(c0, &dim[4*j])
		storeF(c1, &dim[4*j+1])
		storeF(c2, &dim[4*j+2])
		storeF(c3, &dim[4*j+3])
	}
}

// untransposeDIT is the inverse of radix4DIFT up to the factor 4: the
// transpose of one group of src back to the split layout fused with the
// radix-4 stage of span 64 of dit (radix4DIT with qv = 4), into dst.
func untransposeDIT(dre, dim, sre, sim *[16][4]float64, tb *simdTables) {
	for j := range 4 {
		ar, br, cr, dr := transpose4(ld(&sre[4*j]), ld(&sre[4*j+1]), ld(&sre[4*j+2]), ld(&sre[4*j+3]))
		ai, bi, ci, di := transpose4(ld(&sim[4*j]), ld(&sim[4*j+1]), ld(&sim[4*j+2]), ld(&sim[4*j+3]))
		br, bi = cmulConjv(br, bi, ld(&tb.r4bR[0][j]), ld(&tb.r4bI[0][j]))
		cr, ci = cmulConjv(cr, ci, ld(&tb.r4bR[1][j]), ld(&tb.r4bI[1][j]))
		dr, di = cmulConjv(dr, di, ld(&tb.r4bR[2][j]), ld(&tb.r4bI[2][j]))
		s0r, s0i := ar.Add(cr), ai.Add(ci)
		d0r, d0i := ar.Sub(cr), ai.Sub(ci)
		s1r, s1i := br.Add(dr), bi.Add(di)
		d1r, d1i := br.Sub(dr), bi.Sub(di)
		storeF(s0r.Add(s1r), &dre[j])
		storeF(s0i.Add(s1i), &dim[j])
		storeF(d0r.Sub(d1i), &dre[4+j]) // d0 + i*d1
		storeF(d0i.Add(d1r), &dim[4+j])
		storeF(s0r.Sub(s1r), &dre[8+j])
		storeF(s0i.Sub(s1i), &dim[8+j])
		storeF(d0r.Add(d1i), &dre[12+j]) // d0 - i*d1
		storeF(d0i.Sub(d1r), &dim[12+j])
	}
}

// transpose4 returns the columns of the 4x4 matrix with rows r0..r3.
func transpose4(r0, r1, r2, r3 f64x4) (f64x4, f64x4, f64x4, f64x4) {
	t0 := pairsLo(r0, r1) // r0[0] r1[0] r0[2] r1[2]
	t1 := pairsHi(r0, r1) // r0[1] r1[1] r0[3] r1[3]
	t2 := pairsLo(r2, r3)
	t3 := pairsHi(r2, r3)
	return halvesLo(t0, t2), halvesLo(t1, t3), halvesHi(t0, t2), halvesHi(t1, t3)
}

// dif4v is dif4 on four lanes.
func dif4v(ar, ai, br, bi, cr, ci, dr, di f64x4) (f64x4, f64x4, f64x4, f64x4, f64x4, f64x4, f64x4, f64x4) {
	s0r, s0i, d0r, d0i := ar.Add(cr), ai.Add(ci), ar.Sub(cr), ai.Sub(ci)
	s1r, s1i, d1r, d1i := br.Add(dr), bi.Add(di), br.Sub(dr), bi.Sub(di)
	// m = -i*d1 = (d1i, -d1r); d0 + m, d0 - m
	return s0r.Add(s1r), s0i.Add(s1i), d0r.Add(d1i), d0i.Sub(d1r), s0r.Sub(s1r), s0i.Sub(s1i), d0r.Sub(d1i), d0i.Add(d1r)
}

// dit4v is dit4 on four lanes.
func dit4v(ar, ai, br, bi, cr, ci, dr, di f64x4) (f64x4, f64x4, f64x4, f64x4, f64x4, f64x4, f64x4, f64x4) {
	s0r, s0i, d0r, d0i := ar.Add(cr), ai.Add(ci), ar.Sub(cr), ai.Sub(ci)
	s1r, s1i, d1r, d1i := br.Add(dr), bi.Add(di), br.Sub(dr), bi.Sub(di)
	return s0r.Add(s1r), s0i.Add(s1i), d0r.Sub(d1i), d0i.Add(d1r), s0r.Sub(s1r), s0i.Sub(s1i), d0r.Add(d1i), d0i.Sub(d1r)
}

// radix16Consts broadcasts the constant twiddles of the radix-16 pass
// (see fft16.go) and -1. (Vectors are never built at package
// initialization, which must not execute AVX instructions.)
func radix16Consts() (c1, s1, h, neg f64x4) {
	return archsimd.BroadcastFloat64x4(cos1), archsimd.BroadcastFloat64x4(sin1),
		archsimd.BroadcastFloat64x4(rt2h), archsimd.BroadcastFloat64x4(-1)
}

// dif16SIMD is dif16 on four blocks at once: lane L of re[i], im[i] is
// value i of block L.
func dif16SIMD(re, im *[16][4]float64) {
	c1, s1, h, neg := radix16Consts()
	// column 0: no twiddles
	r0, i0, r4, i4, r8, i8, r12, i12 := dif4v(ld(&re[0]), ld(&im[0]), ld(&re[4]), ld(&im[4]), ld(&re[8]), ld(&im[8]), ld(&re[12]), ld(&im[12]))
	storeF(r0, &re[0])
	storeF(i0, &im[0])
	storeF(r4, &re[4])
	storeF(i4, &im[4])
	storeF(r8, &re[8])
	storeF(i8, &im[8])
	storeF(r12, &re[12])
	storeF(i12, &im[12])
	// column 1: w, w^2, w^3
	r1, i1, r5, i5, r9, i9, r13, i13 := dif4v(ld(&re[1]), ld(&im[1]), ld(&re[5]), ld(&im[5]), ld(&re[9]), ld(&im[9]), ld(&re[13]), ld(&im[13]))
	storeF(r1, &re[1])
	storeF(i1, &im[1])
	storeF(r5.Mul(c1).Add(i5.Mul(s1)), &re[5]) // mulW1
	storeF(i5.Mul(c1).Sub(r5.Mul(s1)), &im[5])
	storeF(r9.Add(i9).Mul(h), &re[9]) // mulW2
	storeF(i9.Sub(r9).Mul(h), &im[9])
	storeF(r13.Mul(s1).Add(i13.Mul(c1)), &re[13]) // mulW3
	storeF(i13.Mul(s1).Sub(r13.Mul(c1)), &im[13])
	// column 2: w^2, -i, w^6
	r2, i2, r6, i6, r10, i10, r14, i14 := dif4v(ld(&re[2]), ld(&im[2]), ld(&re[6]), ld(&im[6]), ld(&re[10]), ld(&im[10]), ld(&re[14]), ld(&im[14]))
	storeF(r2, &re[2])
	storeF(i2, &im[2])
	storeF(r6.Add(i6).Mul(h), &re[6]) // mulW2
	storeF(i6.Sub(r6).Mul(h), &im[6])
	storeF(i10, &re[10]) // -i*y = (y_i, -y_r)
	storeF(r10.Mul(neg), &im[10])
	storeF(i14.Sub(r14).Mul(h), &re[14]) // mulW6: ((y-x)*h, -(x+y)*h)
	storeF(r14.Add(i14).Mul(neg).Mul(h), &im[14])
	// column 3: w^3, w^6, -w
	r3, i3, r7, i7, r11, i11, r15, i15 := dif4v(ld(&re[3]), ld(&im[3]), ld(&re[7]), ld(&im[7]), ld(&re[11]), ld(&im[11]), ld(&re[15]), ld(&im[15]))
	storeF(r3, &re[3])
	storeF(i3, &im[3])
	storeF(r7.Mul(s1).Add(i7.Mul(c1)), &re[7]) // mulW3
	storeF(i7.Mul(s1).Sub(r7.Mul(c1)), &im[7])
	storeF(i11.Sub(r11).Mul(h), &re[11]) // mulW6
	storeF(r11.Add(i11).Mul(neg).Mul(h), &im[11])
	storeF(r15.Mul(c1).Add(i15.Mul(s1)).Mul(neg), &re[15]) // -mulW1
	storeF(i15.Mul(c1).Sub(r15.Mul(s1)).Mul(neg), &im[15])
	// span-4 stage on each group of four
	for g := 0; g < 16; g += 4 {
		a, b := (*[4][4]float64)(re[g:g+4]), (*[4][4]float64)(im[g:g+4])
		w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dif4v(ld(&a[0]), ld(&b[0]), ld(&a[1]), ld(&b[1]), ld(&a[2]), ld(&b[2]), ld(&a[3]), ld(&b[3]))
		storeF(w0r, &a[0])
		storeF(w0i, &b[0])
		storeF(w1r, &a[1])
		storeF(w1i, &b[1])
		storeF(w2r, &a[2])
		storeF(w2i, &b[2])
		storeF(w3r, &a[3])
		storeF(w3i, &b[3])
	}
}

// dit16SIMD is dit16 on four blocks at once (layout of dif16SIMD).
func dit16SIMD(re, im *[16][4]float64) {
	for g := 0; g < 16; g += 4 {
		a, b := (*[4][4]float64)(re[g:g+4]), (*[4][4]float64)(im[g:g+4])
		w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(ld(&a[0]), ld(&b[0]), ld(&a[1]), ld(&b[1]), ld(&a[2]), ld(&b[2]), ld(&a[3]), ld(&b[3]))
		storeRow(a, b, w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i)
	}
	dit16ColumnsSIMD(re, im)
}

// dit16ProductsSIMD is dit16SIMD of the pointwise products a*b (c nil) or
// a*b + c*d of four groups of transforms in the transposed layout, into
// re, im: the products are formed as the first stage reads them, with
// Go's complex arithmetic written out (cmulv; the real part of a sum is
// the sum of the real parts), as dit16Products forms them.
func dit16ProductsSIMD(re, im *[16][4]float64, a, b, c, d *splitSpectrum, g int) {
	ar, ai := group(a, g)
	br, bi := group(b, g)
	if c == nil { // public
		for k := 0; k < 16; k += 4 {
			x0r, x0i := cmulv(ld(&ar[k]), ld(&ai[k]), ld(&br[k]), ld(&bi[k]))
			x1r, x1i := cmulv(ld(&ar[k+1]), ld(&ai[k+1]), ld(&br[k+1]), ld(&bi[k+1]))
			x2r, x2i := cmulv(ld(&ar[k+2]), ld(&ai[k+2]), ld(&br[k+2]), ld(&bi[k+2]))
			x3r, x3i := cmulv(ld(&ar[k+3]), ld(&ai[k+3]), ld(&br[k+3]), ld(&bi[k+3]))
			w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i)
			storeRow((*[4][4]float64)(re[k:k+4]), (*[4][4]float64)(im[k:k+4]), w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i)
		}
	} else {
		cr, ci := group(c, g)
		dr, di := group(d, g)
		prod := func(j int) (f64x4, f64x4) {
			pr, pi := cmulv(ld(&ar[j]), ld(&ai[j]), ld(&br[j]), ld(&bi[j]))
			qr, qi := cmulv(ld(&cr[j]), ld(&ci[j]), ld(&dr[j]), ld(&di[j]))
			return pr.Add(qr), pi.Add(qi)
		}
		for k := 0; k < 16; k += 4 {
			x0r, x0i := prod(k)
			x1r, x1i := prod(k + 1)
			x2r, x2i := prod(k + 2)
			x3r, x3i := prod(k + 3)
			w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i)
			storeRow((*[4][4]float64)(re[k:k+4]), (*[4][4]float64)(im[k:k+4]), w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i)
		}
	}
	dit16ColumnsSIMD(re, im)
}

// storeRow stores four consecutive vectors of a group.
func storeRow(a, b *[4][4]float64, w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i f64x4) {
	storeF(w0r, &a[0])
	storeF(w0i, &b[0])
	storeF(w1r, &a[1])
	storeF(w1i, &b[1])
	storeF(w2r, &a[2])
	storeF(w2i, &b[2])
	storeF(w3r, &a[3])
	storeF(w3i, &b[3])
}

// dit16ColumnsSIMD is the second stage of dit16SIMD (dit16Columns).
func dit16ColumnsSIMD(re, im *[16][4]float64) {
	c1, s1, h, neg := radix16Consts()
	// column 0
	ar, ai, br, bi, cr, ci, dr, di := dit4v(ld(&re[0]), ld(&im[0]), ld(&re[4]), ld(&im[4]), ld(&re[8]), ld(&im[8]), ld(&re[12]), ld(&im[12]))
	storeColumn(re, im, 0, ar, ai, br, bi, cr, ci, dr, di)
	// column 1: conjugates of w, w^2, w^3
	x, y := ld(&re[5]), ld(&im[5])
	br, bi = x.Mul(c1).Sub(y.Mul(s1)), y.Mul(c1).Add(x.Mul(s1)) // mulW1c
	x, y = ld(&re[9]), ld(&im[9])
	cr, ci = x.Sub(y).Mul(h), x.Add(y).Mul(h) // mulW2c
	x, y = ld(&re[13]), ld(&im[13])
	dr, di = x.Mul(s1).Sub(y.Mul(c1)), y.Mul(s1).Add(x.Mul(c1)) // mulW3c
	ar, ai, br, bi, cr, ci, dr, di = dit4v(ld(&re[1]), ld(&im[1]), br, bi, cr, ci, dr, di)
	storeColumn(re, im, 1, ar, ai, br, bi, cr, ci, dr, di)
	// column 2: conj(w^2), i, conj(w^6)
	x, y = ld(&re[6]), ld(&im[6])
	br, bi = x.Sub(y).Mul(h), x.Add(y).Mul(h) // mulW2c
	x, y = ld(&re[10]), ld(&im[10])
	cr, ci = y.Mul(neg), x // i*z = (-z_i, z_r)
	x, y = ld(&re[14]), ld(&im[14])
	dr, di = x.Add(y).Mul(neg).Mul(h), x.Sub(y).Mul(h) // mulW6c: (-(x+y)*h, (x-y)*h)
	ar, ai, br, bi, cr, ci, dr, di = dit4v(ld(&re[2]), ld(&im[2]), br, bi, cr, ci, dr, di)
	storeColumn(re, im, 2, ar, ai, br, bi, cr, ci, dr, di)
	// column 3: conj(w^3), conj(w^6), -conj(w)
	x, y = ld(&re[7]), ld(&im[7])
	br, bi = x.Mul(s1).Sub(y.Mul(c1)), y.Mul(s1).Add(x.Mul(c1)) // mulW3c
	x, y = ld(&re[11]), ld(&im[11])
	cr, ci = x.Add(y).Mul(neg).Mul(h), x.Sub(y).Mul(h) // mulW6c
	x, y = ld(&re[15]), ld(&im[15])
	dr, di = x.Mul(c1).Sub(y.Mul(s1)).Mul(neg), y.Mul(c1).Add(x.Mul(s1)).Mul(neg) // -mulW1c
	ar, ai, br, bi, cr, ci, dr, di = dit4v(ld(&re[3]), ld(&im[3]), br, bi, cr, ci, dr, di)
	storeColumn(re, im, 3, ar, ai, br, bi, cr, ci, dr, di)
}

// storeColumn stores the values k, k+4, k+8, k+12 of a block group.
func storeColumn(re, im *[16][4]float64, k int, ar, ai, br, bi, cr, ci, dr, di f64x4) {
	storeF(ar, &re[k])
	storeF(ai, &im[k])
	storeF(br, &re[k+4])
	storeF(bi, &im[k+4])
	storeF(cr, &re[k+8])
	storeF(ci, &im[k+8])
	storeF(dr, &re[k+12])
	storeF(di, &im[k+12])
}

// fromSplit writes s (transposed layout) to x in the scalar order: value
// 16*(4g+L)+i is lane L of vector 16g+i.
func fromSplit(x *spectrum, s *splitSpectrum) {
	for g := range 12 {
		re, im := (*[16][4]float64)(s.re[16*g:16*g+16]), (*[16][4]float64)(s.im[16*g:16*g+16])
		xg := (*[64]complex128)(x[64*g : 64*g+64])
		x0, x1 := (*[16]complex128)(xg[0:16]), (*[16]complex128)(xg[16:32])
		x2, x3 := (*[16]complex128)(xg[32:48]), (*[16]complex128)(xg[48:64])
		for i := range 16 {
			r, m := &re[i], &im[i]
			x0[i], x1[i] = complex(r[0], m[0]), complex(r[1], m[1])
			x2[i], x3[i] = complex(r[2], m[2]), complex(r[3], m[3])
		}
	}
}

// toSplit reads x (scalar order) into s in the transposed layout.
func toSplit(s *splitSpectrum, x *spectrum) {
	for g := range 12 {
		re, im := (*[16][4]float64)(s.re[16*g:16*g+16]), (*[16][4]float64)(s.im[16*g:16*g+16])
		xg := (*[64]complex128)(x[64*g : 64*g+64])
		x0, x1 := (*[16]complex128)(xg[0:16]), (*[16]complex128)(xg[16:32])
		x2, x3 := (*[16]complex128)(xg[32:48]), (*[16]complex128)(xg[48:64])
		for i := range 16 {
			r, m := &re[i], &im[i]
			r[0], m[0], r[1], m[1] = real(x0[i]), imag(x0[i]), real(x1[i]), imag(x1[i])
			r[2], m[2], r[3], m[3] = real(x2[i]), imag(x2[i]), real(x3[i]), imag(x3[i])
		}
	}
}

// toSplitProducts is toSplit of the pointwise products a*b (c, d nil) or
// a*b + c*d, formed with Go's complex arithmetic exactly as dit16Products
// forms them.
func toSplitProducts(s *splitSpectrum, a, b, c, d []complex128) {
	a, b = a[:768], b[:768]
	for g := range 12 {
		re, im := (*[16][4]float64)(s.re[16*g:16*g+16]), (*[16][4]float64)(s.im[16*g:16*g+16])
		ag, bg := (*[64]complex128)(a[64*g:64*g+64]), (*[64]complex128)(b[64*g:64*g+64])
		a0, a1 := (*[16]complex128)(ag[0:16]), (*[16]complex128)(ag[16:32])
		a2, a3 := (*[16]complex128)(ag[32:48]), (*[16]complex128)(ag[48:64])
		b0, b1 := (*[16]complex128)(bg[0:16]), (*[16]complex128)(bg[16:32])
		b2, b3 := (*[16]complex128)(bg[32:48]), (*[16]complex128)(bg[48:64])
		if c == nil { // public
			for i := range 16 {
				z0, z1, z2, z3 := a0[i]*b0[i], a1[i]*b1[i], a2[i]*b2[i], a3[i]*b3[i]
				r, m := &re[i], &im[i]
				r[0], m[0], r[1], m[1] = real(z0), imag(z0), real(z1), imag(z1)
				r[2], m[2], r[3], m[3] = real(z2), imag(z2), real(z3), imag(z3)
			}
			continue
		}
		cg, dg := (*[64]complex128)(c[64*g:64*g+64]), (*[64]complex128)(d[64*g:64*g+64])
		c0, c1 := (*[16]complex128)(cg[0:16]), (*[16]complex128)(cg[16:32])
		c2, c3 := (*[16]complex128)(cg[32:48]), (*[16]complex128)(cg[48:64])
		d0, d1 := (*[16]complex128)(dg[0:16]), (*[16]complex128)(dg[16:32])
		d2, d3 := (*[16]complex128)(dg[32:48]), (*[16]complex128)(dg[48:64])
		for i := range 16 {
			z0, z1 := a0[i]*b0[i]+c0[i]*d0[i], a1[i]*b1[i]+c1[i]*d1[i]
			z2, z3 := a2[i]*b2[i]+c2[i]*d2[i], a3[i]*b3[i]+c3[i]*d3[i]
			r, m := &re[i], &im[i]
			r[0], m[0], r[1], m[1] = real(z0), imag(z0), real(z1), imag(z1)
			r[2], m[2], r[3], m[3] = real(z2), imag(z2), real(z3), imag(z3)
		}
	}
}

// inverseProducts768SIMD is plan768.inverseProducts: the inverse transform
// of a*b (c, d nil) or a*b + c*d into out.
func inverseProducts768SIMD(out *[1536]int64, a, b, c, d []complex128) {
	sc := simdScratchPool.Get().(*simdScratch)
	toSplitProducts(&sc.t, a, b, c, d)
	inverseSplit(out, sc)
}

// inverse768SIMD is plan768.inverse(c, x): x is destroyed.
func inverse768SIMD(c *[1536]int64, x *spectrum) {
	sc := simdScratchPool.Get().(*simdScratch)
	toSplit(&sc.t, x)
	inverseSplit(c, sc)
}

// inverseSplit is the inverse transform of sc.t (transposed layout) into
// c; it returns sc to the pool.
func inverseSplit(c *[1536]int64, sc *simdScratch) {
	s, t := &sc.s, &sc.t
	tb := fftTables
	for g := range 12 {
		tre, tim := group(t, g)
		sre, sim := group(s, g)
		dit16SIMD(tre, tim)
		untransposeDIT(sre, sim, tre, tim, tb)
	}
	radix4DIT(s, 16, &tb.r4aR, &tb.r4aI)
	lastInverseSIMD(c, s, tb, nil)
	sc.put(false)
}

// inverseProductsSplit sets y to the exact coefficients (as float64
// integers) of the inverse transform of a*b (c, d nil) or a*b + c*d, all
// in the transposed layout, using s and the group buffer t as scratch.
func inverseProductsSplit(y *[1536]float64, s *splitSpectrum, t *[2][16][4]float64, a, b, c, d *splitSpectrum) {
	tb := fftTables
	for g := range 12 {
		sre, sim := group(s, g)
		dit16ProductsSIMD(&t[0], &t[1], a, b, c, d, g)
		untransposeDIT(sre, sim, &t[0], &t[1], tb)
	}
	radix4DIT(s, 16, &tb.r4aR, &tb.r4aI)
	lastInverseSIMD(nil, s, tb, y)
}

// lastInverseSIMD is lastInverse768: the radix-3 stage of dit, the
// untwist and the rounding, into c (as int64) or, if c is nil, into y
// (as float64 integers: round(v) = (v + 1.5*2^52) - 1.5*2^52, exact for
// |v| < 2^51). roundInt on four lanes is the bits of v + 1.5*2^52 minus
// those of 1.5*2^52.
func lastInverseSIMD(c *[1536]int64, s *splitSpectrum, tb *simdTables, y *[1536]float64) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	magBits := mag.AsInt64x4()
	if c != nil { // public
		for v := range 64 {
			x0r, x0i, x1r, x1i, x2r, x2i := lastButterfly(s, tb, v)
			j := 4 * v
			storeI64s(x0r.Add(mag).AsInt64x4().Sub(magBits), c[j:j+4])
			storeI64s(x0i.Add(mag).AsInt64x4().Sub(magBits), c[768+j:768+j+4])
			storeI64s(x1r.Add(mag).AsInt64x4().Sub(magBits), c[256+j:256+j+4])
			storeI64s(x1i.Add(mag).AsInt64x4().Sub(magBits), c[1024+j:1024+j+4])
			storeI64s(x2r.Add(mag).AsInt64x4().Sub(magBits), c[512+j:512+j+4])
			storeI64s(x2i.Add(mag).AsInt64x4().Sub(magBits), c[1280+j:1280+j+4])
		}
		return
	}
	for v := range 64 {
		x0r, x0i, x1r, x1i, x2r, x2i := lastButterfly(s, tb, v)
		j := 4 * v
		storeF(x0r.Add(mag).Sub(mag), (*[4]float64)(y[j:j+4]))
		storeF(x0i.Add(mag).Sub(mag), (*[4]float64)(y[768+j:768+j+4]))
		storeF(x1r.Add(mag).Sub(mag), (*[4]float64)(y[256+j:256+j+4]))
		storeF(x1i.Add(mag).Sub(mag), (*[4]float64)(y[1024+j:1024+j+4]))
		storeF(x2r.Add(mag).Sub(mag), (*[4]float64)(y[512+j:512+j+4]))
		storeF(x2i.Add(mag).Sub(mag), (*[4]float64)(y[1280+j:1280+j+4]))
	}
}

// lastButterfly is lastStep on vector v of the three thirds of s, before
// the rounding: values v, 256+v and 512+v of the output, real and
// imaginary parts.
func lastButterfly(s *splitSpectrum, tb *simdTables, v int) (x0r, x0i, x1r, x1i, x2r, x2i f64x4) {
	half, sq, neg := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h), archsimd.BroadcastFloat64x4(-1)
	ar, ai := ld(&s.re[v]), ld(&s.im[v])
	br, bi := cmulConjv(ld(&s.re[64+v]), ld(&s.im[64+v]), ld(&tb.r3R[0][v]), ld(&tb.r3I[0][v]))
	dr, di := cmulConjv(ld(&s.re[128+v]), ld(&s.im[128+v]), ld(&tb.r3R[1][v]), ld(&tb.r3I[1][v]))
	sr, si := br.Add(dr), bi.Add(di)
	fr, fi := br.Sub(dr), bi.Sub(di)
	tr, ti := ar.Sub(sr.Mul(half)), ai.Sub(si.Mul(half))
	ur, ui := fi.Mul(neg).Mul(sq), fr.Mul(sq) // u = +i*(sqrt3/2)*dif
	x0r, x0i = cmulv(ar.Add(sr), ai.Add(si), ld(&tb.untwR[0][v]), ld(&tb.untwI[0][v]))
	x1r, x1i = cmulv(tr.Add(ur), ti.Add(ui), ld(&tb.untwR[1][v]), ld(&tb.untwI[1][v]))
	x2r, x2i = cmulv(tr.Sub(ur), ti.Sub(ui), ld(&tb.untwR[2][v]), ld(&tb.untwI[2][v]))
	return
}
