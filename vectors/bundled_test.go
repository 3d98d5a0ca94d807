package vectors

import (
	"bytes"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
)

// bundledFiles are the bundled vector files: each one's format and how
// many vectors Run counts in it (6358 in all); notVectors the other files
// of testdata.
var bundledFiles = map[string]struct {
	format  string
	vectors int
}{
	"sntrup761_nist_kat.rsp":                              {"sntrup761-nist-kat", 100},
	"mlkem768x25519-sha256_openssh.json":                  {"ssh-mlkem768x25519-sha256", 32},
	"sntrup761x25519-sha512_openssh.json":                 {"ssh-sntrup761x25519-sha512", 32},
	"mlkem768_acvp_keygen.json":                           {"acvp-mlkem-keygen", 25},
	"mlkem768_acvp_encapdecap.json":                       {"acvp-mlkem-encapdecap", 35},
	"wycheproof_mlkem_768_test.json":                      {"wycheproof-mlkem", 193},
	"wycheproof_mlkem_768_encaps_test.json":               {"wycheproof-mlkem", 265},
	"wycheproof_mlkem_768_keygen_seed_test.json":          {"wycheproof-mlkem", 100},
	"wycheproof_mlkem_768_semi_expanded_decaps_test.json": {"wycheproof-mlkem", 9},
	"cctv_mlkem768_modulus.txt.gz":                        {"cctv-mlkem-modulus", 780},
	"cctv_mlkem768_strcmp.txt":                            {"cctv-mlkem-case", 1},
	"cctv_mlkem768_unlucky_fips203final_pr13.txt":         {"cctv-mlkem-case", 1},
	"mlkem768_accumulated.json":                           {"mlkem-accumulated", 2},
	"rfc7748_x25519.json":                                 {"rfc7748-x25519", 7},
	"wycheproof_x25519_test.json":                         {"wycheproof-xdh", 518},

	"mlkem768nistp256-sha256_openssh.json":                 {"ssh-mlkem768nistp256-sha256", 42},
	"mlkem768nistp256-sha256_putty.json":                   {"ssh-mlkem768nistp256-sha256", 45},
	"mlkem1024nistp384-sha384_putty.json":                  {"ssh-mlkem1024nistp384-sha384", 45},
	"mlkem1024_acvp_keygen.json":                           {"acvp-mlkem1024-keygen", 25},
	"mlkem1024_acvp_encapdecap.json":                       {"acvp-mlkem1024-encapdecap", 35},
	"wycheproof_mlkem_1024_test.json":                      {"wycheproof-mlkem1024", 193},
	"wycheproof_mlkem_1024_encaps_test.json":               {"wycheproof-mlkem1024", 269},
	"wycheproof_mlkem_1024_keygen_seed_test.json":          {"wycheproof-mlkem1024", 100},
	"wycheproof_mlkem_1024_semi_expanded_decaps_test.json": {"wycheproof-mlkem1024", 9},
	"cctv_mlkem1024_modulus.txt.gz":                        {"cctv-mlkem1024-modulus", 1040},
	"cctv_mlkem1024_strcmp.txt":                            {"cctv-mlkem1024-case", 1},
	"cctv_mlkem1024_unlucky_fips203final_pr13.txt":         {"cctv-mlkem1024-case", 1},
	"mlkem1024_accumulated.json":                           {"mlkem1024-accumulated", 2},
	"wycheproof_ecdh_secp256r1_ecpoint_test.json":          {"wycheproof-ecdh-ecpoint", 355},
	"wycheproof_ecdh_secp384r1_ecpoint_test.json":          {"wycheproof-ecdh-ecpoint", 790},
	"wycheproof_ecdh_secp256r1_test.json":                  {"wycheproof-ecdh", 436},
	"wycheproof_ecdh_secp384r1_test.json":                  {"wycheproof-ecdh", 870},
}

var notVectors = []string{"README.md", "LICENSE.acvp-server", "LICENSE.wycheproof"}

// TestBundled is the one run of every bundled vector in go test ./...:
// RunFS(Bundled()), as "pqkex kat" runs it. Every file must pass with
// exactly its pinned number of vectors (so a runner that skips a file's
// vectors, or a part of them, fails here), in its format; the README and
// the licence texts are skipped. Under -short (kat.Short) it is the quick
// loop's run, as crypto/mlkem sizes its accumulated test: every file
// through its runner, but at most its first 100 vectors, and the
// accumulated ML-KEM recipes at 100 tests instead of 10 000 (each file
// still one vector per implementation; the files publish the hash after
// 100 tests).
func TestBundled(t *testing.T) {
	limit := quick(t)
	rs := RunFS(Bundled())
	total := 0
	for _, r := range rs {
		if slices.Contains(notVectors, r.File) {
			if r.Skipped == "" || r.Passed+r.Failed != 0 {
				t.Errorf("%s: %+v, want it skipped", r.File, r)
			}
			continue
		}
		want, ok := bundledFiles[r.File]
		switch {
		case !ok:
			t.Errorf("%s is not in bundledFiles", r.File)
		case r.Err != nil || r.Skipped != "" || r.Failed != 0:
			t.Errorf("%s: error %v, skipped %q, %d failed: %q", r.File, r.Err, r.Skipped, r.Failed, r.Failures)
		case r.Format != want.format || r.Passed != capped(want.vectors, limit):
			t.Errorf("%s: %s, %d vectors passed, want %s, %d", r.File, r.Format, r.Passed, want.format, capped(want.vectors, limit))
		}
		total += r.Passed
	}
	all, wantTotal := 0, 0
	for _, f := range bundledFiles {
		all += f.vectors
		wantTotal += capped(f.vectors, limit)
	}
	if all != 6358 {
		t.Errorf("bundledFiles pins %d vectors in all, want 6358", all)
	}
	if len(rs) != len(bundledFiles)+len(notVectors) || total != wantTotal {
		t.Errorf("%d files, %d vectors, want %d files and %d vectors", len(rs), total, len(bundledFiles)+len(notVectors), wantTotal)
	}
	t.Logf("%d files, %d vectors", len(rs), total)
}

// quick makes Run the quick loop's run (kat.Short) for the rest of t
// under -short, and returns how many vectors a file then counts at most;
// 0 (all) without -short.
func quick(t *testing.T) int {
	if !testing.Short() {
		return 0
	}
	kat.Short = true
	t.Cleanup(func() { kat.Short = false })
	return kat.ShortVectors
}

// capped is n, or limit if limit is set and smaller.
func capped(n, limit int) int {
	if limit > 0 {
		return min(n, limit)
	}
	return n
}

// TestDetectBundled checks that every bundled file is recognised as its
// format, also cut short, and the README and the licence texts as no
// vector file; and that the embedded copies are the files of testdata.
func TestDetectBundled(t *testing.T) {
	entries, err := fs.ReadDir(Bundled(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(bundledFiles)+len(notVectors) {
		t.Errorf("%d bundled files, want %d and %v", len(entries), len(bundledFiles), notVectors)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(Bundled(), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		disk, err := os.ReadFile("testdata/" + e.Name())
		if err != nil || !bytes.Equal(data, disk) {
			t.Errorf("%s: embedded copy differs from testdata (%v)", e.Name(), err)
		}
		f, err := Detect(data)
		if slices.Contains(notVectors, e.Name()) {
			if err == nil {
				t.Errorf("%s detected as %s", e.Name(), f)
			}
			continue
		}
		if want := bundledFiles[e.Name()].format; err != nil || f != want {
			t.Errorf("%s: detected %q (%v), want %q", e.Name(), f, err, want)
		}
		// Recognised by the fields before any damage.
		if f2, err := Detect(data[:len(data)*2/3]); f2 != f {
			t.Errorf("%s cut short: detected %q (%v), want %q", e.Name(), f2, err, f)
		}
	}
}

// Every format the bundled files have is named in Detect's documentation.
func TestDetectDocumented(t *testing.T) {
	src, err := os.ReadFile("vectors.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(src)), " ")
	for file, f := range bundledFiles {
		if !strings.Contains(doc, " "+f.format+" ") && !strings.Contains(doc, " "+f.format+",") && !strings.Contains(doc, " "+f.format+")") {
			t.Errorf("%s's format %s is not in vectors.go", file, f.format)
		}
	}
}

// TestRunDetectsChange is the proof that Run compares against the vector
// files, for every format's runner: in a copy of a file, one hex digit of
// one expected value is changed, and exactly that vector must fail (the
// file's count is pinned in bundledFiles). One file per runner; the
// ML-KEM-1024 and P-384 files run the same runners. Under -short, the
// first 100 vectors of each file (the changed value is in the first).
func TestRunDetectsChange(t *testing.T) {
	limit := quick(t)
	for _, tc := range []struct{ file, marker string }{
		{"sntrup761_nist_kat.rsp", "pk = "},                             // count 0's public key
		{"mlkem768x25519-sha256_openssh.json", `"K_ssh_string": "`},     // the first exchange's K
		{"sntrup761x25519-sha512_openssh.json", `"exchange_hash_H": "`}, // the first exchange's H
		{"mlkem768nistp256-sha256_putty.json", `"exchange_hash_H": "`},
		{"mlkem768_acvp_keygen.json", `"dk":"`},                           // an expanded key
		{"mlkem768_acvp_encapdecap.json", `"k":"`},                        // an encapsulated key
		{"wycheproof_mlkem_768_test.json", `"K": "`},                      // a decapsulated key
		{"wycheproof_mlkem_768_encaps_test.json", `"c": "`},               // a ciphertext
		{"wycheproof_mlkem_768_keygen_seed_test.json", `"ek": "`},         // an encapsulation key
		{"wycheproof_mlkem_768_semi_expanded_decaps_test.json", `"K": "`}, // a decapsulated key
		{"cctv_mlkem768_strcmp.txt", "K = "},                              // the decapsulated key
		{"cctv_mlkem768_unlucky_fips203final_pr13.txt", "c = "},           // the ciphertext
		{"rfc7748_x25519.json", `"output": "`},                            // section 5.2 #1
		{"wycheproof_x25519_test.json", `"shared": "`},                    // tcId 1
		{"wycheproof_ecdh_secp256r1_ecpoint_test.json", `"shared": "`},
		{"wycheproof_ecdh_secp256r1_test.json", `"shared": "`},
	} {
		data, err := fs.ReadFile(Bundled(), tc.file)
		if err != nil {
			t.Fatal(err)
		}
		want := capped(bundledFiles[tc.file].vectors, limit)
		r := Run(tc.file, flipHex(t, data, tc.marker))
		if r.Err != nil || r.Failed != 1 || r.Passed != want-1 || len(r.Failures) != 1 {
			t.Errorf("%s: %d passed, %d failed (%v), want %d and 1", tc.file, r.Passed, r.Failed, r.Err, want-1)
			continue
		}
		t.Logf("%s: %s", tc.file, r.Failures[0])
	}
}

// flipHex changes one hex digit of the first value after marker that is
// at least 16 hex digits long, leaving the file well-formed.
func flipHex(t *testing.T, data []byte, marker string) []byte {
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
			out[v+12] ^= 1 // another hex digit: 0-9 stay digits, a-f letters
			if !isHex(string(out[v+12])) {
				out[v+12] ^= 1 ^ 2
			}
			return out
		}
		off = v
	}
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdefABCDEF") == "" }
