//go:build !purego

package vecarith

import "golang.org/x/sys/cpu"

// The default build on amd64 has the assembly path.
const (
	built = true
	path  = "assembly"
)

// AVX2 reports whether the CPU (and the OS, for the YMM registers) has
// AVX2, so that the assembly path runs: the variable the core's hasAVX2
// reads (sntrup761/internal/core/asm_enabled_amd64.go).
var AVX2 = cpu.X86.HasAVX2
