//go:build !purego

package core

import "github.com/pqkex/pqkex/internal/vecarith"

// asmEnabled selects the AVX2 assembly kernels (asm_amd64.go): in the
// default build on amd64 when the CPU has AVX2, which internal/vecarith
// decides once (golang.org/x/sys/cpu) and names for pqkex bench. It is a
// variable only so that tests can run the scalar code in the same binary
// (UseVectorPath). With -tags purego and on other architectures,
// asm_off.go makes it a constant false.
var asmEnabled = vecarith.AVX2

// UseVectorPath turns the AVX2 assembly path on (if the CPU has AVX2) or
// off and returns whether it was on. It is for tests (the known answers
// with the path forced off) and instrcount; package sntrup761 does not
// export it. It must not be called while sntrup761 operations run.
func UseVectorPath(on bool) (was bool) {
	was = asmEnabled
	asmEnabled = on && vecarith.AVX2
	return was
}
