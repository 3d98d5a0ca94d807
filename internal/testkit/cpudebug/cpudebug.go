// Package cpudebug tells tests whether GODEBUG turns a CPU feature off,
// as GODEBUG=cpu.avx2=off does on an AVX2 machine to force sntrup761's
// scalar code: golang.org/x/sys/cpu (through which the code decides) and
// the Go runtime honour it, the kernel's /proc/cpuinfo does not.
package cpudebug

import (
	"os"
	"strings"
)

// Off reports whether the GODEBUG environment variable turns the x86 CPU
// feature name (such as "avx2") off for golang.org/x/sys/cpu: its last
// cpu.name or cpu.all setting is "off" (x/sys/cpu reads them in order, a
// later one overriding an earlier one).
func Off(name string) bool {
	off := false
	for _, f := range strings.Split(os.Getenv("GODEBUG"), ",") {
		key, value, ok := strings.Cut(f, "=")
		if !ok || key != "cpu."+name && key != "cpu.all" {
			continue
		}
		switch value {
		case "off":
			off = true
		case "on":
			off = false
		}
	}
	return off
}
