//go:build !purego

package core

import "golang.org/x/sys/cpu"

// asmBuilt says that this build has the AVX2 assembly path (asm_off.go:
// it has not).
const asmBuilt = true

// hasAVX2 is where the assembly path's condition is decided, once:
// whether the CPU (and the OS, for the YMM registers) has AVX2, as
// golang.org/x/sys/cpu reports it, GODEBUG=cpu.avx2=off included.
// internal/vecarith, which names the arithmetic for pqkex bench outside
// this tree, reads the same variable under the same build constraints;
// TestVecarithMirror proves that the two agree under each GODEBUG
// setting of the CPU's features.
var hasAVX2 = cpu.X86.HasAVX2

// asmEnabled selects the AVX2 assembly kernels (asm_amd64.go): in the
// default build on amd64 when the CPU has AVX2. It is a variable only so
// that tests can run the scalar code in the same binary (UseVectorPath).
// With -tags purego and on other architectures, asm_off.go makes it a
// constant false.
var asmEnabled = hasAVX2

// UseVectorPath turns the AVX2 assembly path on (if the CPU has AVX2) or
// off and returns whether it was on. It is for tests (the known answers
// with the path forced off) and instrcount; package sntrup761 does not
// export it. It must not be called while sntrup761 operations run.
func UseVectorPath(on bool) (was bool) {
	was = asmEnabled
	asmEnabled = on && hasAVX2
	return was
}
