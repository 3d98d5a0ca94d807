//go:build goexperiment.simd && amd64

package core

import (
	"encoding/binary"
	"simd/archsimd"
)

// The bulk loops of the mixed-radix codec (encode.go) on vectors. They
// handle public data only (public keys and ciphertexts), but are
// branch-free in the data anyway: the same operations on every lane, loop
// bounds from the public level tables.

// Lane tables: evenOdd puts the even words of a vector in its low half and
// the odd ones in its high half (VPERMD); low1 and low2 gather the low one
// or two bytes of each word into the bottom of each 128-bit half (VPSHUFB),
// and join1, join2 bring the two halves' bytes together (VPERMD).
var (
	evenOdd = [8]uint32{0, 2, 4, 6, 1, 3, 5, 7}
	low1    = [32]int8{0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	low2 = [32]int8{0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
		0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1}
	join1 = [8]uint32{0, 4, 1, 5, 2, 6, 3, 7}
	join2 = [8]uint32{0, 1, 4, 5, 2, 3, 6, 7}
)

// encodeBulkSIMD is encodeBulk, eight pairs per step: r = p_2i +
// p_(2i+1)*m (VPMULLD; r < 2^28), its low lv.bk bytes out, r >> 8*lv.bk
// back to cur[i]. cur[i] is written after pairs 2i, 2i+1 are read, and
// later steps read only further on, as in the scalar loop.
func encodeBulkSIMD(o []byte, cur []uint32, lv *codecLevel) int {
	n, k := lv.bulk, lv.bk
	pairs := cur[:2*n]
	o = o[:k*n]
	mv := archsimd.BroadcastUint32x8(lv.bm)
	sh := archsimd.BroadcastUint32x8(uint32(8 * k))
	perm := loadU32(&evenOdd)
	pick, join := loadI8(&low1), loadU32(&join1)
	if k == 2 { // public
		pick, join = loadI8(&low2), loadU32(&join2)
	}
	i := 0
	for ; i+8 <= n; i += 8 {
		v0 := loadU32((*[8]uint32)(pairs[2*i : 2*i+8])).Permute(perm)
		v1 := loadU32((*[8]uint32)(pairs[2*i+8 : 2*i+16])).Permute(perm)
		r := halvesLoU32(v0, v1).Add(halvesHiU32(v0, v1).Mul(mv))
		b := r.AsUint8x32().PermuteOrZeroGrouped(pick).AsUint32x8().Permute(join).GetLo()
		if k == 1 { // public
			binary.LittleEndian.PutUint64(o[i:i+8], b.AsUint64x2().GetElem(0))
		} else {
			storeU8x16(b.AsUint8x16(), (*[16]uint8)(o[2*i:2*i+16]))
		}
		storeU32(r.ShiftRight(sh), (*[8]uint32)(cur[i:i+8]))
	}
	clearUpper()
	m := lv.bm
	for ; i < n; i++ {
		r := pairs[2*i] + pairs[2*i+1]*m
		for t := range k {
			o[k*i+t] = byte(r >> (8 * t))
		}
		cur[i] = r >> (8 * k)
	}
	return len(o)
}

// decodeBulkSIMD is decodeBulk, four pairs per step in float64 lanes:
// x = (the pair's lv.bk bytes) + cur[i]*2^(8*lv.bk) < 2^30, q =
// floor((x + 1/2)/m), rem = x - q*m, and q mod m the same way. Exact: x is
// an integer, so (x + 1/2)/m is at least 1/(2m) >= 2^-15 away from an
// integer, while its computed value (x + 1/2)*(1/m) - 1/2 is within 2^-20
// of the exact one; the floor is the rounding of that minus one half (the
// 1.5*2^52 addition).
func decodeBulkSIMD(nx, cur []uint32, o []byte, lv *codecLevel) int {
	n, k := lv.bulk, lv.bk
	nx, cur = nx[:2*n], cur[:n]
	o = o[:k*n]
	mf := float64(lv.bm)
	mv, iv := archsimd.BroadcastFloat64x4(mf), archsimd.BroadcastFloat64x4(1/mf)
	half, mag := archsimd.BroadcastFloat64x4(0.5), archsimd.BroadcastFloat64x4(roundMagic)
	scale := archsimd.BroadcastFloat64x4(256)
	if k == 2 { // public
		scale = archsimd.BroadcastFloat64x4(65536)
	}
	floorDiv := func(x f64x4) f64x4 { return x.Add(half).Mul(iv).Sub(half).Add(mag).Sub(mag) }
	i := 0
	for ; i+4 <= n && k*i+16 <= len(o); i += 4 {
		var b archsimd.Uint32x4
		if k == 1 { // public
			b = loadU8x16((*[16]uint8)(o[i : i+16])).ExtendLo4ToUint32()
		} else {
			b = loadU8x16((*[16]uint8)(o[2*i : 2*i+16])).AsUint16x8().ExtendLo4ToUint32()
		}
		x := b.AsInt32x4().ConvertToFloat64().Add(loadU32x4((*[4]uint32)(cur[i : i+4])).AsInt32x4().ConvertToFloat64().Mul(scale))
		q := floorDiv(x)
		rem := x.Sub(q.Mul(mv)).ConvertToInt32()
		r2 := q.Sub(floorDiv(q).Mul(mv)).ConvertToInt32()
		var out archsimd.Int32x8
		out = out.SetLo(rem.InterleaveLo(r2)).SetHi(rem.InterleaveHi(r2))
		storeU32(out.AsUint32x8(), (*[8]uint32)(nx[2*i:2*i+8]))
	}
	clearUpper()
	m, recip := lv.bm, lv.brecip
	for ; i < n; i++ {
		x := cur[i] << (8 * k)
		for t := range k {
			x |= uint32(o[k*i+t]) << (8 * t)
		}
		q, rem := divmod(x, m, recip)
		nx[2*i], nx[2*i+1] = rem, mod(q, m, recip)
	}
	return len(o)
}
