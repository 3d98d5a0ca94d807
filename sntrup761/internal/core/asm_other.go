//go:build !amd64 || purego

package core

// Stand-ins for the assembly path's functions (asm_amd64.go), never
// called: asmEnabled is a constant false in this build.

func recipRqAVX2(out *[P]int16, a *[P]int16, scale int16) int32 { panic("core: no assembly path") }

func r3RecipAVX2(out *[P]int8, a *[P]int8) int32 { panic("core: no assembly path") }

func sortShortAVX2(L *[P]uint32) { panic("core: no assembly path") }

func shortFromListAVX2(out *[P]int8, L *[P]uint32) { panic("core: no assembly path") }

func dif4StageAVX2(x *complex128, n, q int, w1, w2, w3 *complex128) { panic("core: no assembly path") }

func dit4StageAVX2(x *complex128, n, q int, w1, w2, w3 *complex128) { panic("core: no assembly path") }

func dif16AVX2(x *complex128, pairs int) { panic("core: no assembly path") }

func dit16ProductsAVX2(z, a, b *complex128, pairs int) { panic("core: no assembly path") }

func dit16ProductSumsAVX2(z, a, b, c, d *complex128, pairs int) { panic("core: no assembly path") }

func twistRadix3Asm[T int8 | int16 | int32](pl *fftPlan, x []complex128, a []T) {
	panic("core: no assembly path")
}

func lastInverse768AVX2(c *[1536]int64, x *[768]complex128, k *[256][5]complex128) {
	panic("core: no assembly path")
}

func foldRoundAVX2(R *[P]uint32, c *[1536]int64) { panic("core: no assembly path") }

func foldLift3AVX2(e *[P]int8, c *[1536]int64) { panic("core: no assembly path") }

func foldR3AVX2(e *[P]int8, c *[1536]int64) { panic("core: no assembly path") }

func foldSplit1AVX2(rq *[P]int16, r3 *[P]int8, c *[1536]int64) { panic("core: no assembly path") }

func foldSplit3AVX2(rq *[P]int16, r3 *[P]int8, c *[1536]int64) { panic("core: no assembly path") }

func r3InvertibleAVX2(g *[P]int8) uint64 { panic("core: no assembly path") }

func foldRqAVX2(out *[P]int16, c *[1536]int64) { panic("core: no assembly path") }

func scaleSplitAVX2(x *[768]complex128) { panic("core: no assembly path") }

func addSplitAVX2(z, a, b *[768]complex128) { panic("core: no assembly path") }

func shortKeysAVX2(x *[1024]uint32, L *[P]uint32) { panic("core: no assembly path") }

func shortCoeffsAVX2(out *[P]int8, x *[1024]uint32) { panic("core: no assembly path") }

func smallFromListAVX2(out *[P]int8, L *[P]uint32) { panic("core: no assembly path") }

func encodeBulk1AVX2(o *byte, cur *uint32, m uint32, groups int) { panic("core: no assembly path") }

func encodeBulk2AVX2(o *byte, cur *uint32, m uint32, groups int) { panic("core: no assembly path") }

func decodeListAVX2(L *[P]uint32, buf *[randomBytes]byte) { panic("core: no assembly path") }

func decodeBulk1AVX2(nx, cur *uint32, o *byte, m uint32, groups int) { panic("core: no assembly path") }

func decodeBulk2AVX2(nx, cur *uint32, o *byte, m uint32, groups int) { panic("core: no assembly path") }

func smallEncodeAVX2(out *[smallBytes]byte, f *[P]int8) { panic("core: no assembly path") }

func decryptFinishAVX2(r *[P]int8, ev *[768]int8) { panic("core: no assembly path") }
