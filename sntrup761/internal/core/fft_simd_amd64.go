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
// complex128 arrays in the scalar order; forward768SIMD, inverse768SIMD and
// inverseProducts768SIMD, which replace the scalar transforms, convert on
// the way in and out (a fixed permutation of copies). The vector paths of
// batch key generation, encryption and decryption (batch_simd_amd64.go,
// kem_simd_amd64.go) keep their transforms in the transposed layout and
// convert only the spectra a key stores or reads.
//
// Code shape. The compiler folds a constant offset from a parameter into a
// vector load or store, but computes every indexed address into a register
// of its own (and spills them). The loop bodies are therefore small
// functions taking pointers to fixed-size windows of the arrays, with the
// twiddles of a step grouped together (simdTables).
//
// Constant time: additions, subtractions, multiplications and lane
// shuffles on normal numbers, the same sequence for every input.

type f64x4 = archsimd.Float64x4

// simdTables holds plan768's twiddles in the split layout, grouped by the
// loop step that uses them, so that a step reads its constants at fixed
// offsets from one pointer (the compiler folds constant offsets into the
// vector loads, but not indexed ones).
type simdTables struct {
	first [64]firstConsts  // twist and radix-3 stage, vector v of each third
	r4a   [16]radix4Consts // radix-4 stage of span 256, vector j of each quarter
	r4b   [4]radix4Consts  // radix-4 stage of span 64
	last  [64]lastConstsV  // radix-3 stage of dit and untwist
}

// firstConsts: twist factors of values 4v+l, 256+4v+l, 512+4v+l and the
// radix-3 twiddles w1, w2 of values 4v+l.
type firstConsts struct {
	twR, twI [3][4]float64
	w3R, w3I [2][4]float64
}

// radix4Consts: the twiddles w1, w2, w3 of a radix-4 stage.
type radix4Consts struct{ wR, wI [3][4]float64 }

// lastConstsV: the radix-3 twiddles (not yet conjugated) and the untwist
// factors of values 4v+l, 256+4v+l, 512+4v+l.
type lastConstsV struct {
	w3R, w3I   [2][4]float64
	untR, untI [3][4]float64
}

var fftTables = newSIMDTables(plan768)

func newSIMDTables(pl *fftPlan) *simdTables {
	st := pl.stages
	if pl.m != 768 || len(st) != 3 || !pl.tail16 || st[0].radix != 3 || st[1].span != 256 || st[2].span != 64 {
		panic("core: unexpected plan for the vector transform")
	}
	t := new(simdTables)
	// put sets re, im (vector v's lanes) to w[4v..4v+3].
	put := func(re, im *[4]float64, w []complex128, v int) {
		for l := range 4 {
			re[l], im[l] = real(w[4*v+l]), imag(w[4*v+l])
		}
	}
	for v := range 64 {
		f, l := &t.first[v], &t.last[v]
		for k := range 3 {
			put(&f.twR[k], &f.twI[k], pl.twist[256*k:], v)
			put(&l.untR[k], &l.untI[k], pl.untwist[256*k:], v)
		}
		for k := range 2 {
			put(&f.w3R[k], &f.w3I[k], st[0].tw[k], v)
			put(&l.w3R[k], &l.w3I[k], st[0].tw[k], v)
		}
	}
	for k := range 3 {
		for j := range 16 {
			put(&t.r4a[j].wR[k], &t.r4a[j].wI[k], st[1].tw[k], j)
		}
		for j := range 4 {
			put(&t.r4b[j].wR[k], &t.r4b[j].wI[k], st[2].tw[k], j)
		}
	}
	return t
}

// splitSpectrum is a transform in the split layout: before the radix-16
// pass (and after its inverse) value j is lane j%4 of vector j/4; in
// between, value 16*(4g+L)+i is lane L of vector 16g+i.
type splitSpectrum struct{ re, im [192][4]float64 }

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
	radix4DIF256(s, tb)
	for g := range 12 {
		dre, dim := group(dst, g)
		sre, sim := group(s, g)
		radix4DIFT(dre, dim, sre, sim, tb)
		dif16SIMD(dre, dim)
	}
}

// twistRadix3SIMD is twistRadix3 for m = 768 (butterfly3 written out).
// Step v reads input vectors v, 64+v, 128+v and writes the same vectors of
// s.
func twistRadix3SIMD(s *splitSpectrum, in *[192][4]float64, tb *simdTables) {
	for v := range 64 {
		twistStep(&tb.first[v], (*[129][4]float64)(in[v:v+129]),
			(*[129][4]float64)(s.re[v:v+129]), (*[129][4]float64)(s.im[v:v+129]))
	}
}

// twistStep is one step of twistRadix3SIMD. It is a function of its own so
// that every load and store addresses a parameter plus a constant, which
// the compiler folds into the instruction (in a loop body it computes each
// address into a register of its own, and spills them).
//
//go:noinline
func twistStep(k *firstConsts, x, re, im *[129][4]float64) {
	half, sq := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h)
	a0, a1, a2 := loadF(&x[0]), loadF(&x[64]), loadF(&x[128])
	ar, ai := a0.Mul(loadF(&k.twR[0])), a0.Mul(loadF(&k.twI[0]))
	br, bi := a1.Mul(loadF(&k.twR[1])), a1.Mul(loadF(&k.twI[1]))
	cr, ci := a2.Mul(loadF(&k.twR[2])), a2.Mul(loadF(&k.twI[2]))
	// butterfly3(a, b, c, w1, w2)
	sr, si := br.Add(cr), bi.Add(ci)
	dr, di := br.Sub(cr), bi.Sub(ci)
	tr, ti := ar.Sub(sr.Mul(half)), ai.Sub(si.Mul(half))
	// u = -i*(sqrt3/2)*dif = (di*sq, (-dr)*sq); t+u and t-u below
	// subtract and add dr*sq, which is the same value.
	ur, ui := di.Mul(sq), dr.Mul(sq)
	storeF(ar.Add(sr), &re[0])
	storeF(ai.Add(si), &im[0])
	xr, xi := cmulv(tr.Add(ur), ti.Sub(ui), loadF(&k.w3R[0]), loadF(&k.w3I[0]))
	storeF(xr, &re[64])
	storeF(xi, &im[64])
	xr, xi = cmulv(tr.Sub(ur), ti.Add(ui), loadF(&k.w3R[1]), loadF(&k.w3I[1]))
	storeF(xr, &re[128])
	storeF(xi, &im[128])
}

// radix4DIF256 is the radix-4 stage of difFrom of span 256 (quarter-span
// 16 vectors), on the three blocks of 64 vectors.
func radix4DIF256(s *splitSpectrum, tb *simdTables) {
	for o := 0; o < 192; o += 64 {
		for j := range 16 {
			dif4Step(&tb.r4a[j], (*[49][4]float64)(s.re[o+j:o+j+49]), (*[49][4]float64)(s.im[o+j:o+j+49]))
		}
	}
}

// dif4Step is one butterfly of radix4DIF256, on vectors 0, 16, 32, 48 of
// re and im. (The steps of the vector loops are functions of their own so
// that every load and store addresses a parameter plus a constant, which
// the compiler folds into the instruction; in a loop body it computes each
// address into a register of its own, and spills them.)
//
//go:noinline
func dif4Step(k *radix4Consts, re, im *[49][4]float64) {
	ar, ai := loadF(&re[0]), loadF(&im[0])
	br, bi := loadF(&re[16]), loadF(&im[16])
	cr, ci := loadF(&re[32]), loadF(&im[32])
	dr, di := loadF(&re[48]), loadF(&im[48])
	s0r, s0i := ar.Add(cr), ai.Add(ci)
	d0r, d0i := ar.Sub(cr), ai.Sub(ci)
	s1r, s1i := br.Add(dr), bi.Add(di)
	d1r, d1i := br.Sub(dr), bi.Sub(di)
	storeF(s0r.Add(s1r), &re[0])
	storeF(s0i.Add(s1i), &im[0])
	xr, xi := cmulv(d0r.Add(d1i), d0i.Sub(d1r), loadF(&k.wR[0]), loadF(&k.wI[0]))
	storeF(xr, &re[16])
	storeF(xi, &im[16])
	xr, xi = cmulv(s0r.Sub(s1r), s0i.Sub(s1i), loadF(&k.wR[1]), loadF(&k.wI[1]))
	storeF(xr, &re[32])
	storeF(xi, &im[32])
	xr, xi = cmulv(d0r.Sub(d1i), d0i.Add(d1r), loadF(&k.wR[2]), loadF(&k.wI[2]))
	storeF(xr, &re[48])
	storeF(xi, &im[48])
}

// radix4DIT256 is the radix-4 stage of ditTo of span 256.
func radix4DIT256(s *splitSpectrum, tb *simdTables) {
	for o := 0; o < 192; o += 64 {
		for j := range 16 {
			dit4Step(&tb.r4a[j], (*[49][4]float64)(s.re[o+j:o+j+49]), (*[49][4]float64)(s.im[o+j:o+j+49]))
		}
	}
}

// dit4Step is one butterfly of radix4DIT256.
//
//go:noinline
func dit4Step(k *radix4Consts, re, im *[49][4]float64) {
	ar, ai := loadF(&re[0]), loadF(&im[0])
	br, bi := cmulConjv(loadF(&re[16]), loadF(&im[16]), loadF(&k.wR[0]), loadF(&k.wI[0]))
	cr, ci := cmulConjv(loadF(&re[32]), loadF(&im[32]), loadF(&k.wR[1]), loadF(&k.wI[1]))
	dr, di := cmulConjv(loadF(&re[48]), loadF(&im[48]), loadF(&k.wR[2]), loadF(&k.wI[2]))
	s0r, s0i := ar.Add(cr), ai.Add(ci)
	d0r, d0i := ar.Sub(cr), ai.Sub(ci)
	s1r, s1i := br.Add(dr), bi.Add(di)
	d1r, d1i := br.Sub(dr), bi.Sub(di)
	storeF(s0r.Add(s1r), &re[0])
	storeF(s0i.Add(s1i), &im[0])
	storeF(d0r.Sub(d1i), &re[16]) // d0 + i*d1
	storeF(d0i.Add(d1r), &im[16])
	storeF(s0r.Sub(s1r), &re[32])
	storeF(s0i.Sub(s1i), &im[32])
	storeF(d0r.Add(d1i), &re[48]) // d0 - i*d1
	storeF(d0i.Sub(d1r), &im[48])
}

// radix4DIFT is the radix-4 stage of span 64 (quarter-span 4 vectors) on
// one group of 16 vectors (s) fused with the transpose of the group into
// dst: vector 4r+c lane L of dst is vector 4L+r lane c of the stage's
// output. The outputs of butterfly j are vectors j, 4+j, 8+j, 12+j, so one
// 4x4 transpose of them gives vectors 4j..4j+3 of dst.
func radix4DIFT(dre, dim, sre, sim *[16][4]float64, tb *simdTables) {
	for j := range 4 {
		difTStep(&tb.r4b[j], (*[4][4]float64)(dre[4*j:4*j+4]), (*[4][4]float64)(dim[4*j:4*j+4]),
			(*[13][4]float64)(sre[j:j+13]), (*[13][4]float64)(sim[j:j+13]))
	}
}

// difTStep is butterfly j of radix4DIFT: vectors 0, 4, 8, 12 of re, im in,
// the transposed outputs to ore, oim.
//
//go:noinline
func difTStep(k *radix4Consts, ore, oim *[4][4]float64, re, im *[13][4]float64) {
	ar, ai := loadF(&re[0]), loadF(&im[0])
	br, bi := loadF(&re[4]), loadF(&im[4])
	cr, ci := loadF(&re[8]), loadF(&im[8])
	dr, di := loadF(&re[12]), loadF(&im[12])
	s0r, s0i := ar.Add(cr), ai.Add(ci)
	d0r, d0i := ar.Sub(cr), ai.Sub(ci)
	s1r, s1i := br.Add(dr), bi.Add(di)
	d1r, d1i := br.Sub(dr), bi.Sub(di)
	x0r, x0i := s0r.Add(s1r), s0i.Add(s1i)
	x1r, x1i := cmulv(d0r.Add(d1i), d0i.Sub(d1r), loadF(&k.wR[0]), loadF(&k.wI[0]))
	x2r, x2i := cmulv(s0r.Sub(s1r), s0i.Sub(s1i), loadF(&k.wR[1]), loadF(&k.wI[1]))
	x3r, x3i := cmulv(d0r.Sub(d1i), d0i.Add(d1r), loadF(&k.wR[2]), loadF(&k.wI[2]))
	c0, c1, c2, c3 := transpose4(x0r, x1r, x2r, x3r)
	storeF(c0, &ore[0])
	storeF(c1, &ore[1])
	storeF(c2, &ore[2])
	storeF(c3, &ore[3])
	c0, c1, c2, c3 = transpose4(x0i, x1i, x2i, x3i)
	storeF(c0, &oim[0])
	storeF(c1, &oim[1])
	storeF(c2, &oim[2])
	storeF(c3, &oim[3])
}

// untransposeDIT is the inverse of radix4DIFT up to the factor 4: the
// transpose of one group of src back to the split layout fused with the
// radix-4 stage of span 64 of dit, into dst.
func untransposeDIT(dre, dim, sre, sim *[16][4]float64, tb *simdTables) {
	for j := range 4 {
		ditTStep(&tb.r4b[j], (*[13][4]float64)(dre[j:j+13]), (*[13][4]float64)(dim[j:j+13]),
			(*[4][4]float64)(sre[4*j:4*j+4]), (*[4][4]float64)(sim[4*j:4*j+4]))
	}
}

// ditTStep is butterfly j of untransposeDIT.
//
//go:noinline
func ditTStep(k *radix4Consts, re, im *[13][4]float64, ire, iim *[4][4]float64) {
	ar, br, cr, dr := transpose4(loadF(&ire[0]), loadF(&ire[1]), loadF(&ire[2]), loadF(&ire[3]))
	ai, bi, ci, di := transpose4(loadF(&iim[0]), loadF(&iim[1]), loadF(&iim[2]), loadF(&iim[3]))
	br, bi = cmulConjv(br, bi, loadF(&k.wR[0]), loadF(&k.wI[0]))
	cr, ci = cmulConjv(cr, ci, loadF(&k.wR[1]), loadF(&k.wI[1]))
	dr, di = cmulConjv(dr, di, loadF(&k.wR[2]), loadF(&k.wI[2]))
	s0r, s0i := ar.Add(cr), ai.Add(ci)
	d0r, d0i := ar.Sub(cr), ai.Sub(ci)
	s1r, s1i := br.Add(dr), bi.Add(di)
	d1r, d1i := br.Sub(dr), bi.Sub(di)
	storeF(s0r.Add(s1r), &re[0])
	storeF(s0i.Add(s1i), &im[0])
	storeF(d0r.Sub(d1i), &re[4]) // d0 + i*d1
	storeF(d0i.Add(d1r), &im[4])
	storeF(s0r.Sub(s1r), &re[8])
	storeF(s0i.Sub(s1i), &im[8])
	storeF(d0r.Add(d1i), &re[12]) // d0 - i*d1
	storeF(d0i.Sub(d1r), &im[12])
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
	r0, i0, r4, i4, r8, i8, r12, i12 := dif4v(loadF(&re[0]), loadF(&im[0]), loadF(&re[4]), loadF(&im[4]), loadF(&re[8]), loadF(&im[8]), loadF(&re[12]), loadF(&im[12]))
	storeF(r0, &re[0])
	storeF(i0, &im[0])
	storeF(r4, &re[4])
	storeF(i4, &im[4])
	storeF(r8, &re[8])
	storeF(i8, &im[8])
	storeF(r12, &re[12])
	storeF(i12, &im[12])
	// column 1: w, w^2, w^3
	r1, i1, r5, i5, r9, i9, r13, i13 := dif4v(loadF(&re[1]), loadF(&im[1]), loadF(&re[5]), loadF(&im[5]), loadF(&re[9]), loadF(&im[9]), loadF(&re[13]), loadF(&im[13]))
	storeF(r1, &re[1])
	storeF(i1, &im[1])
	storeF(r5.Mul(c1).Add(i5.Mul(s1)), &re[5]) // mulW1
	storeF(i5.Mul(c1).Sub(r5.Mul(s1)), &im[5])
	storeF(r9.Add(i9).Mul(h), &re[9]) // mulW2
	storeF(i9.Sub(r9).Mul(h), &im[9])
	storeF(r13.Mul(s1).Add(i13.Mul(c1)), &re[13]) // mulW3
	storeF(i13.Mul(s1).Sub(r13.Mul(c1)), &im[13])
	// column 2: w^2, -i, w^6
	r2, i2, r6, i6, r10, i10, r14, i14 := dif4v(loadF(&re[2]), loadF(&im[2]), loadF(&re[6]), loadF(&im[6]), loadF(&re[10]), loadF(&im[10]), loadF(&re[14]), loadF(&im[14]))
	storeF(r2, &re[2])
	storeF(i2, &im[2])
	storeF(r6.Add(i6).Mul(h), &re[6]) // mulW2
	storeF(i6.Sub(r6).Mul(h), &im[6])
	storeF(i10, &re[10]) // -i*y = (y_i, -y_r)
	storeF(r10.Mul(neg), &im[10])
	storeF(i14.Sub(r14).Mul(h), &re[14]) // mulW6: ((y-x)*h, -(x+y)*h)
	storeF(r14.Add(i14).Mul(neg).Mul(h), &im[14])
	// column 3: w^3, w^6, -w
	r3, i3, r7, i7, r11, i11, r15, i15 := dif4v(loadF(&re[3]), loadF(&im[3]), loadF(&re[7]), loadF(&im[7]), loadF(&re[11]), loadF(&im[11]), loadF(&re[15]), loadF(&im[15]))
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
		w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dif4v(loadF(&a[0]), loadF(&b[0]), loadF(&a[1]), loadF(&b[1]), loadF(&a[2]), loadF(&b[2]), loadF(&a[3]), loadF(&b[3]))
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
		w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(loadF(&a[0]), loadF(&b[0]), loadF(&a[1]), loadF(&b[1]), loadF(&a[2]), loadF(&b[2]), loadF(&a[3]), loadF(&b[3]))
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
			x0r, x0i := cmulv(loadF(&ar[k]), loadF(&ai[k]), loadF(&br[k]), loadF(&bi[k]))
			x1r, x1i := cmulv(loadF(&ar[k+1]), loadF(&ai[k+1]), loadF(&br[k+1]), loadF(&bi[k+1]))
			x2r, x2i := cmulv(loadF(&ar[k+2]), loadF(&ai[k+2]), loadF(&br[k+2]), loadF(&bi[k+2]))
			x3r, x3i := cmulv(loadF(&ar[k+3]), loadF(&ai[k+3]), loadF(&br[k+3]), loadF(&bi[k+3]))
			w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i := dit4v(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i)
			storeRow((*[4][4]float64)(re[k:k+4]), (*[4][4]float64)(im[k:k+4]), w0r, w0i, w1r, w1i, w2r, w2i, w3r, w3i)
		}
	} else {
		cr, ci := group(c, g)
		dr, di := group(d, g)
		prod := func(j int) (f64x4, f64x4) {
			pr, pi := cmulv(loadF(&ar[j]), loadF(&ai[j]), loadF(&br[j]), loadF(&bi[j]))
			qr, qi := cmulv(loadF(&cr[j]), loadF(&ci[j]), loadF(&dr[j]), loadF(&di[j]))
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
	ar, ai, br, bi, cr, ci, dr, di := dit4v(loadF(&re[0]), loadF(&im[0]), loadF(&re[4]), loadF(&im[4]), loadF(&re[8]), loadF(&im[8]), loadF(&re[12]), loadF(&im[12]))
	storeColumn(re, im, 0, ar, ai, br, bi, cr, ci, dr, di)
	// column 1: conjugates of w, w^2, w^3
	x, y := loadF(&re[5]), loadF(&im[5])
	br, bi = x.Mul(c1).Sub(y.Mul(s1)), y.Mul(c1).Add(x.Mul(s1)) // mulW1c
	x, y = loadF(&re[9]), loadF(&im[9])
	cr, ci = x.Sub(y).Mul(h), x.Add(y).Mul(h) // mulW2c
	x, y = loadF(&re[13]), loadF(&im[13])
	dr, di = x.Mul(s1).Sub(y.Mul(c1)), y.Mul(s1).Add(x.Mul(c1)) // mulW3c
	ar, ai, br, bi, cr, ci, dr, di = dit4v(loadF(&re[1]), loadF(&im[1]), br, bi, cr, ci, dr, di)
	storeColumn(re, im, 1, ar, ai, br, bi, cr, ci, dr, di)
	// column 2: conj(w^2), i, conj(w^6)
	x, y = loadF(&re[6]), loadF(&im[6])
	br, bi = x.Sub(y).Mul(h), x.Add(y).Mul(h) // mulW2c
	x, y = loadF(&re[10]), loadF(&im[10])
	cr, ci = y.Mul(neg), x // i*z = (-z_i, z_r)
	x, y = loadF(&re[14]), loadF(&im[14])
	dr, di = x.Add(y).Mul(neg).Mul(h), x.Sub(y).Mul(h) // mulW6c: (-(x+y)*h, (x-y)*h)
	ar, ai, br, bi, cr, ci, dr, di = dit4v(loadF(&re[2]), loadF(&im[2]), br, bi, cr, ci, dr, di)
	storeColumn(re, im, 2, ar, ai, br, bi, cr, ci, dr, di)
	// column 3: conj(w^3), conj(w^6), -conj(w)
	x, y = loadF(&re[7]), loadF(&im[7])
	br, bi = x.Mul(s1).Sub(y.Mul(c1)), y.Mul(s1).Add(x.Mul(c1)) // mulW3c
	x, y = loadF(&re[11]), loadF(&im[11])
	cr, ci = x.Add(y).Mul(neg).Mul(h), x.Sub(y).Mul(h) // mulW6c
	x, y = loadF(&re[15]), loadF(&im[15])
	dr, di = x.Mul(c1).Sub(y.Mul(s1)).Mul(neg), y.Mul(c1).Add(x.Mul(s1)).Mul(neg) // -mulW1c
	ar, ai, br, bi, cr, ci, dr, di = dit4v(loadF(&re[3]), loadF(&im[3]), br, bi, cr, ci, dr, di)
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
	radix4DIT256(s, tb)
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
	radix4DIT256(s, tb)
	lastInverseSIMD(nil, s, tb, y)
}

// lastInverseSIMD is lastInverse768: the radix-3 stage of dit, the
// untwist and the rounding, into c (as int64) or, if c is nil, into y
// (as float64 integers: round(v) = (v + 1.5*2^52) - 1.5*2^52, exact for
// |v| < 2^51). roundInt on four lanes is the bits of v + 1.5*2^52 minus
// those of 1.5*2^52. Step v writes outputs 4v+l of the thirds t = 0, 1, 2:
// real parts at 256t, imaginary parts at 768+256t.
func lastInverseSIMD(c *[1536]int64, s *splitSpectrum, tb *simdTables, y *[1536]float64) {
	for v := range 64 {
		re, im := (*[129][4]float64)(s.re[v:v+129]), (*[129][4]float64)(s.im[v:v+129])
		if c != nil { // public
			lastStepInt(&tb.last[v], re, im, (*[1284]int64)(c[4*v:4*v+1284]))
		} else {
			lastStepFloat(&tb.last[v], re, im, (*[1284]float64)(y[4*v:4*v+1284]))
		}
	}
}

// lastButterfly is lastStep on vectors 0, 64, 128 of re, im, before the
// rounding.
func lastButterfly(k *lastConstsV, re, im *[129][4]float64) (x0r, x0i, x1r, x1i, x2r, x2i f64x4) {
	half, sq, neg := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(sqrt3h), archsimd.BroadcastFloat64x4(-1)
	ar, ai := loadF(&re[0]), loadF(&im[0])
	br, bi := cmulConjv(loadF(&re[64]), loadF(&im[64]), loadF(&k.w3R[0]), loadF(&k.w3I[0]))
	dr, di := cmulConjv(loadF(&re[128]), loadF(&im[128]), loadF(&k.w3R[1]), loadF(&k.w3I[1]))
	sr, si := br.Add(dr), bi.Add(di)
	fr, fi := br.Sub(dr), bi.Sub(di)
	tr, ti := ar.Sub(sr.Mul(half)), ai.Sub(si.Mul(half))
	ur, ui := fi.Mul(neg).Mul(sq), fr.Mul(sq) // u = +i*(sqrt3/2)*dif
	x0r, x0i = cmulv(ar.Add(sr), ai.Add(si), loadF(&k.untR[0]), loadF(&k.untI[0]))
	x1r, x1i = cmulv(tr.Add(ur), ti.Add(ui), loadF(&k.untR[1]), loadF(&k.untI[1]))
	x2r, x2i = cmulv(tr.Sub(ur), ti.Sub(ui), loadF(&k.untR[2]), loadF(&k.untI[2]))
	return
}

// lastStepInt is one step of lastInverseSIMD into int64 outputs.
//
//go:noinline
func lastStepInt(k *lastConstsV, re, im *[129][4]float64, o *[1284]int64) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	magBits := mag.AsInt64x4()
	x0r, x0i, x1r, x1i, x2r, x2i := lastButterfly(k, re, im)
	storeI64(x0r.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[0:4]))
	storeI64(x0i.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[768:772]))
	storeI64(x1r.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[256:260]))
	storeI64(x1i.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[1024:1028]))
	storeI64(x2r.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[512:516]))
	storeI64(x2i.Add(mag).AsInt64x4().Sub(magBits), (*[4]int64)(o[1280:1284]))
}

// lastStepFloat is one step of lastInverseSIMD into float64 outputs.
//
//go:noinline
func lastStepFloat(k *lastConstsV, re, im *[129][4]float64, o *[1284]float64) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	x0r, x0i, x1r, x1i, x2r, x2i := lastButterfly(k, re, im)
	storeF(x0r.Add(mag).Sub(mag), (*[4]float64)(o[0:4]))
	storeF(x0i.Add(mag).Sub(mag), (*[4]float64)(o[768:772]))
	storeF(x1r.Add(mag).Sub(mag), (*[4]float64)(o[256:260]))
	storeF(x1i.Add(mag).Sub(mag), (*[4]float64)(o[1024:1028]))
	storeF(x2r.Add(mag).Sub(mag), (*[4]float64)(o[512:516]))
	storeF(x2i.Add(mag).Sub(mag), (*[4]float64)(o[1280:1284]))
}
