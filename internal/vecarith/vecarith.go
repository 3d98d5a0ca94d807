// Package vecarith names which arithmetic the sntrup761 code runs in this
// binary, for pqkex bench and the tests that check its report.
// sntrup761/internal/core has one vector path, for amd64 CPUs with AVX2:
// the assembly kernels (avx2_amd64.s, generated with avo), built by
// default and left out with -tags purego.
//
// The decision is the core's (asm_enabled_amd64.go); this package mirrors
// it: the same build constraints and the same golang.org/x/sys/cpu
// variable. It cannot ask the core (Go's internal rule keeps
// sntrup761/internal/core to the sntrup761 tree), and the core must not
// ask it (the sntrup761 tree imports nothing of the module's root
// internal/, whose engine imports sntrup761). The core's
// TestVecarithMirror proves the two agree, under each GODEBUG setting of
// the CPU's features.
package vecarith

// Label names the arithmetic: "avx2 (assembly)" when the assembly path is
// compiled in and the CPU has AVX2, else "scalar", with the reason when
// the assembly path is compiled in.
func Label() string {
	switch {
	case AVX2:
		return "avx2 (" + path + ")"
	case built:
		return "scalar (" + path + " build, AVX2 absent or turned off by GODEBUG)"
	}
	return "scalar"
}
