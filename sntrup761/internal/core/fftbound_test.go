package core

// A rigorous bound on the rounding error of the products of fft.go, for the
// transform as implemented (mixed radix: radix-3, radix-2 and radix-4
// stages with table twiddles, the radix-16 pass with constant twiddles, the
// twist and the untwist), computed over the plans' actual float64 twiddles.
//
// Model: IEEE double precision, round to nearest, u = 2^-53; every +, -, *
// of two doubles returns (x op y)(1+d) with |d| <= u (no underflow: all
// values are integers or products of integers with twiddles; no overflow).
// Multiplications by 0.5, by -1 and by i are exact. A complex product
// computed as (ac - bd) + i(ad + bc) has error at most sqrt5*u*|z||w|
// (Brent, Percival, Zimmermann, "Error bounds on complex floating-point
// multiplication", Math. Comp. 2007). gamma(k) = k*u/(1-k*u) bounds k
// successive roundings.
//
// Norms. Every stage maps a vector x to T x where T is sqrt(r) times a
// unitary matrix (a length-r DFT on each group of r values, times unimodular
// twiddles), so exact L2 norms grow by exactly sqrt(r) per stage. If a stage
// computes y^ from an inexact x^ with ||fl(T^ x^) - T x^|| <= rho*||x^||,
// then the error E = ||x^ - x|| and the norm bound N >= ||x|| obey
//
//	E' <= sqrt(r)*E + rho*(N + E),  N' = sqrt(r)*N,
//
// so the relative error e = E/N obeys 1+e' <= (1+e)(1 + rho/sqrt(r)).
//
// rho per stage. Each butterfly output's real and imaginary parts are sums
// of the inputs' real or imaginary parts (times constants) computed with k
// roundings, so each part is off by at most kappa * sum_j |part of x_j|;
// by Cauchy-Schwarz the block of r outputs is then off by at most
// sigma*||x_block|| with sigma = r*kappa. With kappa = gamma(1) (radix 2),
// gamma(2) (radix 4) and 1.367*gamma(3) + |sqrt3h^ - sqrt3/2| (radix 3:
// |a| + (1/2 + sqrt3/2)(|b| + |c|) bounds every part's terms):
//
//	DIF (butterfly, then twiddle w^ with |w^ - w| <= delta):
//	  rho = (1+delta)*sigma + sqrt5*u*(1+delta)*(sqrt(r) + sigma) + delta*sqrt(r)
//	DIT (twiddle, then butterfly):
//	  rho = (1+delta)*(1+sqrt5*u)*sigma + sqrt(r)*(sqrt5*u*(1+delta) + delta)
//
// The twist multiplies an integer by a stored twist factor: one rounding
// per part for real inputs (rho = u*(1+delta) + delta), a complex product
// for packed complex inputs (rho = sqrt5*u*(1+delta) + delta). The untwist
// multiplies by psi^-j/m: relative rho = sqrt5*u*(1+delta_u) + delta_u with
// delta_u = m*max|untwist^ - untwist|. The radix-16 pass's constant
// twiddles are exact (1, -i), complex products with stored constants, or
// ((x+y)*c, (y-x)*c)-style products whose error, gamma(2)*|z| + |c^-c|*|z|/c,
// is below the complex product's bound with the same delta.
//
// Products. For operands a and b with spectra X, Y (norms N_X = sqrt(m) *
// ||a||_2, ||X||_inf <= ||a||_1) and forward relative error e_F,
//
//	||fl(X^ Y^) - X Y||_2 <= E_X (||b||_1 + E_Y) + ||a||_1 E_Y
//	                         + sqrt5*u*(N_X + E_X)(||b||_1 + E_Y),
//
// with E_X = e_F N_X, E_Y = e_F N_Y and exact norm ||X Y||_2 <= sqrt(m) *
// min(||a||_2 ||b||_1, ||a||_1 ||b||_2). A sum of two products adds
// u*(||z1^|| + ||z2^||); a scaling of a spectrum by a constant adds a
// relative u. The inverse carries the relative error through its stages and
// the untwist, and the output c = z/(untwisted, scaled by 1/m) has norm at
// most ||z||/sqrt(m). The largest coefficient error is at most the L2 norm
// of the error vector: rounding is correct when that is below 1/2.

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const (
	uRound   = 0x1p-53
	bigPrec  = 320
	sqrt5    = 2.2360679774997896964091736687312762354406183596115
	radix3K  = 1.367 // 1/2 + sqrt(3)/2, rounded up
	safeUlps = 1 + 0x1p-40
)

func gamma(k int) float64 { return float64(k) * uRound / (1 - float64(k)*uRound) }

// bigComplex is a complex number with big.Float parts.
type bigComplex struct{ re, im *big.Float }

func newBig(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func (z bigComplex) mul(w bigComplex) bigComplex {
	ac := new(big.Float).SetPrec(bigPrec).Mul(z.re, w.re)
	bd := new(big.Float).SetPrec(bigPrec).Mul(z.im, w.im)
	ad := new(big.Float).SetPrec(bigPrec).Mul(z.re, w.im)
	bc := new(big.Float).SetPrec(bigPrec).Mul(z.im, w.re)
	return bigComplex{ac.Sub(ac, bd), ad.Add(ad, bc)}
}

// dist returns |w - z| rounded up.
func (z bigComplex) dist(w complex128) float64 {
	dr := new(big.Float).SetPrec(bigPrec).Sub(z.re, newBig(real(w)))
	di := new(big.Float).SetPrec(bigPrec).Sub(z.im, newBig(imag(w)))
	dr.Mul(dr, dr)
	di.Mul(di, di)
	d, _ := dr.Add(dr, di).Float64()
	return math.Sqrt(d) * safeUlps
}

// bigPi returns pi by Machin's formula.
func bigPi() *big.Float {
	atanInv := func(x int64) *big.Float {
		sum := newBig(0)
		pow := new(big.Float).SetPrec(bigPrec).Quo(newBig(1), newBig(float64(x)))
		x2 := newBig(float64(x * x))
		for k := int64(0); k < 400; k++ {
			term := new(big.Float).SetPrec(bigPrec).Quo(pow, newBig(float64(2*k+1)))
			if k%2 == 0 {
				sum.Add(sum, term)
			} else {
				sum.Sub(sum, term)
			}
			pow.Quo(pow, x2)
		}
		return sum
	}
	a := atanInv(5)
	a.Mul(a, newBig(16))
	b := atanInv(239)
	b.Mul(b, newBig(4))
	return a.Sub(a, b)
}

// bigExpi returns exp(i*theta) for |theta| <= 4 by its Taylor series.
func bigExpi(theta *big.Float) bigComplex {
	c, s := newBig(0), newBig(0)
	term := newBig(1) // theta^k / k!
	for k := 0; k < 200; k++ {
		switch k % 4 {
		case 0:
			c.Add(c, term)
		case 1:
			s.Add(s, term)
		case 2:
			c.Sub(c, term)
		case 3:
			s.Sub(s, term)
		}
		term.Mul(term, theta)
		term.Quo(term, newBig(float64(k+1)))
	}
	return bigComplex{c, s}
}

// rootPowers returns exp(sign*2*pi*i*k/n) for k = 0..n-1.
func rootPowers(pi *big.Float, n int, sign float64) []bigComplex {
	theta := new(big.Float).SetPrec(bigPrec).Mul(pi, newBig(2*sign))
	theta.Quo(theta, newBig(float64(n)))
	w := bigExpi(theta)
	p := make([]bigComplex, n)
	p[0] = bigComplex{newBig(1), newBig(0)}
	for k := 1; k < n; k++ {
		p[k] = p[k-1].mul(w)
	}
	return p
}

// planErrors holds the measured representation errors of a plan's tables.
type planErrors struct {
	stage   []float64 // max |w^ - w| over each stage's twiddles
	twist   float64   // max |twist^ - psi^j|
	untw    float64   // m * max |untwist^ - psi^-j/m|
	sqrt3h  float64   // |sqrt3h - sqrt(3)/2|
	const16 float64   // max error of the radix-16 pass's constants
}

var (
	bigPiValue   = bigPi()
	planErrCache = map[int]planErrors{}
)

// measurePlan returns the representation errors of pl's tables (cached).
func measurePlan(pl *fftPlan) planErrors {
	pe, ok := planErrCache[pl.m]
	if !ok {
		pe = measureTables(pl)
		planErrCache[pl.m] = pe
	}
	return pe
}

func measureTables(pl *fftPlan) planErrors {
	var pe planErrors
	for _, st := range pl.stages {
		pw := rootPowers(bigPiValue, st.span, -1)
		d := 0.0
		for t, tw := range st.tw {
			for j, w := range tw {
				d = max(d, pw[(j*(t+1))%st.span].dist(w))
			}
		}
		pe.stage = append(pe.stage, d)
	}
	m := pl.m
	psi := rootPowers(bigPiValue, 4*m, 1)
	invm := new(big.Float).SetPrec(bigPrec).Quo(newBig(1), newBig(float64(m)))
	for j := range m {
		pe.twist = max(pe.twist, psi[j].dist(pl.twist[j]))
		// psi^-j / m = conj(psi^j) / m
		e := bigComplex{new(big.Float).SetPrec(bigPrec).Mul(psi[j].re, invm),
			new(big.Float).SetPrec(bigPrec).Neg(new(big.Float).SetPrec(bigPrec).Mul(psi[j].im, invm))}
		pe.untw = max(pe.untw, float64(m)*e.dist(pl.untwist[j]))
	}
	w16 := rootPowers(bigPiValue, 16, -1)
	three := new(big.Float).SetPrec(bigPrec).Sqrt(newBig(3))
	three.Quo(three, newBig(2))
	pe.sqrt3h = bigComplex{three, newBig(0)}.dist(complex(sqrt3h, 0))
	pe.const16 = max(w16[1].dist(complex(cos1, -sin1)), w16[3].dist(complex(sin1, -cos1)),
		w16[2].dist(complex(rt2h, -rt2h)))
	return pe
}

func sigma(radix int, pe planErrors) float64 {
	switch radix {
	case 2:
		return 2 * gamma(1)
	case 3:
		return 3 * (radix3K*gamma(3) + pe.sqrt3h)
	case 4:
		return 4 * gamma(2)
	}
	panic("radix")
}

func rhoDIF(r int, sig, delta float64) float64 {
	sr := math.Sqrt(float64(r))
	return (1+delta)*sig + sqrt5*uRound*(1+delta)*(sr+sig) + delta*sr
}

func rhoDIT(r int, sig, delta float64) float64 {
	sr := math.Sqrt(float64(r))
	return (1+delta)*(1+sqrt5*uRound)*sig + sr*(sqrt5*uRound*(1+delta)+delta)
}

// transformErrors returns the relative error bounds of the forward
// transform (real inputs, len(a) <= m, and packed complex inputs) and of
// the inverse up to the untwisted values.
func transformErrors(pl *fftPlan, pe planErrors) (fwdReal, fwdComplex, inv float64) {
	grow := func(e, rho float64, r int) float64 { return (1+e)*(1+rho/math.Sqrt(float64(r))) - 1 }
	stages := 0.0
	for i, st := range pl.stages {
		stages = grow(stages, rhoDIF(st.radix, sigma(st.radix, pe), pe.stage[i]), st.radix)
	}
	if pl.tail16 {
		stages = grow(stages, rhoDIF(4, sigma(4, pe), pe.const16), 4)
		stages = grow(stages, sigma(4, pe), 4) // span 4: no twiddles
	}
	twReal := uRound*(1+pe.twist) + pe.twist
	twCplx := sqrt5*uRound*(1+pe.twist) + pe.twist
	fwdReal = (1+twReal)*(1+stages) - 1
	fwdComplex = (1+twCplx)*(1+stages) - 1

	inv = 0
	if pl.tail16 {
		inv = grow(inv, sigma(4, pe), 4)
		inv = grow(inv, rhoDIT(4, sigma(4, pe), pe.const16), 4)
	}
	for i := len(pl.stages) - 1; i >= 0; i-- {
		st := pl.stages[i]
		inv = grow(inv, rhoDIT(st.radix, sigma(st.radix, pe), pe.stage[i]), st.radix)
	}
	inv = grow(inv, sqrt5*uRound*(1+pe.untw)+pe.untw, 1)
	return fwdReal, fwdComplex, inv
}

// operand describes one factor: n coefficients of absolute value <= max.
type operand struct {
	n   int
	max float64
}

func (o operand) l1() float64 { return float64(o.n) * o.max }
func (o operand) l2() float64 { return math.Sqrt(float64(o.n)) * o.max }

// productSite is one use of the FFT product: the sum of terms products
// a*b, with extra relative roundings applied to the spectrum of b (a
// scaling or a sum of spectra) before the product.
type productSite struct {
	name  string
	m     int
	terms int
	a, b  operand
	extra int
	// a2, b2, when set, are the second term's operands (terms = 2); its
	// spectrum of b2 has extra2 extra roundings. Otherwise both terms
	// are a*b.
	a2, b2 operand
	extra2 int
}

// errorBound returns the bound on the largest coefficient error of the
// site's output, and the bound on its values.
func errorBound(s productSite) (errBound, valueBound float64) {
	pl := planFor(2 * s.m)
	if pl.m != s.m {
		panic("no plan")
	}
	pe := measurePlan(pl)
	fr, fc, inv := transformErrors(pl, pe)
	sm := math.Sqrt(float64(s.m))
	// term returns the error bound and size bound of one product's
	// spectrum z = X*Y.
	term := func(a, b operand, extra int) (ez, nz float64) {
		eA, eB := fr, fr
		if a.n > s.m {
			eA = fc
		}
		if b.n > s.m {
			eB = fc
		}
		eB = (1+eB)*math.Pow(1+uRound, float64(extra)) - 1
		nX, nY := sm*a.l2(), sm*b.l2()
		eX, eY := eA*nX, eB*nY
		ez = eX*(b.l1()+eY) + a.l1()*eY + sqrt5*uRound*(nX+eX)*(b.l1()+eY)
		nz = sm * min(a.l2()*b.l1(), a.l1()*b.l2())
		return ez, nz
	}
	ez, nz := term(s.a, s.b, s.extra)
	if s.terms == 2 {
		ez2, nz2 := ez, nz
		if s.a2.n > 0 {
			ez2, nz2 = term(s.a2, s.b2, s.extra2)
		}
		ez = ez + ez2 + uRound*(nz+nz2+ez+ez2)
		nz += nz2
	}
	rz := ez / nz
	rc := (1+rz)*(1+inv) - 1
	nc := nz / sm
	return rc * nc, nc
}

// fftSites lists every product the package computes, with its worst
// operands (coefficients of R/q in [-Q12, Q12], small ones in [-2, 2]).
func fftSites() []productSite {
	rq := operand{P, Q12}
	small := operand{P, 2}
	sites := []productSite{
		{name: "R/q x small (encryption, decryption, key assembly h = g*finv)", m: 768, terms: 1, a: rq, b: small, extra: 0},
		{name: "R/q x R/q (batch h = (tq*g)*d_(k-1))", m: 768, terms: 1, a: rq, b: rq, extra: 0},

		// batch key generation's paired products (mulSplit): f, g, c and
		// t3 have coefficients in {-1, 0, 1}; the spectrum of 2^24*c is a
		// scaled transform (exact), that of tq + 2^24*t3 a sum (one
		// rounding).
		{name: "batch: d*f + 2^24 c*g, tq*f + 2^24 t3*c (mulSplit)", m: 768, terms: 2,
			a: rq, b: operand{P, 1}, a2: operand{P, 1}, b2: operand{P, 1 << splitShift}},
		{name: "batch: g*(tq + 2^24 t3) (mulSplit)", m: 768, terms: 1,
			a: operand{P, 1}, b: operand{P, Q12 + 1<<splitShift}, extra: 1},
		{name: "recipRq: v1*G and u2*v1 + v2*r1", m: 768, terms: 2, a: operand{P + 1, Q12}, b: operand{P + 1, Q12}, extra: 0},
	}
	// jump: for every plan, the widest use (both operands filling the
	// ring, two terms) bounds the update of (f, g) and the matrix product.
	for k := range fftPlans() {
		m := 3 << k
		sites = append(sites, productSite{name: "jump, full operands", m: m, terms: 2, a: operand{2 * m, Q12}, b: operand{2 * m, Q12}, extra: 0})
	}
	return sites
}

// fftMargin is the factor by which every site's bound must stay below 1/2.
const fftMargin = 16

// TestFFTErrorBound computes the bound for every product site from the
// plans' actual tables and checks that rounding is always correct, with a
// margin.
func TestFFTErrorBound(t *testing.T) {
	for _, s := range fftSites() {
		eb, vb := errorBound(s)
		t.Logf("m=%3d %-55s error <= %.3g (values <= %.3g)", s.m, s.name, eb, vb)
		if !(eb*fftMargin < 0.5) || vb > 1<<50 {
			t.Errorf("%s (m=%d): error bound %.3g exceeds 1/(2*%d)", s.name, s.m, eb, fftMargin)
		}
	}
}

// inverseFloat is plan.inverse without the rounding (the same stages and
// lastStep), returning the untwisted values whose real and imaginary parts
// are the coefficients j and j+m.
func inverseFloat(pl *fftPlan, x []complex128) []complex128 {
	m := pl.m
	x = append([]complex128(nil), x[:m]...)
	pl.ditTo(x, 1)
	q := m / 3
	out := make([]complex128, m)
	for j := range q {
		out[j], out[j+q], out[j+2*q] = lastStep(x[j], x[j+q], x[j+2*q], &pl.last[j])
	}
	return out
}

// productError multiplies a and b (len <= 2m, sum of one product) through
// the plan and returns the largest distance of an unrounded output from
// the exact coefficient, checking that inverse rounds to the exact result.
func productError(t *testing.T, pl *fftPlan, a, b []int32, exact []int64) float64 {
	m := pl.m
	x := make([]complex128, m)
	y := make([]complex128, m)
	forwardInt(pl, x, a)
	forwardInt(pl, y, b)
	mul(x, x, y)
	v := inverseFloat(pl, x)
	c := make([]int64, 2*m)
	pl.inverse(c, x)
	worst := 0.0
	for j := range m {
		for h, f := range []float64{real(v[j]), imag(v[j])} {
			k := j + h*m
			if roundInt(f) != c[k] {
				t.Fatalf("inverseFloat differs from inverse at %d", k)
			}
			if c[k] != exact[k] {
				t.Fatalf("m=%d: coefficient %d = %d, want %d", m, k, c[k], exact[k])
			}
			worst = max(worst, math.Abs(f-float64(exact[k])))
		}
	}
	return worst
}

// TestFFTRoundingSearch looks for inputs with large rounding error: the
// extremes of the old TestFFTWorstCase, structured families that pile the
// spectrum into one bin (signs following a cosine of each of several
// frequencies) and a greedy adversarial search over sign patterns, and
// checks each error against the bound and the bound against 1/2.
func TestFFTRoundingSearch(t *testing.T) {
	pl := plan768()
	m := pl.m
	bound, _ := errorBound(productSite{name: "", m: m, terms: 1, a: operand{2 * m, Q12}, b: operand{2 * m, Q12}, extra: 0})
	rng := rand.New(rand.NewPCG(21, 22))
	n := 2 * m
	worst := 0.0
	check := func(name string, a, b []int32) float64 {
		e := productError(t, pl, a, b, negacyclic(schoolbook(a, b), n))
		if e > bound {
			t.Fatalf("%s: rounding error %.3g above the proven bound %.3g", name, e, bound)
		}
		worst = max(worst, e)
		return e
	}
	fill := func(f func(i int) int32) []int32 {
		a := make([]int32, n)
		for i := range a {
			a[i] = f(i)
		}
		return a
	}
	for _, va := range []int32{Q12, -Q12} {
		for _, vb := range []int32{Q12, -Q12} {
			check("constants", fill(func(int) int32 { return va }), fill(func(int) int32 { return vb }))
		}
	}
	alt := fill(func(i int) int32 { return Q12 * int32(1-2*(i%2)) })
	check("alternating", alt, alt)
	for _, k := range []int{1, 2, 3, 5, 7, 64, 255, 256, 383, 384, 511, 767} {
		f := fill(func(i int) int32 {
			if math.Cos(math.Pi*float64(i)*float64(2*k+1)/float64(n)) >= 0 {
				return Q12
			}
			return -Q12
		})
		check("cosine signs", f, f)
	}
	// Greedy search: flip signs of a in blocks, keep flips that increase
	// the error.
	iters := 60
	if testing.Short() {
		iters = 10
	}
	a := fill(func(int) int32 { return Q12 * int32(1-2*rng.IntN(2)) })
	b := fill(func(int) int32 { return Q12 * int32(1-2*rng.IntN(2)) })
	best := check("search", a, b)
	for range iters {
		lo := rng.IntN(n)
		hi := min(n, lo+1+rng.IntN(64))
		for i := lo; i < hi; i++ {
			a[i] = -a[i]
		}
		if e := check("search", a, b); e > best {
			best = e
		} else {
			for i := lo; i < hi; i++ {
				a[i] = -a[i]
			}
		}
	}
	t.Logf("largest rounding error found %.3g; proven bound %.3g; margin to 1/2: %.0fx", worst, bound, 0.5/bound)
	if !(bound*fftMargin < 0.5) {
		t.Fatalf("bound %.3g leaves less than a %dx margin", bound, fftMargin)
	}
}
