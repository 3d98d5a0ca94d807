//go:build !amd64 || purego

package core

// No AVX2 assembly path in this build (see asm_enabled_amd64.go): the
// hooks guarded by asmEnabled compile away.
const (
	asmBuilt   = false
	hasAVX2    = false
	asmEnabled = false
)

// UseVectorPath does nothing in this build and reports false.
func UseVectorPath(on bool) (was bool) { return false }
