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

// TestKATBundled runs every bundled vector once: each file passes and the
// provenance README and the licence texts are listed as skipped.
func TestKATBundled(t *testing.T) {
	code, lines, passed, failed := runKATTest(t)
	if code != 0 || failed != 0 || passed < 2000 {
		t.Fatalf("exit %d, %d passed, %d failed:\n%s", code, passed, failed, strings.Join(lines, "\n"))
	}
	entries, err := fs.ReadDir(vectors.Bundled(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "README.md" || strings.HasPrefix(e.Name(), "LICENSE.") {
			if !katHasLine(lines, "skip  "+e.Name()+"  ") {
				t.Errorf("%s is not listed as skipped", e.Name())
			}
			continue
		}
		if !katHasLine(lines, "ok    "+e.Name()+"  ") {
			t.Errorf("no ok line for %s", e.Name())
		}
	}
	if len(lines) != len(entries)+1 {
		t.Errorf("%d lines for %d files:\n%s", len(lines), len(entries), strings.Join(lines, "\n"))
	}
	t.Logf("\n%s", strings.Join(lines, "\n"))
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

// katFlipHex changes one hex digit of the first value after marker that is
// at least 16 hex digits long, leaving the file well-formed.
func katFlipHex(t *testing.T, data []byte, marker string) []byte {
	t.Helper()
	out := bytes.Clone(data)
	for off := 0; ; {
		i := bytes.Index(out[off:], []byte(marker))
		if i < 0 {
			t.Fatalf("no hex value after %q", marker)
		}
		v := off + i + len(marker)
		n := 0
		for v+n < len(out) && strings.IndexByte("0123456789abcdefABCDEF", out[v+n]) >= 0 {
			n++
		}
		if n >= 16 {
			if out[v+12] == '0' {
				out[v+12] = '1'
			} else {
				out[v+12] = '0'
			}
			return out
		}
		off = v
	}
}

// TestKATCorrupted is the proof that kat compares against the vector
// files: in a copy of each file, one hex digit of one expected value is
// changed, and exactly that vector must fail.
func TestKATCorrupted(t *testing.T) {
	for _, tc := range []struct {
		file, marker string
		vectors      int
	}{
		{"sntrup761_nist_kat.rsp", "pk = ", 100},                             // count 0's public key
		{"mlkem768x25519-sha256_openssh.json", `"K_ssh_string": "`, 32},      // the first exchange's K
		{"sntrup761x25519-sha512_openssh.json", `"exchange_hash_H": "`, 32},  // the first exchange's H
		{"mlkem768_acvp_keygen.json", `"dk":"`, 25},                          // an expanded key
		{"mlkem768_acvp_encapdecap.json", `"k":"`, 35},                       // an encapsulated key
		{"wycheproof_mlkem_768_test.json", `"K": "`, 193},                    // a decapsulated key
		{"wycheproof_mlkem_768_encaps_test.json", `"c": "`, 265},             // a ciphertext
		{"wycheproof_mlkem_768_keygen_seed_test.json", `"ek": "`, 100},       // an encapsulation key
		{"wycheproof_mlkem_768_semi_expanded_decaps_test.json", `"K": "`, 9}, // a decapsulated key
		{"cctv_mlkem768_strcmp.txt", "K = ", 1},                              // the decapsulated key
		{"cctv_mlkem768_unlucky_fips203final_pr13.txt", "c = ", 1},           // the ciphertext
		{"rfc7748_x25519.json", `"output": "`, 7},                            // section 5.2 #1
		{"wycheproof_x25519_test.json", `"shared": "`, 518},                  // tcId 1
		// The NIST-curve hybrids: SSH files through the public API; the
		// ML-KEM-1024 files as the ML-KEM-768 ones; ECDH on crypto/ecdh and
		// through Finish.
		{"mlkem768nistp256-sha256_openssh.json", `"K_ssh_string": "`, 42},
		{"mlkem768nistp256-sha256_putty.json", `"exchange_hash_H": "`, 45},
		{"mlkem1024nistp384-sha384_putty.json", `"K_ssh_string": "`, 45},
		{"mlkem1024_acvp_keygen.json", `"dk":"`, 25},
		{"mlkem1024_acvp_encapdecap.json", `"k":"`, 35},           // an encapsulated key
		{"wycheproof_mlkem_1024_encaps_test.json", `"c": "`, 269}, // a ciphertext
		{"wycheproof_mlkem_1024_semi_expanded_decaps_test.json", `"K": "`, 9},
		{"cctv_mlkem1024_strcmp.txt", "K = ", 1},
		{"wycheproof_ecdh_secp256r1_ecpoint_test.json", `"shared": "`, 355},
		{"wycheproof_ecdh_secp384r1_test.json", `"shared": "`, 870},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := katWriteDir(t, map[string][]byte{tc.file: katFlipHex(t, bundledFile(t, tc.file), tc.marker)})
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
