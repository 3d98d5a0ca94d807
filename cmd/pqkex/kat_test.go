package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pqkex/pqkex/vectors"
)

// runKATTest runs "pqkex kat" with args and returns its exit code, its output
// lines and the two numbers of its final line.
func runKATTest(t *testing.T, args ...string) (code int, lines []string, passed, failed int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code = runKAT(args, &stdout, &stderr)
	lines = strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if code == 2 {
		return code, lines, 0, 0
	}
	m := regexp.MustCompile(`^(\d+) passed, (\d+) failed$`).FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("final line %q, want \"N passed, M failed\"", lines[len(lines)-1])
	}
	passed, _ = strconv.Atoi(m[1])
	failed, _ = strconv.Atoi(m[2])
	if (failed == 0 && passed > 0) != (code == 0) {
		t.Errorf("exit code %d with %d passed, %d failed", code, passed, failed)
	}
	if (stderr.Len() != 0) != (passed == 0 && failed == 0) {
		t.Errorf("stderr %q with %d passed, %d failed", stderr.String(), passed, failed)
	}
	return code, lines, passed, failed
}

// bundledFile returns the bytes of a bundled vector file.
func bundledFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(vectors.Bundled(), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// katWriteDir writes files (name relative to the directory, contents) into
// a new temporary directory and returns it.
func katWriteDir(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// katHasLine reports whether some line starts with prefix and contains all
// of parts.
func katHasLine(lines []string, prefix string, parts ...string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestKATBundled runs kat without -dir on a small set in place of the
// bundled files (vectors.TestBundled runs those): one ok line per vector
// file, the README and licence texts listed as skipped, the total, exit
// 0. Without the substitute, kat runs vectors.Bundled().
func TestKATBundled(t *testing.T) {
	want, err := fs.ReadDir(vectors.Bundled(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadDir(bundledVectors(), "."); err != nil || len(got) != len(want) || len(got) < 30 {
		t.Fatalf("kat's default set has %d files (%v), vectors.Bundled %d", len(got), err, len(want))
	}
	small := fstest.MapFS{}
	for _, name := range []string{"LICENSE.wycheproof", "README.md", "cctv_mlkem768_strcmp.txt", "rfc7748_x25519.json"} {
		small[name] = &fstest.MapFile{Data: bundledFile(t, name)}
	}
	defer func(f func() fs.FS) { bundledVectors = f }(bundledVectors)
	bundledVectors = func() fs.FS { return small }
	code, lines, passed, failed := runKATTest(t)
	wantLines := []string{
		"skip  LICENSE.wycheproof  not a known vector format",
		"skip  README.md  not a known vector format",
		"ok    cctv_mlkem768_strcmp.txt  cctv-mlkem-case  1 vector",
		"ok    rfc7748_x25519.json  rfc7748-x25519  7 vectors",
		"8 passed, 0 failed",
	}
	if code != 0 || passed != 8 || failed != 0 || strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("exit %d, output:\n%s\nwant exit 0 and:\n%s", code, strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
}

// TestKATDir runs -dir on exact copies of vector files, in a nested
// directory, next to files that are not vectors.
func TestKATDir(t *testing.T) {
	rsp := bundledFile(t, "sntrup761_nist_kat.rsp")
	ssh := bundledFile(t, "mlkem768x25519-sha256_openssh.json")
	dir := katWriteDir(t, map[string][]byte{
		"README.md":               bundledFile(t, "README.md"),
		"a/kat.data":              rsp, // recognised by content, not by name
		"b/c/ssh.txt":             ssh,
		"b/notes.txt":             []byte("count = 1\nnothing to see\n"),
		"curve25519/vectors.json": []byte(`{"algorithm": "curve25519-sha256", "transcript": {}, "tests": []}`),
	})
	code, lines, passed, failed := runKATTest(t, "-dir", dir)
	if code != 0 || failed != 0 || passed != 100+32 {
		t.Fatalf("exit %d, %d passed, %d failed:\n%s", code, passed, failed, strings.Join(lines, "\n"))
	}
	p := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	// WalkDir order: each directory's entries sorted, README.md first.
	want := []string{
		"skip  " + p("README.md") + "  not a known vector format",
		"ok    " + p("a/kat.data") + "  sntrup761-nist-kat  100 vectors",
		"ok    " + p("b/c/ssh.txt") + "  ssh-mlkem768x25519-sha256  32 vectors",
		"skip  " + p("b/notes.txt") + "  not a known vector format",
		"skip  " + p("curve25519/vectors.json") + "  SSH vectors for curve25519-sha256, which pqkex does not implement",
		"132 passed, 0 failed",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestKATCorrupted: in a copy of a file one hex digit of one expected
// value is changed; kat prints that file's FAIL line with the count and
// the first failure and exits 1 (vectors.TestRunDetectsChange shows that
// every format's runner catches such a change).
func TestKATCorrupted(t *testing.T) {
	for _, tc := range []struct {
		file, value, changed string
		vectors              int
	}{
		{"rfc7748_x25519.json", `"output": "c3`, `"output": "c2`, 7}, // section 5.2 #1
		{"cctv_mlkem768_strcmp.txt", "K = 37", "K = 36", 1},          // the decapsulated key
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := bundledFile(t, tc.file)
			bad := bytes.Replace(data, []byte(tc.value), []byte(tc.changed), 1)
			if bytes.Equal(bad, data) {
				t.Fatalf("no %q in %s", tc.value, tc.file)
			}
			dir := katWriteDir(t, map[string][]byte{tc.file: bad})
			const fails = 1
			code, lines, passed, failed := runKATTest(t, "-dir", dir)
			if code != 1 || failed != fails || passed != tc.vectors-fails {
				t.Fatalf("exit %d, %d passed, %d failed, want 1, %d and %d:\n%s", code, passed, failed, tc.vectors-fails, fails, strings.Join(lines, "\n"))
			}
			if !katHasLine(lines, "FAIL  "+filepath.Join(dir, tc.file)+"  ", strconv.Itoa(fails)+" of "+strconv.Itoa(tc.vectors)+" failed: first failure ") {
				t.Errorf("no FAIL line:\n%s", strings.Join(lines, "\n"))
			}
			t.Log(lines[0])
		})
	}
}

// TestKATBroken: a recognised file that does not parse counts as one
// failed vector.
func TestKATBroken(t *testing.T) {
	rsp := bundledFile(t, "sntrup761_nist_kat.rsp")
	ssh := bundledFile(t, "sntrup761x25519-sha512_openssh.json")
	modulus := bundledFile(t, "cctv_mlkem768_modulus.txt.gz")
	nist := bundledFile(t, "mlkem1024nistp384-sha384_putty.json")
	ecdhFile := bundledFile(t, "wycheproof_ecdh_secp384r1_test.json")
	garbled := bytes.Clone(rsp)
	garbled[bytes.Index(garbled, []byte("sk = "))+20] = 'x'
	strcmp := bytes.Clone(bundledFile(t, "cctv_mlkem768_strcmp.txt"))
	strcmp[1000] = 'x'
	for name, data := range map[string][]byte{
		"truncated.rsp":       rsp[:len(rsp)/2+1000], // in the middle of a line
		"garbled.rsp":         garbled,
		"garbled.txt":         strcmp,
		"truncated.json":      ssh[:len(ssh)/2],
		"truncated.gz":        modulus[:len(modulus)/2],
		"truncated-nist.json": nist[:len(nist)/2],
		"truncated-ecdh.json": ecdhFile[:len(ecdhFile)/3],
	} {
		t.Run(name, func(t *testing.T) {
			dir := katWriteDir(t, map[string][]byte{name: data})
			code, lines, passed, failed := runKATTest(t, "-dir", dir)
			if code != 1 || passed != 0 || failed != 1 || !katHasLine(lines, "FAIL  "+filepath.Join(dir, name)+"  ") {
				t.Fatalf("exit %d, %d passed, %d failed:\n%s", code, passed, failed, strings.Join(lines, "\n"))
			}
			t.Log(lines[0])
		})
	}
}

func TestKATUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"extra"},
		{"-dir"},
		{"-dir", filepath.Join(t.TempDir(), "missing")},
		{"-dir", file},
		{"-bogus"},
	} {
		if code, _, _, _ := runKATTest(t, args...); code != 2 {
			t.Errorf("kat %q: exit %d, want 2", args, code)
		}
	}
}

// TestKATNothingRan: a directory with no file, or only files in no known
// format, checked nothing, so kat must not report success.
func TestKATNothingRan(t *testing.T) {
	for name, files := range map[string]map[string][]byte{
		"empty":        {},
		"unrecognised": {"a.txt": []byte("hello\n"), "b.json": []byte(`{"x": 1}`), "sub/README.md": bundledFile(t, "README.md")},
		"unsupported":  {"kyber.rsp": []byte("# kyber768\n\ncount = 0\nseed = 00\n")},
	} {
		t.Run(name, func(t *testing.T) {
			dir := katWriteDir(t, files)
			var stdout, stderr bytes.Buffer
			code := runKAT([]string{"-dir", dir}, &stdout, &stderr)
			if code != 1 || !strings.HasSuffix(stdout.String(), "0 passed, 0 failed\n") ||
				!strings.HasPrefix(stderr.String(), "pqkex kat: no vector ran: ") || !strings.Contains(stderr.String(), dir) {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			t.Log(strings.TrimSpace(stderr.String()))
		})
	}
}
