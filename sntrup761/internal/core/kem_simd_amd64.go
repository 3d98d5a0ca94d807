//go:build goexperiment.simd && amd64

package core

import (
	"math/bits"
	"simd/archsimd"
	"sync"
)

// Encryption and decryption on the vector path: hide and decrypt (kem.go)
// with the transforms they compute kept in the vector kernels' split
// layout. The scalar code converts the transform of r (or c, e) to a
// complex128 spectrum, then forms its pointwise product with the key's
// spectrum in scalar complex arithmetic while converting back; here the
// key's spectrum is copied into the split layout (toSplit), the product is
// formed by the inverse transform's first pass, and the fold with its
// reduction (Round's digits, the lift to R/3, the reduction mod 3) runs
// on float64 vectors. Same values as the scalar code (see
// batch_simd_amd64.go), hence the same bytes; TestHideDecryptSIMD compares
// them.

// vecOp holds the working buffers of one encryption or decryption.
type vecOp struct {
	vecWork
	a, k splitSpectrum // the transform computed here, the key's one
	rd   [776]uint32   // Round's digits, index i for coefficient i
}

var vecOpPool = sync.Pool{New: func() any { return new(vecOp) }}

// put clears w (it holds secret-derived values) and returns it to the pool.
func (w *vecOp) put() {
	w.vecWork.clear()
	clearSplit(&w.a)
	clearSplit(&w.k)
	clear(w.rd[:])
	vecOpPool.Put(w)
}

// roundedProductSIMD sets R to the digits of Rounded_encode(Round(h*r)),
// hide's product, on the vector path (mulRounded on the scalar one).
func (pk *PublicKey) roundedProductSIMD(R *[P]uint32, r *[P]int8) {
	w := vecOpPool.Get().(*vecOp)
	w.forwardSmall(&w.a, r, false)
	toSplit(&w.k, &pk.sh)
	inverseProductsSplit(&w.y, &w.s, &w.t, &w.a, &w.k, nil, nil)
	foldRoundVec(&w.rd, &w.y)
	clearUpper()
	copy(R[1:P-1], w.rd[1:P-1])
	R[0] = roundDigit(int64(w.y[0]) + int64(w.y[P]))
	R[P-1] = roundDigit(int64(w.y[P-1]) + int64(w.y[2*P-2]))
	w.put()
}

// roundDigit is mulRounded's digit of one folded coefficient v.
func roundDigit(v int64) uint32 { return (uint32(int32(freezeQ(v))+Q12+1) * 10923) >> 15 }

// weightOnes has 1 at the first W positions: r_i = ((ev_i ^ 1) &^ mask) ^ 1
// there and ev_i &^ mask after, in decrypt.
var weightOnes = func() (t [768]int8) {
	for i := range W {
		t[i] = 1
	}
	return t
}()

// decryptSIMD is decrypt on the vector path: e = 3*f*c in R/q lifted to
// R/3, ev = e*v in R/3, and r = ev or the fixed vector by a mask from the
// weight of ev. The weight counts nonzero bytes (VPCMPEQB, VPMOVMSKB,
// POPCNT); the selection is the scalar one, lane by lane, with the mask
// broadcast. Constant time as decrypt.
func (sk *PrivateKey) decryptSIMD(r *[P]int8, c *[P]int16) {
	w := vecOpPool.Get().(*vecOp)
	w.forwardRq(&w.a, c)
	toSplit(&w.k, &sk.sf)
	inverseProductsSplit(&w.y, &w.s, &w.t, &w.a, &w.k, nil, nil)
	foldSmallVec(&w.r3, &w.y, true)
	clearUpper()
	w.r3[0] = freeze3(int64(freezeQ(3 * (int64(w.y[0]) + int64(w.y[P])))))
	w.r3[P-1] = freeze3(int64(freezeQ(3 * (int64(w.y[P-1]) + int64(w.y[2*P-2])))))
	e := (*[P]int8)(w.r3[:P])

	w.forwardSmall(&w.a, e, false)
	toSplit(&w.k, &sk.sv)
	inverseProductsSplit(&w.y, &w.s, &w.t, &w.a, &w.k, nil, nil)
	foldSmallVec(&w.r3, &w.y, false)
	clearUpper()
	w.r3[0] = freeze3(int64(w.y[0]) + int64(w.y[P]))
	w.r3[P-1] = freeze3(int64(w.y[P-1]) + int64(w.y[2*P-2]))
	clear(w.r3[P:])
	ev := &w.r3

	var zero archsimd.Int8x32
	weight := 0
	for k := range 24 {
		x := loadI8((*[32]int8)(ev[32*k : 32*k+32]))
		weight += bits.OnesCount32(^x.Equal(zero).ToBits())
	}
	mask := archsimd.BroadcastInt8x32(int8(nzMask(int32(weight - W)))) // 0 if weight W, -1 otherwise
	var out [768]int8
	for k := range 24 {
		x := loadI8((*[32]int8)(ev[32*k : 32*k+32]))
		o := loadI8((*[32]int8)(weightOnes[32*k : 32*k+32]))
		storeI8(x.Xor(o).AndNot(mask).Xor(o), (*[32]int8)(out[32*k:32*k+32]))
	}
	clearUpper()
	copy(r[:], out[:P])
	clear(out[:])
	w.put()
}

// foldRoundVec sets rd[i] for i = 1..768 (meaningful for 1..p-2) to
// mulRounded's digit of the folded coefficient v_i of y: with x = v_i mod
// q centered, floor((x + Q12 + 1)/3) = round((x + Q12)/3) (x + Q12 + 1 is
// an integer, so (x + Q12)/3 is within 1/3 of an integer and its computed
// value within 2^-40 of it). Exact as foldSplitVec.
func foldRoundVec(rd *[776]uint32, y *[1536]float64) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	qinv, qf := archsimd.BroadcastFloat64x4(1.0/Q), archsimd.BroadcastFloat64x4(Q)
	third, q12 := archsimd.BroadcastFloat64x4(1.0/3), archsimd.BroadcastFloat64x4(Q12)
	digit := func(i int) archsimd.Int32x4 {
		v := loadF((*[4]float64)(y[i : i+4])).Add(loadF((*[4]float64)(y[P+i : P+i+4]))).Add(loadF((*[4]float64)(y[P+i-1 : P+i+3])))
		x := v.Sub(v.Mul(qinv).Add(mag).Sub(mag).Mul(qf))
		return x.Add(q12).Mul(third).Add(mag).Sub(mag).ConvertToInt32()
	}
	for j := range 96 {
		i := 1 + 8*j
		var d archsimd.Int32x8
		d = d.SetLo(digit(i)).SetHi(digit(i + 4))
		storeU32(d.AsUint32x8(), (*[8]uint32)(rd[i:i+8]))
	}
}

// foldSmallVec sets out[i] for i = 1..768 (meaningful for 1..p-2) to the
// folded coefficient v_i of y reduced mod 3, or, if lift, to 3*v_i reduced
// mod q and then mod 3 (mulLift3). Exact as foldSplitVec; the outputs are
// stored eight bytes apart (each store's upper eight bytes are overwritten
// by the next).
func foldSmallVec(out *[784]int8, y *[1536]float64, lift bool) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	qinv, qf := archsimd.BroadcastFloat64x4(1.0/Q), archsimd.BroadcastFloat64x4(Q)
	third, three := archsimd.BroadcastFloat64x4(1.0/3), archsimd.BroadcastFloat64x4(3)
	pick := loadI8x16(&lowBytes)
	red := func(i int) archsimd.Int32x4 {
		v := loadF((*[4]float64)(y[i : i+4])).Add(loadF((*[4]float64)(y[P+i : P+i+4]))).Add(loadF((*[4]float64)(y[P+i-1 : P+i+3])))
		if lift { // public
			v = v.Mul(three)
			v = v.Sub(v.Mul(qinv).Add(mag).Sub(mag).Mul(qf))
		}
		return v.Sub(v.Mul(third).Add(mag).Sub(mag).Mul(three)).ConvertToInt32()
	}
	for j := range 96 {
		i := 1 + 8*j
		t := red(i).SaturateToInt16Concat(red(i + 4))
		storeI8x16(t.AsInt8x16().PermuteOrZero(pick), (*[16]int8)(out[i:i+16]))
	}
}

// decodeListSIMD is decodeList on the vector path: 32 bytes are eight
// little-endian words.
func decodeListSIMD(L *[P]uint32, buf *[randomBytes]byte) {
	for k := range P / 8 {
		storeU32(loadU8((*[32]uint8)(buf[32*k:32*k+32])).AsUint32x8(), (*[8]uint32)(L[8*k:8*k+8]))
	}
	clearUpper()
	L[P-1] = uint32(buf[4*P-4]) | uint32(buf[4*P-3])<<8 | uint32(buf[4*P-2])<<16 | uint32(buf[4*P-1])<<24
	clear(buf[:])
}

// smallFromListSIMD is smallFromList on the vector path, eight words at a
// time: ((L_i & (2^30-1))*3) >> 30, minus one, packed to bytes as in
// shortFromListSIMD. (The shift count is a vector: with a scalar count the
// compiler would load it with a legacy-SSE move.)
func smallFromListSIMD(out *[P]int8, L *[P]uint32) {
	var o [P + 15]int8
	low30, three, one := archsimd.BroadcastUint32x8(1<<30-1), archsimd.BroadcastUint32x8(3), archsimd.BroadcastUint32x8(1)
	s30 := archsimd.BroadcastUint32x8(30)
	pick := loadI8x16(&lowBytes)
	for k := range P / 8 {
		w := loadU32((*[8]uint32)(L[8*k : 8*k+8])).And(low30).Mul(three).ShiftRight(s30).Sub(one).AsInt32x8()
		b := w.GetLo().SaturateToInt16Concat(w.GetHi()).AsInt8x16().PermuteOrZero(pick)
		storeI8x16(b, (*[16]int8)(o[8*k:8*k+16]))
	}
	clearUpper()
	copy(out[:P-1], o[:P-1])
	out[P-1] = int8(((L[P-1]&0x3fffffff)*3)>>30) - 1
	clear(o[:])
}
