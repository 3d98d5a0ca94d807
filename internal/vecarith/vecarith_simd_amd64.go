//go:build goexperiment.simd && amd64

package vecarith

import "simd/archsimd"

// built: the vector path is compiled in; path names it.
const (
	built = true
	path  = "GOEXPERIMENT=simd"
)

// AVX2 reports whether the CPU has AVX2, so that the vector path runs.
var AVX2 = archsimd.X86.AVX2()
