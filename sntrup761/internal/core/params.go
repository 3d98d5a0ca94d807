// Package core is the fast implementation of sntrup761 used by package
// sntrup761. Every function here is tested against the readable
// reference in ../ref on random inputs.
package core

// The AVX2 kernels (avx2_amd64.s) and their Go declarations
// (avx2_amd64.go) are generated with avo by _asm, a module of its own;
// .ci/run runs this line and fails if the committed files differ.
//
//go:generate go -C _asm run . -out ../avx2_amd64.s -stubs ../avx2_amd64.go -pkg core

// Parameters of sntrup761 (NTRU Prime round 3, section 3.5).
const (
	P   = 761
	Q   = 4591
	W   = 286
	Q12 = (Q - 1) / 2
)
