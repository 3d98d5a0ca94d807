//go:build goexperiment.simd && amd64

package sntrup761

import "simd/archsimd"

func wantArithmetic() string {
	if archsimd.X86.AVX2() {
		return "avx2 (GOEXPERIMENT=simd)"
	}
	return "scalar (GOEXPERIMENT=simd build, CPU without AVX2)"
}
