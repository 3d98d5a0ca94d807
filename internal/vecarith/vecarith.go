// Package vecarith tells which arithmetic the sntrup761 code runs in this
// binary. sntrup761/internal/core has one vector path, for amd64 CPUs with
// AVX2: the assembly kernels (avx2_amd64.s, generated with avo), built by
// default and left out with -tags purego. Whether the CPU has AVX2 is
// decided once, here: the core reads AVX2, "pqkex bench" reports Label.
package vecarith

// Label names the arithmetic: "avx2 (assembly)" when the assembly path is
// compiled in and the CPU has AVX2, else "scalar", with the reason when
// the assembly path is compiled in.
func Label() string {
	switch {
	case AVX2:
		return "avx2 (" + path + ")"
	case built:
		return "scalar (" + path + " build, CPU without AVX2)"
	}
	return "scalar"
}
