package core

// Exact integer polynomial multiplication with a float64 FFT.
//
// A product of two integer polynomials a, b modulo x^(2m) + 1 is computed
// with a "right-angle" convolution: since x^(2m)+1 = (x^m - i)(x^m + i) and a
// real polynomial's residue mod x^m + i is the conjugate of its residue mod
// x^m - i, the residue mod x^m - i, sum_j (a_j + i a_(j+m)) x^j, carries all
// the information. Substituting x = psi*y with psi^m = i turns that residue
// ring into C[y]/(y^m - 1), where multiplication is a cyclic convolution done
// by a length-m complex FFT. Linear products of length-761 polynomials use
// m = 768 (2m = 1536 >= 1521 output coefficients), so no wrap-around occurs.
//
// Exactness: rounding each output to the nearest integer gives the exact
// product when the floating-point error of every output is below 1/2.
// fftbound_test.go derives a rigorous bound for this transform as
// implemented (an L2 error recurrence over its radix-3, radix-2, radix-4
// and radix-16 stages, the twist, the pointwise products or sums of two
// products, and the untwist, with the representation error of every stored
// twiddle measured against 320-bit values) and evaluates it for every
// product the package computes: the largest bound is 0.004 for the
// inversion's sums of two products of 762-term R/q polynomials at m = 768
// (0.011 for two full 1536-term operands), more than 40 times below 1/2;
// TestFFTErrorBound fails if any site's margin drops below 16.
// TestFFTRoundingSearch checks the bound against structured and
// adversarially searched inputs (largest error seen: about 10^-5).
//
// Constant time: the FFT is a fixed sequence of floating-point additions and
// multiplications on normal numbers (there are no divisions, square roots or
// subnormal values), and rounding uses the 1.5*2^52 addition trick instead of
// math.Round, so timing does not depend on the (possibly secret) inputs.

import (
	"math"
)

// fftPlan holds the twiddle factors of a complex FFT of length m = 3*2^k.
// The forward transform is a decimation-in-frequency FFT whose output is in
// a permuted ("digit-reversed") order; pointwise products do not care, and
// the inverse, a decimation-in-time FFT run over the same stages backwards,
// undoes the permutation.
type fftPlan struct {
	m      int
	stages []fftStage
	// tail16 is set when the last two stages (radix 4, spans 16 and 4)
	// are left out of stages and run as dif16 / dit16.
	tail16 bool
	// last[j] holds the constants of inverseLast's step j: the conjugated
	// radix-3 twiddles and the three untwist factors.
	last []lastConsts
	// twist[j] = psi^j and untwist[j] = psi^-j / m, psi = exp(i*pi/(2m)).
	twist, untwist []complex128
	// last768 is last as an array (m = 768 only), for the assembly path's
	// lastInverse768AVX2.
	last768 *[256][5]complex128
}

type fftStage struct {
	radix int
	span  int            // block size handled by one butterfly group
	tw    [][]complex128 // tw[t-1][j] = exp(-2*pi*i*j*t/span), t = 1..radix-1
}

func newFFTPlan(m int) *fftPlan {
	pl := &fftPlan{m: m}
	span := m
	addStage := func(r int) {
		st := fftStage{radix: r, span: span}
		q := span / r
		for t := 1; t < r; t++ {
			w := make([]complex128, q)
			for j := range w {
				w[j] = expi(-2 * math.Pi * float64(j*t) / float64(span))
			}
			st.tw = append(st.tw, w)
		}
		pl.stages = append(pl.stages, st)
		span = q
	}
	if span%3 == 0 {
		addStage(3)
	}
	// A radix-2 stage, when needed, goes first so that the last stage is
	// the twiddle-free radix-4 one.
	for k := span; k%4 == 0; k /= 4 {
		if k/4 == 2 {
			addStage(2)
			break
		}
	}
	if span == 2 {
		addStage(2)
	}
	for span%4 == 0 {
		addStage(4)
	}
	if span != 1 {
		panic("core: unsupported FFT length")
	}
	if n := len(pl.stages); n >= 2 && pl.stages[n-1].span == 4 && pl.stages[n-2].span == 16 &&
		pl.stages[n-2].radix == 4 && n > 2 {
		pl.stages = pl.stages[:n-2]
		pl.tail16 = true
	}
	pl.twist = make([]complex128, m)
	pl.untwist = make([]complex128, m)
	for j := range m {
		a := math.Pi * float64(j) / float64(2*m)
		pl.twist[j] = expi(a)
		pl.untwist[j] = expi(-a) / complex(float64(m), 0)
	}
	if st := pl.stages[0]; st.radix == 3 {
		q := m / 3
		for j := range q {
			pl.last = append(pl.last, lastConsts{conj(st.tw[0][j]), conj(st.tw[1][j]),
				pl.untwist[j], pl.untwist[j+q], pl.untwist[j+2*q]})
		}
	}
	if m == 768 && len(pl.last) == 256 {
		pl.last768 = new([256][5]complex128)
		for j, k := range pl.last {
			pl.last768[j] = [5]complex128{k.w1, k.w2, k.u0, k.u1, k.u2}
		}
	}
	return pl
}

func expi(a float64) complex128 { return complex(math.Cos(a), math.Sin(a)) }

// sqrt3h is sqrt(3)/2.
const sqrt3h = 0.86602540378443864676372317075293618347140262690519

// roundMagic is 1.5*2^52: adding it to |v| < 2^51 leaves round(v) in the low
// mantissa bits, with no branches (math.Round branches on the exponent).
const roundMagic = 6755399441055744.0

func roundInt(v float64) int64 {
	return int64(math.Float64bits(v+roundMagic)) - int64(math.Float64bits(roundMagic))
}

// inverse transforms x back (destroying it) and writes the 2m exact integer
// coefficients of the product modulo x^(2m)+1 into c[:2m] (len(c) >= 2m).
//
// The last stage of dit (radix 3), the untwist and the rounding are one
// pass: coefficients j and j+m come from the same value.
func (pl *fftPlan) inverse(c []int64, x []complex128) {
	pl.ditTo(x[:pl.m], 1)
	pl.inverseLast(c, x)
}

// inverseProducts is inverse of the pointwise products z = a*b + c*d (c and
// d nil: z = a*b), formed as the first stage reads them; z is scratch.
func (pl *fftPlan) inverseProducts(out []int64, z, a, b, c, d []complex128) {
	if !pl.tail16 {
		panic("core: inverseProducts needs a plan with the radix-16 pass")
	}
	z = z[:pl.m]
	dit16Products(z, a, b, c, d)
	for si := len(pl.stages) - 1; si >= 1; si-- {
		pl.ditStage(z, si)
	}
	pl.inverseLast(out, z)
}

// inverseLast is the last pass of inverse: the first stage (radix 3), the
// untwist and the rounding.
func (pl *fftPlan) inverseLast(c []int64, x []complex128) {
	m := pl.m
	x = x[:m]
	c = c[:2*m]
	if m == 768 {
		pl.lastInverse768((*[768]complex128)(x), (*[1536]int64)(c))
		return
	}
	_, q := pl.firstRadix3()
	x0, x1, x2 := x[:q], x[q:2*q], x[2*q:3*q]
	k := pl.last[:q]
	c0, c1, c2 := c[:q], c[q:2*q], c[2*q:3*q]
	h0, h1, h2 := c[m:m+q], c[m+q:m+2*q], c[m+2*q:m+3*q]
	x1, x2, k = x1[:len(x0)], x2[:len(x0)], k[:len(x0)]
	c0, c1, c2 = c0[:len(x0)], c1[:len(x0)], c2[:len(x0)]
	h0, h1, h2 = h0[:len(x0)], h1[:len(x0)], h2[:len(x0)]
	for j, a := range x0 {
		kj := &k[j]
		v0, v1, v2 := lastStep(a, x1[j], x2[j], kj)
		c0[j], h0[j] = roundInt(real(v0)), roundInt(imag(v0))
		c1[j], h1[j] = roundInt(real(v1)), roundInt(imag(v1))
		c2[j], h2[j] = roundInt(real(v2)), roundInt(imag(v2))
	}
}

// firstRadix3 returns the first stage of pl and q = m/3: the radix-3
// stage of span m that the twist (forwardInt) and inverseLast fuse with
// their own work. It panics if the plan starts otherwise (no plan made by
// newFFTPlan does).
func (pl *fftPlan) firstRadix3() (*fftStage, int) {
	st := &pl.stages[0]
	if st.radix != 3 || st.span != pl.m {
		panic("core: plan does not start with a radix-3 stage")
	}
	return st, pl.m / 3
}

// lastConsts are the constants of one step of inverseLast.
type lastConsts struct{ w1, w2, u0, u1, u2 complex128 }

// lastStep is one step of inverseLast before the rounding: the radix-3
// DIT butterfly of (a, b, d) with conjugated twiddles, then the untwist.
func lastStep(a, b, d complex128, k *lastConsts) (complex128, complex128, complex128) {
	b *= k.w1
	d *= k.w2
	sum, dif := b+d, b-d
	t := a - sum*0.5
	u := complex(-imag(dif)*sqrt3h, real(dif)*sqrt3h) // +i*(sqrt3/2)*dif
	return (a + sum) * k.u0, (t + u) * k.u1, (t - u) * k.u2
}

// lastInverse768 is the final pass of inverse for m = 768, with
// fixed-size arrays: one base pointer per array and constant offsets keep
// the loop's registers free.
func (pl *fftPlan) lastInverse768(x *[768]complex128, c *[1536]int64) {
	if asmEnabled && pl.last768 != nil {
		lastInverse768AVX2(c, x, pl.last768)
		return
	}
	const q = 256
	k := (*[q]lastConsts)(pl.last)
	for j := range q {
		kj := &k[j]
		v0, v1, v2 := lastStep(x[j], x[j+q], x[j+2*q], kj)
		c[j], c[j+768] = roundInt(real(v0)), roundInt(imag(v0))
		c[j+q], c[j+q+768] = roundInt(real(v1)), roundInt(imag(v1))
		c[j+2*q], c[j+2*q+768] = roundInt(real(v2)), roundInt(imag(v2))
	}
}

// mul sets z[j] = x[j]*y[j].
func mul(z, x, y []complex128) {
	y = y[:len(x)]
	z = z[:len(x)]
	for j := range x {
		z[j] = x[j] * y[j]
	}
}

// dif is the in-place decimation-in-frequency FFT.
func (pl *fftPlan) dif(x []complex128) { pl.difFrom(x, 0) }

// difFrom runs the stages of dif from stage first on.
func (pl *fftPlan) difFrom(x []complex128, first int) {
	for si := first; si < len(pl.stages); si++ {
		pl.stage(x, si, false)
	}
	if pl.tail16 {
		dif16(x)
	}
}

// dit is the inverse of dif up to the factor m (folded into untwist).
func (pl *fftPlan) dit(x []complex128) { pl.ditTo(x, 0) }

// ditTo runs the stages of dit down to stage last.
func (pl *fftPlan) ditTo(x []complex128, last int) {
	if pl.tail16 {
		dit16(x)
	}
	for si := len(pl.stages) - 1; si >= last; si-- {
		pl.ditStage(x, si)
	}
}

// ditStage runs stage si of dit.
func (pl *fftPlan) ditStage(x []complex128, si int) { pl.stage(x, si, true) }

// stage runs stage si of dif, or of dit when inverse is set, on x. Both
// directions cut x into the same blocks and quarters (or thirds, halves)
// with the same twiddles: dif applies the butterfly then the twiddles,
// dit the conjugate twiddles then the inverse butterfly. inverse, the
// sizes and the stage are public: the branches on them are the same for
// every input.
func (pl *fftPlan) stage(x []complex128, si int, inverse bool) {
	n := len(x)
	st := &pl.stages[si]
	span := st.span
	q := span / st.radix
	switch st.radix {
	case 4:
		if q == 1 {
			for s := 0; s+3 < n; s += 4 {
				y0, y1, y2, y3 := dft4(x[s], x[s+1], x[s+2], x[s+3])
				if inverse { // the inverse DFT: dft4's outputs 1 and 3 exchanged
					y1, y3 = y3, y1
				}
				x[s], x[s+1], x[s+2], x[s+3] = y0, y1, y2, y3
			}
			return
		}
		w1, w2, w3 := st.tw[0][:q], st.tw[1][:q], st.tw[2][:q]
		if asmEnabled && q%2 == 0 && n > 0 && n%span == 0 { // public sizes
			if inverse {
				dit4StageAVX2(&x[0], n, q, &w1[0], &w2[0], &w3[0])
			} else {
				dif4StageAVX2(&x[0], n, q, &w1[0], &w2[0], &w3[0])
			}
			return
		}
		for s := 0; s < n; s += span {
			x0 := x[s : s+q]
			x1, x2, x3 := x[s+q:s+2*q], x[s+2*q:s+3*q], x[s+3*q:s+4*q]
			x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
			w1, w2, w3 := w1[:len(x0)], w2[:len(x0)], w3[:len(x0)]
			if inverse {
				for j := range x0 {
					a := x0[j]
					b := cmulConj(x1[j], w1[j])
					c := cmulConj(x2[j], w2[j])
					d := cmulConj(x3[j], w3[j])
					// inverse radix-4 DFT of (a, b, c, d) stored as (y0, y1, y2, y3)
					s0r, s0i := real(a)+real(c), imag(a)+imag(c)
					d0r, d0i := real(a)-real(c), imag(a)-imag(c)
					s1r, s1i := real(b)+real(d), imag(b)+imag(d)
					d1r, d1i := real(b)-real(d), imag(b)-imag(d)
					x0[j] = complex(s0r+s1r, s0i+s1i)
					x1[j] = complex(d0r-d1i, d0i+d1r) // d0 + i*d1
					x2[j] = complex(s0r-s1r, s0i-s1i)
					x3[j] = complex(d0r+d1i, d0i-d1r) // d0 - i*d1
				}
				continue
			}
			for j := range x0 {
				a, b, c, d := x0[j], x1[j], x2[j], x3[j]
				s0r, s0i := real(a)+real(c), imag(a)+imag(c)
				d0r, d0i := real(a)-real(c), imag(a)-imag(c)
				s1r, s1i := real(b)+real(d), imag(b)+imag(d)
				d1r, d1i := real(b)-real(d), imag(b)-imag(d)
				x0[j] = complex(s0r+s1r, s0i+s1i)
				// y1 = d0 - i*d1, y3 = d0 + i*d1
				x1[j] = cmul(d0r+d1i, d0i-d1r, w1[j])
				x2[j] = cmul(s0r-s1r, s0i-s1i, w2[j])
				x3[j] = cmul(d0r-d1i, d0i+d1r, w3[j])
			}
		}
	case 3:
		w1, w2 := st.tw[0][:q], st.tw[1][:q]
		for s := 0; s < n; s += span {
			x0 := x[s : s+q]
			x1, x2 := x[s+q:s+2*q], x[s+2*q:s+3*q]
			x1, x2 = x1[:len(x0)], x2[:len(x0)]
			w1, w2 := w1[:len(x0)], w2[:len(x0)]
			if inverse {
				for j := range x0 {
					a := x0[j]
					b := x1[j] * conj(w1[j])
					c := x2[j] * conj(w2[j])
					sum, dif := b+c, b-c
					t := a - sum*0.5
					u := complex(-imag(dif)*sqrt3h, real(dif)*sqrt3h) // +i*(sqrt3/2)*dif
					x0[j] = a + sum
					x1[j] = t + u
					x2[j] = t - u
				}
				continue
			}
			for j := range x0 {
				x0[j], x1[j], x2[j] = butterfly3(x0[j], x1[j], x2[j], w1[j], w2[j])
			}
		}
	case 2:
		w1 := st.tw[0][:q]
		for s := 0; s < n; s += span {
			x0 := x[s : s+q]
			x1 := x[s+q : s+2*q]
			x1 = x1[:len(x0)]
			w1 := w1[:len(x0)]
			if inverse {
				for j := range x0 {
					a, b := x0[j], x1[j]*conj(w1[j])
					x0[j] = a + b
					x1[j] = a - b
				}
				continue
			}
			for j := range x0 {
				a, b := x0[j], x1[j]
				x0[j] = a + b
				x1[j] = (a - b) * w1[j]
			}
		}
	}
}

// dft4 is the length-4 DFT of (a, b, c, d) (root -i): s0 = a+c,
// d0 = a-c, s1 = b+d, d1 = b-d; outputs s0+s1, d0-i*d1, s0-s1, d0+i*d1.
func dft4(a, b, c, d complex128) (complex128, complex128, complex128, complex128) {
	s0, d0 := a+c, a-c
	s1, d1 := b+d, b-d
	id1 := complex(-imag(d1), real(d1))
	return s0 + s1, d0 - id1, s0 - s1, d0 + id1
}

// butterfly3 is the radix-3 decimation-in-frequency butterfly: the
// length-3 DFT of (a, b, c), its last two outputs times w1 and w2.
func butterfly3(a, b, c, w1, w2 complex128) (complex128, complex128, complex128) {
	sum, dif := b+c, b-c
	t := a - sum*0.5
	u := complex(imag(dif)*sqrt3h, -real(dif)*sqrt3h) // -i*(sqrt3/2)*dif
	return a + sum, (t + u) * w1, (t - u) * w2
}

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }

// cmul returns (re + i*im) * w.
func cmul(re, im float64, w complex128) complex128 {
	wr, wi := real(w), imag(w)
	return complex(re*wr-im*wi, re*wi+im*wr)
}

// cmulConj returns z * conj(w).
func cmulConj(z, w complex128) complex128 {
	zr, zi, wr, wi := real(z), imag(z), real(w), imag(w)
	return complex(zr*wr+zi*wi, zi*wr-zr*wi)
}
