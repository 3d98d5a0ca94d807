//go:build goexperiment.simd && amd64

package core

import "simd/archsimd"

// The folds of a linear product c (len 1536, exact integers) modulo
// x^p - x - 1 followed by a reduction, on 4 lanes: coefficient i of the
// fold is c_i + c_(p+i) + c_(p+i-1) (see foldParts).
//
// AVX2 has no 64-bit multiplication, so the reductions run in float64, and
// they are exact: every value is an integer below 2^36 in absolute value
// (the scalar freezeQ takes values below 2^34; the folds here are), so its
// conversion, the sum, k*v and r = v - round(v/m)*m are exact float64
// operations, and round(v*(1/m)) is round(v/m): v/m is at least 1/(2m) away
// from every half-integer (m = q or 3 is odd, v an integer), while the
// computed v*(1/m) is within |v/m|*2^-52 < 2^-28 of v/m. So r is the
// centred residue in [-(m-1)/2, (m-1)/2], exactly what freezeQ and freeze3
// return. Conversions between int64 and float64 use the 1.5*2^52 trick
// (the bits of 1.5*2^52 + x are those of 1.5*2^52 plus x for |x| < 2^51).
//
// Constant time: the same additions, multiplications and conversions on
// every lane; the two edge coefficients (0 and p-1, two terms each) use
// the scalar freezeQ and freeze3.

// foldVec sets res[i] for i = 1..p-2 (and garbage at p-1) to the fold of
// c at i times k, reduced mod q if modQ, then mod 3 if mod3 (public flags).
func foldVec(res *[768]int64, c *[1536]int64, k float64, modQ, mod3 bool) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	magBits := mag.AsInt64x4()
	kv := archsimd.BroadcastFloat64x4(k)
	qinv, qf := archsimd.BroadcastFloat64x4(1.0/Q), archsimd.BroadcastFloat64x4(Q)
	third, three := archsimd.BroadcastFloat64x4(1.0/3), archsimd.BroadcastFloat64x4(3)
	for j := range (P - 1) / 4 { // i = 1..760
		i := 1 + 4*j
		v := loadI64s(c[i : i+4]).Add(loadI64s(c[P+i : P+i+4])).Add(loadI64s(c[P+i-1 : P+i+3]))
		f := v.Add(magBits).AsFloat64x4().Sub(mag).Mul(kv)
		if modQ {
			f = f.Sub(f.Mul(qinv).Add(mag).Sub(mag).Mul(qf))
		}
		if mod3 {
			f = f.Sub(f.Mul(third).Add(mag).Sub(mag).Mul(three))
		}
		storeI64s(f.Add(mag).AsInt64x4().Sub(magBits), res[i:i+4])
	}
}

// foldRqSIMD is foldRqScaled on the vector path (k = 1 or 3).
func foldRqSIMD(out *[P]int16, c *[1536]int64, k int64) {
	var res [768]int64
	foldVec(&res, c, float64(k), true, false)
	clearUpper()
	for i := 1; i < P-1; i++ {
		out[i] = int16(res[i])
	}
	out[0] = freezeQ(k * (c[0] + c[P]))
	out[P-1] = freezeQ(k * (c[P-1] + c[2*P-2]))
	clear(res[:])
}

// foldR3SIMD is foldR3 on the vector path.
func foldR3SIMD(out *[P]int8, c *[1536]int64) {
	var res [768]int64
	foldVec(&res, c, 1, false, true)
	clearUpper()
	for i := 1; i < P-1; i++ {
		out[i] = int8(res[i])
	}
	out[0] = freeze3(c[0] + c[P])
	out[P-1] = freeze3(c[P-1] + c[2*P-2])
	clear(res[:])
}

// lift3SIMD is the fold of mulLift3 on the vector path: 3*c mod q, lifted
// to R/3.
func lift3SIMD(e *[P]int8, c *[1536]int64) {
	var res [768]int64
	foldVec(&res, c, 3, true, true)
	clearUpper()
	for i := 1; i < P-1; i++ {
		e[i] = int8(res[i])
	}
	e[0] = freeze3(int64(freezeQ(3 * (c[0] + c[P]))))
	e[P-1] = freeze3(int64(freezeQ(3 * (c[P-1] + c[2*P-2]))))
	clear(res[:])
}
