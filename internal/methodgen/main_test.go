package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// TestWrapComments: long comment lines wrap at words within the width,
// list items keep their continuation under the item's text, and code,
// directives, short lines and code blocks are left as they are.
func TestWrapComments(t *testing.T) {
	long := strings.Repeat("word ", 20)
	in := strings.Join([]string{
		"\t// " + long,
		"//   - " + long,
		"//\t" + long,
		"//go:generate " + long,
		"// short line",
		"x := 1 // " + long,
	}, "\n")
	want := strings.Join([]string{
		"\t// word word word word word word word word word word word word word word",
		"\t// word word word word word word",
		"//   - word word word word word word word word word word word word word word",
		"//     word word word word word word",
		"//\t" + long,
		"//go:generate " + long,
		"// short line",
		"x := 1 // " + long,
	}, "\n")
	if got := string(wrapComments([]byte(in), 76)); got != want {
		t.Errorf("wrapComments:\n%s\nwant:\n%s", got, want)
	}
}

// TestGenerateEvery: the template gives valid, formatted Go for every
// method, byte for byte the committed facade (../../pkg/pkg.go), so that
// go test catches a hand edit or a template change not regenerated (as
// .ci/run's go generate and git diff do), and refuses a package that is
// not one.
func TestGenerateEvery(t *testing.T) {
	for _, m := range methods {
		src, err := generate(m.Pkg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), "// Code generated ") || !strings.Contains(string(src), "package "+m.Pkg+"\n") {
			t.Errorf("%s: no generated-code header or wrong package clause", m.Pkg)
		}
		file := filepath.Join("..", "..", m.Pkg, m.Pkg+".go")
		committed, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(src, committed) {
			t.Errorf("%s differs from what methodgen generates (line %d): edit facade.tmpl or methods.go, not the file, and run go generate ./%s", file, firstDiffLine(src, committed), m.Pkg)
		}
	}
	if _, err := generate("sshkex"); err == nil {
		t.Error("generate(sshkex) succeeded")
	}
}

// firstDiffLine returns the number of the first line where a and b
// differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return 1 + bytes.Count(a[:i], []byte("\n"))
}

// engines are the hybrid engine's methods, by methods' Engine names.
var engines = map[string]*hybrid.Method{
	"MLKEM768X25519":    &hybrid.MLKEM768X25519,
	"SNTRUP761X25519":   &hybrid.SNTRUP761X25519,
	"MLKEM768NISTP256":  &hybrid.MLKEM768NISTP256,
	"MLKEM1024NISTP384": &hybrid.MLKEM1024NISTP384,
}

// TestFactsMatchEngine: what the table says of each method, and the
// facades' documentation repeats, is what the engine does: the package
// is the engine's error prefix, Approved is the engine's, ChecksEK holds
// exactly when the engine's KEM refuses an encapsulation key whose every
// coefficient is out of range (all bytes 0xff: FIPS 203 section 7.2's
// modulus check), and the sizes are the engine's.
func TestFactsMatchEngine(t *testing.T) {
	if len(engines) != len(methods) {
		t.Fatalf("%d engines for %d methods", len(engines), len(methods))
	}
	for _, m := range methods {
		e := engines[m.Engine]
		if e == nil {
			t.Errorf("%s: no engine %s", m.Pkg, m.Engine)
			continue
		}
		kem := e.Backend()
		_, err := kem.ParseEncapsulationKey(bytes.Repeat([]byte{0xff}, kem.EncapsulationKeySize()))
		for _, f := range []struct {
			what      string
			got, want any
		}{
			{"package (engine prefix)", m.Pkg, e.Prefix},
			{"Approved", m.Approved, e.Approved},
			{"ChecksEK (the engine refuses an unreduced key)", m.ChecksEK, err != nil},
			{"EKBytes", m.EKBytes, kem.EncapsulationKeySize()},
			{"CTBytes", m.CTBytes, kem.CiphertextSize()},
			{"PointBytes", m.PointBytes, e.Curve.PublicKeySize()},
			{"HashBytes", m.HashBytes, e.Hash.Size()},
			{"Curve", m.Curve, e.Curve.Name()},
		} {
			if f.got != f.want {
				t.Errorf("%s: %s is %v in the table, %v in the engine", m.Pkg, f.what, f.got, f.want)
			}
		}
	}
}
