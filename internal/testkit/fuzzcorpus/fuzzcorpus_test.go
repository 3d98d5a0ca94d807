package fuzzcorpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestLibFuzzerInput round-trips seeds through the shim's decoding
// (FromLibFuzzer, checked against hand-made inputs below): every seed
// with a non-empty last value comes back as it went in.
func TestLibFuzzerInput(t *testing.T) {
	seeds := [][][]byte{
		{[]byte("x")},
		{bytes.Repeat([]byte{0xa5}, 1216)},
		{[]byte("secret key"), []byte("ciphertext")},
		{{}, []byte("after an empty value")},
		{{}, {}, []byte("z")},
		{bytes.Repeat([]byte{1}, 30), bytes.Repeat([]byte{2}, 3)},
	}
	for _, s := range seeds {
		in, ok := LibFuzzerInput(s...)
		if !ok {
			t.Fatalf("LibFuzzerInput(%q) refused", s)
		}
		got, ok := FromLibFuzzer(in, len(s))
		if !ok || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", s) {
			t.Errorf("seed %q: input %x decodes to %q (%v)", s, in, got, ok)
		}
	}
	for _, s := range [][][]byte{{}, {{}}, {[]byte("a"), {}}} {
		if in, ok := LibFuzzerInput(s...); ok {
			t.Errorf("LibFuzzerInput(%q) = %x: the shim cannot give an empty last value", s, in)
		}
	}
}

// TestFromLibFuzzer decodes inputs written out by hand from go-fuzz-headers'
// GetBytes rules.
func TestFromLibFuzzer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want []string
	}{
		{"\x00\x00\x00\x03abc", 1, []string{"abc"}},
		{"\x00\x00\x00\x05abc", 1, []string{"ab"}},                             // 5 mod 3 left
		{"\x00\x00\x00\x00abc", 1, []string{""}},                               // 0 means 30; 30 mod 3
		{"\x00\x00\x00\x01abc\x00\x00\x00\x01d", 2, []string{"a", "\x00\x01"}}, // the second length is "bc\x00\x00", 2 mod the 3 left
		{"\x00\x00\x00\x01a\x00\x00\x00\x03xyz", 2, []string{"a", "xyz"}},
		{"\x00\x00\x00\x01a\x00\x00\x00\x09xyz", 2, []string{"a", ""}}, // 9 mod 3
	} {
		got, ok := FromLibFuzzer([]byte(tc.in), tc.n)
		if !ok || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", toBytes(tc.want)) {
			t.Errorf("FromLibFuzzer(%q, %d) = %q, %v; want %q", tc.in, tc.n, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"", "\x00\x00\x00", "\x00\x00\x00\x03", "\x00\x00\x00\x01a"} {
		if got, ok := FromLibFuzzer([]byte(bad), 2); ok {
			t.Errorf("FromLibFuzzer(%q, 2) = %q", bad, got)
		}
	}
}

func toBytes(ss []string) [][]byte {
	var out [][]byte
	for _, s := range ss {
		out = append(out, []byte(s))
	}
	return out
}

func TestFile(t *testing.T) {
	values := [][]byte{{0, 1, 0xff, '"', '\\', '\n'}, []byte("héllo"), {}}
	data := FormatFile(values...)
	got, err := ParseFile(data)
	if err != nil || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", values) {
		t.Fatalf("ParseFile(%q) = %q, %v", data, got, err)
	}
	// What go test writes, byte for byte (its encoding uses %q).
	want := "go test fuzz v1\n[]byte(\"\\x00\\x01\\xff\\\"\\\\\\n\")\n[]byte(\"héllo\")\n[]byte(\"\")\n"
	if string(data) != want {
		t.Errorf("FormatFile = %q, want %q", data, want)
	}
	if v, err := ParseFile([]byte("go test fuzz v1\r\n\n[]byte(`raw`)\n")); err != nil || string(v[0]) != "raw" {
		t.Errorf("a raw string literal: %q, %v", v, err)
	}
	for _, bad := range []string{"", "go test fuzz v2\n[]byte(\"\")\n", "go test fuzz v1\n", "go test fuzz v1\nstring(\"x\")\n",
		"go test fuzz v1\nint(1)\n", "go test fuzz v1\n[]byte(x)\n", "go test fuzz v1\n[4]byte(\"x\")\n", "go test fuzz v1\n[]byte(\"x\"\n"} {
		if v, err := ParseFile([]byte(bad)); err == nil {
			t.Errorf("ParseFile(%q) = %q", bad, v)
		}
	}
}

// fakeF records what Add passes to a testing.F.
type fakeF struct {
	added [][]any
	fatal string
}

func (f *fakeF) Add(args ...any)                   { f.added = append(f.added, args) }
func (f *fakeF) Name() string                      { return "FuzzX" }
func (f *fakeF) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestAdd(t *testing.T) {
	f := &fakeF{}
	t.Setenv(SeedsEnv, "")
	Add(f, []byte("a"), []byte("b"))
	if len(f.added) != 1 || len(f.added[0]) != 2 || string(f.added[0][1].([]byte)) != "b" {
		t.Fatalf("f.Add got %v", f.added)
	}
	dir := t.TempDir()
	t.Setenv(SeedsEnv, dir)
	Add(f, []byte("key"), []byte("ct"))
	Add(f, []byte("no last value"), []byte{}) // f.Add only
	if len(f.added) != 3 || f.fatal != "" {
		t.Fatalf("f.Add got %d seeds, fatal %q", len(f.added), f.fatal)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "FuzzX", "*"))
	if len(files) != 1 {
		t.Fatalf("%d seed files, want 1: %v", len(files), files)
	}
	data, _ := os.ReadFile(files[0])
	if got, ok := FromLibFuzzer(data, 2); !ok || string(got[0]) != "key" || string(got[1]) != "ct" {
		t.Errorf("the seed file decodes to %q", got)
	}
	t.Setenv(SeedsEnv, filepath.Join(files[0], "not a directory"))
	Add(f, []byte("x"))
	if f.fatal == "" {
		t.Error("a seed that cannot be written is not an error")
	}
}
