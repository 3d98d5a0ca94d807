// Package ref is a plain, readable implementation of Streamlined NTRU Prime
// sntrup761 as specified in "NTRU Prime: round 3" (2020-10-07), written to
// follow the specification step by step. It is the reference that the fast
// implementation in package sntrup761 is tested against; it is not used on
// any hot path.
//
// Every function that touches secret data is constant time: control flow and
// memory addresses depend only on public lengths, and secret-dependent
// choices are made with masks. Reductions use Barrett multiplications, never
// the division instruction.
package ref

// Parameters of sntrup761 (NTRU Prime round 3, section 3.5).
const (
	P   = 761         // ring degree: x^p - x - 1
	Q   = 4591        // modulus of R/q
	W   = 286         // weight of Short elements
	Q12 = (Q - 1) / 2 // 2295: R/q coefficients live in [-Q12, Q12]
	QR  = (Q + 2) / 3 // 1531: modulus of the Rounded encoding
)

// Barrett constants: for 0 <= y < 2^34, floor(y*m >> k) is floor(y/Q) or one
// less, so a single masked subtraction finishes the reduction.
const (
	barrettK = 34
	barrettM = (1 << barrettK) / Q
)

// FreezeQ returns x mod q in the centered range [-Q12, Q12].
// Constant time: multiplication, shifts and a masked correction.
func FreezeQ(x int32) int16 {
	// Q<<20 > 2^32, so y is positive for every int32 x, and y < 2^34.
	y := int64(x) + Q12 + Q<<20
	t := (y * barrettM) >> barrettK
	r := y - t*Q // in [0, 2Q)
	r -= Q
	r += (r >> 63) & Q // add Q back if r went negative
	return int16(r - Q12)
}

// Freeze3 returns x mod 3 in {-1, 0, 1} for |x| < 2^24.
// Constant time: the same Barrett pattern as FreezeQ.
func Freeze3(x int32) int8 {
	y := int64(x) + 1 + 3<<24 // positive, < 2^26
	t := (y * ((1 << 28) / 3)) >> 28
	r := y - 3*t // in [0, 6)
	r -= 3
	r += (r >> 63) & 3
	return int8(r - 1)
}

// nonzeroMask returns -1 if x != 0 and 0 otherwise, without branching.
func nonzeroMask(x int32) int32 {
	u := uint64(uint32(x))
	return -int32((-u) >> 63)
}

// negativeMask returns -1 if x < 0 and 0 otherwise.
func negativeMask(x int32) int32 { return x >> 31 }

// recipQ returns a^(q-2) = 1/a in F_q (0 for a = 0), by a fixed-length
// square-and-multiply over the public exponent: constant time in a.
func recipQ(a int16) int16 {
	r := int32(1)
	base := int32(a)
	for e := Q - 2; e > 0; e >>= 1 {
		if e&1 == 1 { // public exponent bit
			r = int32(FreezeQ(r * base))
		}
		base = int32(FreezeQ(base * base))
	}
	return int16(r)
}

// R3Mult returns f*g in R/3 = F_3[x]/(x^p - x - 1) by schoolbook
// multiplication followed by reduction modulo x^p - x - 1.
func R3Mult(f, g *[P]int8) (h [P]int8) {
	fg := smallProduct(f, g)
	for i := range P {
		h[i] = Freeze3(fg[i])
	}
	return h
}

// RqMultSmall returns f*g in R/q for f in R/q and small g.
func RqMultSmall(f *[P]int16, g *[P]int8) (h [P]int16) {
	fg := smallProduct(f, g)
	for i := range P {
		h[i] = FreezeQ(fg[i])
	}
	return h
}

// smallProduct returns the schoolbook product f*g with g small, reduced
// modulo x^p - x - 1 into fg[:P] but not modulo 3 or q: with |g_j| <= 1
// its coefficients are at most 3*P*max|f_i| in absolute value (each
// takes at most two folded ones), far from overflowing int32.
func smallProduct[T int8 | int16](f *[P]T, g *[P]int8) (fg [2*P - 1]int32) {
	for i := range P {
		for j := range P {
			fg[i+j] += int32(f[i]) * int32(g[j])
		}
	}
	reduceModXpX1(fg[:])
	return fg
}

// RqMult returns f*g in R/q for two elements of R/q. The products are
// reduced as they are accumulated, so int32 never overflows.
func RqMult(f, g *[P]int16) (h [P]int16) {
	var fg [2*P - 1]int32
	for i := range P {
		for j := range P {
			fg[i+j] = int32(FreezeQ(fg[i+j] + int32(f[i])*int32(g[j])))
		}
	}
	reduceModXpX1(fg[:])
	for i := range P {
		h[i] = FreezeQ(fg[i])
	}
	return h
}

// reduceModXpX1 folds the coefficients of degree >= p of a product back with
// x^p = x + 1, from the top down, leaving the result in fg[:P].
func reduceModXpX1(fg []int32) {
	for i := 2*P - 2; i >= P; i-- {
		fg[i-P] += fg[i]
		fg[i-P+1] += fg[i]
	}
}

// RqMult3 returns 3*f in R/q.
func RqMult3(f *[P]int16) (h [P]int16) {
	for i := range P {
		h[i] = FreezeQ(3 * int32(f[i]))
	}
	return h
}

// R3FromRq maps each coefficient of an element of R/q (as an integer in
// [-Q12, Q12]) to F_3.
func R3FromRq(f *[P]int16) (h [P]int8) {
	for i := range P {
		h[i] = Freeze3(int32(f[i]))
	}
	return h
}

// R3Recip returns 1/f in R/3 and 0 if f is invertible, or -1 (and garbage)
// if it is not. It runs exactly 2p-1 divsteps of Bernstein–Yang
// ("Fast constant-time gcd computation and modular inversion", 2019) on the
// reversed polynomials; every step swaps and updates by masks, so time and
// memory access are independent of f.
func R3Recip(in *[P]int8) (out [P]int8, ok int32) {
	// f, g hold the reversed polynomials x^p - x - 1 and in, with p+1
	// coefficients; v, r track the Bezout coefficient of in.
	var f, g, v, r [P + 1]int32
	f[0], f[P-1], f[P] = 1, -1, -1
	for i := range P {
		g[P-1-i] = int32(in[i])
	}
	r[0] = 1
	delta := int32(1)

	for range 2*P - 1 {
		copy(v[1:], v[:P]) // v = x*v
		v[0] = 0

		sign := -g[0] * f[0] // in F_3, f[0] = ±1 so 1/f[0] = f[0]
		delta = swapStep(delta, &f, &g, &v, &r)
		for i := range P + 1 {
			g[i] = int32(Freeze3(g[i] + sign*f[i]))
			r[i] = int32(Freeze3(r[i] + sign*v[i]))
		}
		copy(g[:P], g[1:]) // g = g/x
		g[P] = 0
	}

	sign := f[0]
	for i := range P {
		out[i] = int8(sign * v[P-1-i])
	}
	return out, nonzeroMask(delta)
}

// swapStep is the first half of a divstep, shared by R3Recip and
// rqRecip: if delta > 0 and g[0] != 0 it swaps f with g and v with r and
// negates delta, by masks; it returns delta + 1.
func swapStep(delta int32, f, g, v, r *[P + 1]int32) int32 {
	swap := negativeMask(-delta) & nonzeroMask(g[0])
	delta ^= swap & (delta ^ -delta)
	for i := range P + 1 {
		t := swap & (f[i] ^ g[i])
		f[i] ^= t
		g[i] ^= t
		t = swap & (v[i] ^ r[i])
		v[i] ^= t
		r[i] ^= t
	}
	return delta + 1
}

// RqRecip3 returns 1/(3f) in R/q for small f. R/q is a field for sntrup761
// parameters, so this succeeds for every nonzero f (a Short f is never
// zero); ok is 0 on success and -1 otherwise. Constant time as R3Recip.
func RqRecip3(in *[P]int8) (out [P]int16, ok int32) {
	var a [P]int16
	for i := range P {
		a[i] = int16(in[i])
	}
	return rqRecip(&a, recipQ(3))
}

// RqRecip returns 1/f in R/q (ok = 0), or ok = -1 if f = 0. The KEM only
// needs RqRecip3; this general form lets tests check the fast inversion on
// arbitrary elements.
func RqRecip(in *[P]int16) (out [P]int16, ok int32) { return rqRecip(in, 1) }

// rqRecip returns scale/in in R/q by 2p-1 constant-time divsteps, the R/q
// analogue of R3Recip: g <- (f0*g - g0*f)/x with the same masked swap.
func rqRecip(in *[P]int16, scale int16) (out [P]int16, ok int32) {
	var f, g, v, r [P + 1]int32
	f[0], f[P-1], f[P] = 1, -1, -1
	for i := range P {
		g[P-1-i] = int32(in[i])
	}
	r[0] = int32(scale)
	delta := int32(1)

	for range 2*P - 1 {
		copy(v[1:], v[:P]) // v = x*v
		v[0] = 0

		delta = swapStep(delta, &f, &g, &v, &r)
		f0, g0 := f[0], g[0]
		for i := range P + 1 {
			g[i] = int32(FreezeQ(f0*g[i] - g0*f[i]))
			r[i] = int32(FreezeQ(f0*r[i] - g0*v[i]))
		}
		copy(g[:P], g[1:]) // g = g/x
		g[P] = 0
	}

	// f is now a nonzero constant (when in was invertible); divide it out.
	c := int32(recipQ(int16(f[0])))
	for i := range P {
		out[i] = FreezeQ(c * v[P-1-i])
	}
	return out, nonzeroMask(delta)
}

// Round returns a with each coefficient rounded to the nearest multiple of 3
// (section 3.1, "Round").
func Round(a *[P]int16) (out [P]int16) {
	for i := range P {
		out[i] = a[i] - int16(Freeze3(int32(a[i])))
	}
	return out
}

// WeightMask returns 0 if r has exactly W nonzero coefficients and -1
// otherwise, without branching on r.
func WeightMask(r *[P]int8) int32 {
	weight := int32(0)
	for i := range P {
		weight += int32(r[i]) & 1
	}
	return nonzeroMask(weight - W)
}
