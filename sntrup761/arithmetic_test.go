package sntrup761

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/cpudebug"
	"github.com/pqkex/pqkex/internal/vecarith"
)

const (
	labelScalar       = "scalar"
	labelAsm          = "avx2 (assembly)"
	labelAsmNoAVX2CPU = "scalar (assembly build, AVX2 absent or turned off by GODEBUG)"
)

// TestArithmetic checks what vecarith reports to pqkex bench against
// what it should be, derived apart from the code that reports it (the
// build settings recorded in the binary, the CPU's own feature list and
// GODEBUG, which can turn AVX2 off for the code: cpu.avx2=off forces the
// scalar code on an AVX2 machine, and the kernel's list ignores it), and
// against the path that actually runs: the switch that the core's
// dispatching functions read (read through UseVectorPath, then restored).
func TestArithmetic(t *testing.T) {
	label := vecarith.Label()

	want := labelScalar
	switch path, settings := builtWith(t); path {
	case "assembly":
		want = labelAsmNoAVX2CPU
		switch hasAVX2, off := cpuHasAVX2(t), cpudebug.Off("avx2"); {
		case hasAVX2 && off:
			t.Log("GODEBUG turns the CPU's AVX2 off: the scalar code runs")
		case hasAVX2:
			want = labelAsm
		}
	default:
		t.Logf("build settings %s: no vector path", settings)
	}
	if label != want {
		t.Errorf("vecarith.Label() = %q, want %q", label, want)
	}

	// UseVectorPath(true) returns whether the path was on and leaves it
	// on if the CPU allows; the deferred call puts the old state back.
	on := UseVectorPath(true)
	defer UseVectorPath(on)
	if on != (label == labelAsm) {
		t.Errorf("vecarith.Label() = %q, but the assembly path is on: %v", label, on)
	}
}

// builtWith reports which vector path the test binary has, from the
// settings the go command records in it: "assembly" for amd64 without the
// purego tag, "" otherwise.
func builtWith(t *testing.T) (string, string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	var goarch, tags string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOARCH":
			goarch = s.Value
		case "-tags":
			tags = s.Value
		}
	}
	if goarch == "" {
		t.Fatal("build information without GOARCH")
	}
	settings := "GOARCH=" + goarch + " -tags=" + tags
	switch {
	case goarch != "amd64":
		return "", settings
	case slices.Contains(strings.Split(tags, ","), "purego"):
		return "", settings
	}
	return "assembly", settings
}

// cpuHasAVX2 reports whether the CPU has AVX2 (usable by the OS), from
// the kernel's flags in /proc/cpuinfo. Elsewhere than on Linux there is
// no source apart from the one vecarith reads, so the test is skipped.
func cpuHasAVX2(t *testing.T) bool {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc/cpuinfo: no source of the CPU's features apart from vecarith's")
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(info)) {
		if name, flags, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			return slices.Contains(strings.Fields(flags), "avx2")
		}
	}
	t.Fatal("/proc/cpuinfo has no flags line")
	return false
}
