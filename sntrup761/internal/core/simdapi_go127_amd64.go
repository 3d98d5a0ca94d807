//go:build goexperiment.simd && amd64 && go1.27

package core

import "simd/archsimd"

// The loads, stores and shuffles of the vector kernels under their Go 1.27
// names; simdapi_go126_amd64.go has the Go 1.26 names of the same
// instructions (the experiment renamed them). Keeping the differences here
// leaves the kernels identical under both toolchains.

func loadF(p *[4]float64) archsimd.Float64x4       { return archsimd.LoadFloat64x4Array(p) }
func storeF(v archsimd.Float64x4, p *[4]float64)   { v.StoreArray(p) }
func loadI16(p *[16]int16) archsimd.Int16x16       { return archsimd.LoadInt16x16Array(p) }
func storeI16(v archsimd.Int16x16, p *[16]int16)   { v.StoreArray(p) }
func loadI8(p *[32]int8) archsimd.Int8x32          { return archsimd.LoadInt8x32Array(p) }
func loadU8(p *[32]uint8) archsimd.Uint8x32        { return archsimd.LoadUint8x32Array(p) }
func loadU8x16(p *[16]uint8) archsimd.Uint8x16     { return archsimd.LoadUint8x16Array(p) }
func storeU8x16(v archsimd.Uint8x16, p *[16]uint8) { v.StoreArray(p) }
func loadU32x4(p *[4]uint32) archsimd.Uint32x4     { return archsimd.LoadUint32x4Array(p) }
func storeI8(v archsimd.Int8x32, p *[32]int8)      { v.StoreArray(p) }
func loadU32(p *[8]uint32) archsimd.Uint32x8       { return archsimd.LoadUint32x8Array(p) }
func storeU32(v archsimd.Uint32x8, p *[8]uint32)   { v.StoreArray(p) }
func loadU32s(s []uint32) archsimd.Uint32x8        { return archsimd.LoadUint32x8(s) }
func storeU32s(v archsimd.Uint32x8, s []uint32)    { v.Store(s) }
func loadU64(p *[4]uint64) archsimd.Uint64x4       { return archsimd.LoadUint64x4Array(p) }
func storeU64(v archsimd.Uint64x4, p *[4]uint64)   { v.StoreArray(p) }
func loadI16x8(p *[8]int16) archsimd.Int16x8       { return archsimd.LoadInt16x8Array(p) }
func loadI8x16(p *[16]int8) archsimd.Int8x16       { return archsimd.LoadInt8x16Array(p) }
func storeI16x8(v archsimd.Int16x8, p *[8]int16)   { v.StoreArray(p) }
func storeI8x16(v archsimd.Int8x16, p *[16]int8)   { v.StoreArray(p) }
func loadI64s(s []int64) archsimd.Int64x4          { return archsimd.LoadInt64x4(s) }
func storeI64s(v archsimd.Int64x4, s []int64)      { v.Store(s) }
func storeI64(v archsimd.Int64x4, p *[4]int64)     { v.StoreArray(p) }

// pairsLo and pairsHi take, in each 128-bit half, element 0 (resp. 1) of
// x then of y (VSHUFPD); halvesLo and halvesHi concatenate the low (resp.
// high) 128-bit halves of x and y (VPERM2F128).
func pairsLo(x, y archsimd.Float64x4) archsimd.Float64x4 {
	return x.ConcatPermuteScalarsGrouped(0, 2, y)
}
func pairsHi(x, y archsimd.Float64x4) archsimd.Float64x4 {
	return x.ConcatPermuteScalarsGrouped(1, 3, y)
}
func halvesLo(x, y archsimd.Float64x4) archsimd.Float64x4 { return x.ConcatPermute128Scalars(0, 2, y) }
func halvesHi(x, y archsimd.Float64x4) archsimd.Float64x4 { return x.ConcatPermute128Scalars(1, 3, y) }

// halvesMidU returns the high 128-bit half of x then the low one of y
// (VPERM2I128); alignBytes8
// returns, in each 128-bit half, the 32 bytes hi:lo shifted right by 8
// bytes (VPALIGNR): the high word of lo then the low word of hi.
func halvesMidU(x, y archsimd.Uint64x4) archsimd.Uint64x4 { return x.ConcatPermute128Scalars(1, 2, y) }
func alignBytes8(hi, lo archsimd.Uint64x4) archsimd.Uint64x4 {
	return hi.AsUint8x32().ConcatShiftBytesRightGrouped(lo.AsUint8x32(), 8).AsUint64x4()
}

// halvesLoU32 and halvesHiU32 are halvesLo and halvesHi on 32-bit lanes
// (VPERM2I128).
func halvesLoU32(x, y archsimd.Uint32x8) archsimd.Uint32x8 {
	return x.ConcatPermute128Scalars(0, 2, y)
}
func halvesHiU32(x, y archsimd.Uint32x8) archsimd.Uint32x8 {
	return x.ConcatPermute128Scalars(1, 3, y)
}
