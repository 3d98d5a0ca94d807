//go:build goexperiment.simd && amd64

package sntrup761

import "simd/archsimd"

// archsimdAVX2 reports simd/archsimd's AVX2 flag, and that there is one.
func archsimdAVX2() (has, ok bool) { return archsimd.X86.AVX2(), true }
