//go:build !(goexperiment.simd && amd64)

package core

import "io"

// Without GOEXPERIMENT=simd on amd64 the vector path does not exist:
// simdEnabled is a constant false, so the hooks in the scalar code compile
// away and these stand-ins are never called.

const simdEnabled = false

func recipRqSIMD(out *[P]int16, a *[P]int16, scale int16) int32 { panic("core: no SIMD path") }

func r3RecipSIMD(out *[P]int8, a *[P]int8) int32 { panic("core: no SIMD path") }

func sortShortSIMD(L *[P]uint32) { panic("core: no SIMD path") }

func shortFromListSIMD(out *[P]int8, L *[P]uint32) { panic("core: no SIMD path") }

func forward768SIMD[T int8 | int16 | int32](x *spectrum, a []T) { panic("core: no SIMD path") }

func inverse768SIMD(c *[1536]int64, x *spectrum) { panic("core: no SIMD path") }

func inverseProducts768SIMD(out *[1536]int64, a, b, c, d []complex128) { panic("core: no SIMD path") }

func foldRqSIMD(out *[P]int16, c *[1536]int64, k int64) { panic("core: no SIMD path") }

func foldR3SIMD(out *[P]int8, c *[1536]int64) { panic("core: no SIMD path") }

func lift3SIMD(e *[P]int8, c *[1536]int64) { panic("core: no SIMD path") }

func (pk *PublicKey) roundedProductSIMD(R *[P]uint32, r *[P]int8) { panic("core: no SIMD path") }

func (sk *PrivateKey) decryptSIMD(r *[P]int8, c *[P]int16) { panic("core: no SIMD path") }

func decodeListSIMD(L *[P]uint32, buf *[randomBytes]byte) { panic("core: no SIMD path") }

func smallFromListSIMD(out *[P]int8, L *[P]uint32) { panic("core: no SIMD path") }

func encodeBulkSIMD(o []byte, cur []uint32, lv *codecLevel) int { panic("core: no SIMD path") }

func decodeBulkSIMD(nx, cur []uint32, o []byte, lv *codecLevel) int { panic("core: no SIMD path") }

func r3InvertibleSIMD(g *[P]int8) uint64 { panic("core: no SIMD path") }

func generateKeysSIMD(rand io.Reader, n int) ([]*PrivateKey, error) { panic("core: no SIMD path") }
