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
	in   [768]float64
	s, t splitSpectrum
	i16  [768]int16
	i8   [776]int8 // 8 bytes of padding for the last 16-byte load
}

var simdScratchPool = sync.Pool{New: func() any { return new(simdScratch) }}

// put clears the transform buffers of sc (and the input buffers too if
// inputs is set) and returns it to the pool. It runs after clearUpper: the
// compiler clears memory with legacy-SSE stores.
func (sc *simdScratch) put(inputs bool) {
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

// forward768SIMD is forwardInt(plan768, x, a) for len(a) <= 768.
func forward768SIMD[T int8 | int16 | int32](x *spectrum, a []T) {
	sc := simdScratchPool.Get().(*simdScratch)
	switch b := any(a).(type) {
	case []int8:
		copy(sc.i8[:], b)
		for k := range 96 { // 8 values per step: sign-extend, convert
			w := loadI8x16((*[16]int8)(sc.i8[8*k : 8*k+16])).ExtendLo8ToInt16().ExtendToInt32()
			storeF(w.GetLo().ConvertToFloat64(), (*[4]float64)(sc.in[8*k:8*k+4]))
			storeF(w.GetHi().ConvertToFloat64(), (*[4]float64)(sc.in[8*k+4:8*k+8]))
		}
	case []int16:
		copy(sc.i16[:], b)
		for k := range 96 {
			w := loadI16x8((*[8]int16)(sc.i16[8*k : 8*k+8])).ExtendToInt32()
			storeF(w.GetLo().ConvertToFloat64(), (*[4]float64)(sc.in[8*k:8*k+4]))
			storeF(w.GetHi().ConvertToFloat64(), (*[4]float64)(sc.in[8*k+4:8*k+8]))
		}
	default:
		for j, v := range a[:min(len(a), 768)] {
			sc.in[j] = float64(v)
		}
	}
	s, t := &sc.s, &sc.t
	tb := fftTables
	twistRadix3SIMD(s, &sc.in, tb)
	radix4DIF(s, 16, &tb.r4aR, &tb.r4aI)
	radix4DIF(s, 4, &tb.r4bR, &tb.r4bI)
	transposeGroups(t, s)
	for g := range 12 {
		dif16SIMD((*[16][4]float64)(t.re[16*g:16*g+16]), (*[16][4]float64)(t.im[16*g:16*g+16]))
	}
	clearUpper()
	fromSplit(x, t)
	sc.put(true)
}

// twistRadix3SIMD is twistRadix3 for m = 768 (butterfly3 written out).
func twistRadix3SIMD(s *splitSpectrum, in *[768]float64, tb *simdTables) {
	half, sq := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h)
	for v := range 64 {
		a0 := ld((*[4]float64)(in[4*v : 4*v+4]))
		a1 := ld((*[4]float64)(in[256+4*v : 256+4*v+4]))
		a2 := ld((*[4]float64)(in[512+4*v : 512+4*v+4]))
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

// transposeGroups writes src (split layout) to dst in the transposed
// layout: in each group of 16 vectors, vector 4r+c lane L of dst is vector
// 4L+r lane c of src (a 4x4 transpose for each r); untransposeGroups is
// its inverse.
func transposeGroups(dst, src *splitSpectrum) {
	for g := range 12 {
		transpose16((*[16][4]float64)(dst.re[16*g:16*g+16]), (*[16][4]float64)(src.re[16*g:16*g+16]))
		transpose16((*[16][4]float64)(dst.im[16*g:16*g+16]), (*[16][4]float64)(src.im[16*g:16*g+16]))
	}
}

func untransposeGroups(dst, src *splitSpectrum) {
	for g := range 12 {
		untranspose16((*[16][4]float64)(dst.re[16*g:16*g+16]), (*[16][4]float64)(src.re[16*g:16*g+16]))
		untranspose16((*[16][4]float64)(dst.im[16*g:16*g+16]), (*[16][4]float64)(src.im[16*g:16*g+16]))
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

func transpose16(dst, src *[16][4]float64) {
	for r := range 4 {
		c0, c1, c2, c3 := transpose4(ld(&src[r]), ld(&src[4+r]), ld(&src[8+r]), ld(&src[12+r]))
		storeF(c0, &dst[4*r])
		storeF(c1, &dst[4*r+1])
		storeF(c2, &dst[4*r+2])
		storeF(c3, &dst[4*r+3])
	}
}

func untranspose16(dst, src *[16][4]float64) {
	for r := range 4 {
		c0, c1, c2, c3 := transpose4(ld(&src[4*r]), ld(&src[4*r+1]), ld(&src[4*r+2]), ld(&src[4*r+3]))
		storeF(c0, &dst[r])
		storeF(c1, &dst[4+r])
		storeF(c2, &dst[8+r])
		storeF(c3, &dst[12+r])
	}
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
	c1, s1, h, neg := radix16Consts()
	for g := 0; g < 16; g += 4 {
		a, b := (*[4][4]float64)(re[g:g+4]), (*[4][4]float64)(im[g:g+4])
		w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(ld(&a[0]), ld(&b[0]), ld(&a[1]), ld(&b[1]), ld(&a[2]), ld(&b[2]), ld(&a[3]), ld(&b[3]))
		storeF(w0r, &a[0])
		storeF(w0i, &b[0])
		storeF(w1r, &a[1])
		storeF(w1i, &b[1])
		storeF(w2r, &a[2])
		storeF(w2i, &b[2])
		storeF(w3r, &a[3])
		storeF(w3i, &b[3])
	}
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
		dit16SIMD((*[16][4]float64)(t.re[16*g:16*g+16]), (*[16][4]float64)(t.im[16*g:16*g+16]))
	}
	untransposeGroups(s, t)
	radix4DIT(s, 4, &tb.r4bR, &tb.r4bI)
	radix4DIT(s, 16, &tb.r4aR, &tb.r4aI)
	lastInverseSIMD(c, s, tb)
	clearUpper()
	sc.put(false)
}

// lastInverseSIMD is lastInverse768: the radix-3 stage of dit, the
// untwist and the rounding.
func lastInverseSIMD(c *[1536]int64, s *splitSpectrum, tb *simdTables) {
	half, sq, neg := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h), archsimd.BroadcastFloat64x4(-1)
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	magBits := mag.AsInt64x4()
	// roundInt on four lanes: the bits of v + 1.5*2^52 minus those of
	// 1.5*2^52, stored to dst.
	round := func(v f64x4, dst []int64) {
		storeI64s(v.Add(mag).AsInt64x4().Sub(magBits), dst)
	}
	for v := range 64 {
		ar, ai := ld(&s.re[v]), ld(&s.im[v])
		br, bi := cmulConjv(ld(&s.re[64+v]), ld(&s.im[64+v]), ld(&tb.r3R[0][v]), ld(&tb.r3I[0][v]))
		dr, di := cmulConjv(ld(&s.re[128+v]), ld(&s.im[128+v]), ld(&tb.r3R[1][v]), ld(&tb.r3I[1][v]))
		sr, si := br.Add(dr), bi.Add(di)
		fr, fi := br.Sub(dr), bi.Sub(di)
		tr, ti := ar.Sub(sr.Mul(half)), ai.Sub(si.Mul(half))
		ur, ui := fi.Mul(neg).Mul(sq), fr.Mul(sq) // u = +i*(sqrt3/2)*dif
		j := 4 * v
		xr, xi := cmulv(ar.Add(sr), ai.Add(si), ld(&tb.untwR[0][v]), ld(&tb.untwI[0][v]))
		round(xr, c[j:j+4])
		round(xi, c[768+j:768+j+4])
		xr, xi = cmulv(tr.Add(ur), ti.Add(ui), ld(&tb.untwR[1][v]), ld(&tb.untwI[1][v]))
		round(xr, c[256+j:256+j+4])
		round(xi, c[1024+j:1024+j+4])
		xr, xi = cmulv(tr.Sub(ur), ti.Sub(ui), ld(&tb.untwR[2][v]), ld(&tb.untwI[2][v]))
		round(xr, c[512+j:512+j+4])
		round(xi, c[1280+j:1280+j+4])
	}
}
