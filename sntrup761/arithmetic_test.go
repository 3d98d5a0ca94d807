package sntrup761

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/vecarith"
)

const (
	labelScalar       = "scalar"
	labelAVX2         = "avx2 (GOEXPERIMENT=simd)"
	labelNoAVX2CPU    = "scalar (GOEXPERIMENT=simd build, CPU without AVX2)"
	labelAsm          = "avx2 (assembly)"
	labelAsmNoAVX2CPU = "scalar (assembly build, CPU without AVX2)"
)

// TestArithmetic checks what vecarith reports to pqkex bench against
// what it should be, derived apart from the code that reports it (the
// build settings recorded in the binary and the CPU's own feature list),
// and against the path that actually runs: batch key generation, which on
// the vector path reads its randomness from core.generateKeysSIMD.
func TestArithmetic(t *testing.T) {
	label := vecarith.Label()

	want := labelScalar
	switch path, settings := builtWith(t); path {
	case "simd":
		want = labelNoAVX2CPU
		if cpuHasAVX2(t) {
			want = labelAVX2
		}
	case "assembly":
		want = labelAsmNoAVX2CPU
		if cpuHasAVX2(t) {
			want = labelAsm
		}
	default:
		t.Logf("build settings %s: no vector path", settings)
	}
	if label != want {
		t.Errorf("vecarith.Label() = %q, want %q", label, want)
	}

	vector, reads := batchReadsFromVectorPath(t)
	if reads == 0 {
		t.Fatal("GenerateKeys read nothing through readBatchKey: cannot tell which path ran")
	}
	t.Logf("vecarith.Label() = %q; %d of GenerateKeys' %d reads came from the vector path", label, vector, reads)
	if vector != 0 && vector != reads || (vector == reads) != (label == labelAVX2) {
		t.Errorf("vecarith.Label() = %q, but %d of GenerateKeys' %d reads came from the vector path (core.generateKeysSIMD)", label, vector, reads)
	}
}

// builtWith reports which vector path the test binary has, from the
// settings the go command records in it: "simd" if it was built for amd64
// with GOEXPERIMENT=simd, "assembly" for amd64 without it and without the
// purego tag, "" otherwise.
func builtWith(t *testing.T) (string, string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	var goarch, exp, tags string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOARCH":
			goarch = s.Value
		case "GOEXPERIMENT":
			exp = s.Value
		case "-tags":
			tags = s.Value
		}
	}
	if goarch == "" {
		t.Fatal("build information without GOARCH")
	}
	settings := "GOARCH=" + goarch + " GOEXPERIMENT=" + exp + " -tags=" + tags
	switch {
	case goarch != "amd64":
		return "", settings
	case slices.Contains(strings.Split(exp, ","), "simd"):
		return "simd", settings
	case slices.Contains(strings.Split(tags, ","), "purego"):
		return "", settings
	}
	return "assembly", settings
}

// cpuHasAVX2 reports whether the CPU has AVX2 (usable by the OS): from
// the kernel's flags in /proc/cpuinfo on Linux, else from
// simd/archsimd.
func cpuHasAVX2(t *testing.T) bool {
	if runtime.GOOS == "linux" {
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
	}
	has, ok := archsimdAVX2()
	if !ok {
		t.Fatal("a GOEXPERIMENT=simd amd64 build without simd/archsimd in its tests")
	}
	return has
}

// batchReadsFromVectorPath generates a batch of two keys and returns how
// many of its reads of randomness came from readBatchKey, and how many of
// those from readBatchKey called by core.generateKeysSIMD.
func batchReadsFromVectorPath(t *testing.T) (vector, reads int) {
	seed := make([]byte, 8*(2*3044+191))
	rand.Read(seed)
	r := &stackReader{r: bytes.NewReader(seed)}
	if _, err := generateKeys(r, 2); err != nil {
		t.Fatal(err)
	}
	return r.vector, r.reads
}

// stackReader counts the Reads made from core.readBatchKey, and among
// them those with core.generateKeysSIMD on the stack.
type stackReader struct {
	r             io.Reader
	reads, vector int
}

func (s *stackReader) Read(p []byte) (int, error) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var batch, vector bool
	for {
		f, more := frames.Next()
		batch = batch || strings.HasSuffix(f.Function, "/sntrup761/internal/core.readBatchKey")
		vector = vector || strings.HasSuffix(f.Function, "/sntrup761/internal/core.generateKeysSIMD")
		if !more {
			break
		}
	}
	if batch {
		s.reads++
		if vector {
			s.vector++
		}
	}
	return s.r.Read(p)
}
