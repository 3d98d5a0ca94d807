// Package vecarith tells which arithmetic the sntrup761 code runs in this
// binary. The optional vector path (sntrup761/internal/core's
// *_simd_amd64.go files, built only with GOEXPERIMENT=simd on amd64) runs
// when the CPU has AVX2, which is decided once, here: the core reads AVX2,
// "pqkex bench" reports Label.
package vecarith

// Label names the arithmetic: "avx2 (GOEXPERIMENT=simd)" when the vector
// path is compiled in and the CPU has AVX2, else "scalar", with the
// reason in a GOEXPERIMENT=simd build.
func Label() string {
	switch {
	case AVX2:
		return "avx2 (GOEXPERIMENT=simd)"
	case built:
		return "scalar (GOEXPERIMENT=simd build, CPU without AVX2)"
	}
	return "scalar"
}
