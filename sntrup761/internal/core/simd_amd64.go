//go:build goexperiment.simd && amd64

package core

import (
	"simd/archsimd"

	"github.com/pqkex/pqkex/internal/vecarith"
)

// Dispatch for the optional vector path (built only with GOEXPERIMENT=simd
// on amd64; see simd_other.go for every other build). The vector kernels
// live in *_simd_amd64.go and use AVX and AVX2 instructions only; they run
// when the CPU has AVX2, which internal/vecarith decides once. A kernel computes the
// same function as the scalar code it replaces (same bytes out for every
// input; the tests in simd_amd64_test.go compare both on random inputs).

// simdEnabled selects the vector kernels: when the CPU has AVX2
// (internal/vecarith decides, and names the path for pqkex bench). It is a
// variable only so that the tests can run the scalar code in the same
// binary.
var simdEnabled = vecarith.AVX2

// clearUpper clears the upper halves of the YMM registers when a kernel
// returns (VZEROUPPER), so that legacy-SSE code after it (the scalar Go
// float code, SHA-NI, AES-NI) pays no AVX-SSE transition penalty.
func clearUpper() { archsimd.ClearAVXUpperBits() }
