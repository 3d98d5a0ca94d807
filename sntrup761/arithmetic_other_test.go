//go:build !(goexperiment.simd && amd64)

package sntrup761

// archsimdAVX2: simd/archsimd does not exist in this build.
func archsimdAVX2() (has, ok bool) { return false, false }
