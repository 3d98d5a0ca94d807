package vectors

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pqkex/pqkex/internal/kat"
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// TestRunSkips checks that files in a bundled format but for an algorithm
// or parameter set pqkex does not implement are skipped, not failed, and
// that files without vectors fail.
func TestRunSkips(t *testing.T) {
	hex := func(n int) string { return strings.Repeat("ab", n) }
	for _, tc := range []struct {
		name, data, skip string
	}{
		{"ssh", `{"algorithm": "curve25519-sha256", "transcript": {}, "tests": [{"tcId": 1}]}`, "curve25519-sha256"},
		{"rsp", "# kyber768\n\ncount = 0\nseed = 00\n", "kyber768"},
		{"acvp", `{"algorithm": "ML-KEM", "mode": "keyGen", "parameterSet": "ML-KEM-512", "tests": []}`, "ML-KEM-512"},
		{"wycheproof mlkem", `{"algorithm": "ML-KEM", "schema": "mlkem_test_schema.json", "testGroups": [{"type": "MLKEMTest", "parameterSet": "ML-KEM-512", "tests": [{"tcId": 1}]}]}`, "ML-KEM-512"},
		{"wycheproof ecdh p521", `{"algorithm": "ECDH", "schema": "ecdh_ecpoint_test_schema_v1.json", "testGroups": [{"type": "EcdhEcpointTest", "curve": "secp521r1", "tests": [{"tcId": 1}]}]}`, "secp521r1"},
		{"wycheproof x448", `{"algorithm": "XDH", "schema": "xdh_comp_schema_v1.json", "testGroups": [{"curve": "curve448", "tests": [{"tcId": 1}]}]}`, "curve448"},
		{"wycheproof ecdsa", `{"algorithm": "ECDSA", "schema": "ecdsa_verify_schema_v1.json", "testGroups": []}`, "ECDSA"},
		{"cctv modulus 512", string(gzipped([]byte(hex(800) + "\n"))), "ML-KEM-512"},
		{"cctv case 512", "dk = " + hex(1632) + "\nc = " + hex(768) + "\nK = " + hex(32) + "\n", "ML-KEM-512"},
		{"text", "hello\n", "not a known vector format"},
		{"json", `{"hello": "world"}`, "not a known vector format"},
	} {
		r := Run(tc.name, []byte(tc.data))
		if r.Skipped == "" || !strings.Contains(r.Skipped, tc.skip) || r.Passed+r.Failed != 0 || r.Err != nil {
			t.Errorf("%s: %+v, want skipped for %q", tc.name, r, tc.skip)
		}
	}
	for _, data := range []string{
		`{"algorithm": "ML-KEM", "mode": "keyGen", "parameterSet": "ML-KEM-768", "tests": []}`,
		`{"section_5_2": []}`,
		"# sntrup761\n\ncount = 0\nseed = 00\n",
	} {
		if r := Run("empty", []byte(data)); r.Err == nil || r.Failed != 1 {
			t.Errorf("%q: %+v, want one failure", data, r)
		}
	}
}

// TestRunFS checks RunFS's walk: lexical order, labels, skipped entries,
// and no result at all for an empty tree.
func TestRunFS(t *testing.T) {
	if rs := RunFS(fstest.MapFS{}); len(rs) != 0 {
		t.Errorf("empty tree: %+v", rs)
	}
	x25519, err := fs.ReadFile(Bundled(), "rfc7748_x25519.json")
	if err != nil {
		t.Fatal(err)
	}
	rs := RunFS(fstest.MapFS{
		"b/x.json": {Data: x25519},
		"a.txt":    {Data: []byte("hello\n")},
		"c/link":   {Data: []byte("x"), Mode: fs.ModeSymlink},
	})
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%s %s %d/%d %q", r.File, r.Format, r.Passed, r.Failed, r.Skipped))
	}
	want := []string{
		`a.txt  0/0 "not a known vector format"`,
		`b/x.json rfc7748-x25519 7/0 ""`,
		`c/link  0/0 "not a regular file"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// modulusFile is a gzipped CCTV modulus file: the first key of the
// bundled ML-KEM-768 one (so that Detect recognises it), then lines.
func modulusFile(t *testing.T, lines ...string) []byte {
	t.Helper()
	z, err := fs.ReadFile(Bundled(), "cctv_mlkem768_modulus.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(zr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(first))
	for _, l := range lines {
		w.Write([]byte(l + "\n"))
	}
	w.Close()
	return buf.Bytes()
}

// TestRunBounds: a hostile file can neither run unboundedly nor make Run
// keep unbounded failures: a gzipped file decompressing to more than 64
// MiB, or a line-based file of more than 20 000 lines, fails as a whole;
// of many failed vectors, the first 100 keep their message.
func TestRunBounds(t *testing.T) {
	rsp, err := fs.ReadFile(Bundled(), "sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		err  string
	}{
		// 140 lines of 500 KB: 70 MB decompressed, from a 70 KB file.
		{"decompressed size", modulusFile(t, slices.Repeat([]string{strings.Repeat("00", 250000)}, 140)...), "decompresses to more than 64 MiB"},
		{"lines of a gzipped file", modulusFile(t, slices.Repeat([]string{"00"}, 20000)...), "has more than 20000 lines"},
		{"lines of an .rsp file", append(bytes.Clone(rsp), strings.Repeat("# more\n", 20000)...), "rsp file of more than 20000 lines"},
	} {
		r := Run(tc.name, tc.data)
		t.Logf("%s (%d bytes): %d passed, %d failed, %d failures kept, error %v", tc.name, len(tc.data), r.Passed, r.Failed, len(r.Failures), r.Err)
		if r.Err == nil || !strings.Contains(r.Err.Error(), tc.err) || r.Failed != 1 || r.Passed != 0 {
			t.Errorf("%s: want the file to fail as a whole with %q", tc.name, tc.err)
		}
	}
	r := Run("many failures", modulusFile(t, slices.Repeat([]string{"00"}, 500)...))
	t.Logf("many failures: %d passed, %d failed, %d failures kept, error %v", r.Passed, r.Failed, len(r.Failures), r.Err)
	if r.Err != nil || r.Passed != 1 || r.Failed != 500 || len(r.Failures) != 100 || !strings.Contains(r.Failures[99], "line 101") {
		t.Errorf("want 1 passed, 500 failed and the first 100 failures kept")
	}
}

// TestRunBadField: in each SSH vector file, a KEM ciphertext one byte
// short or long in the first test fails that test alone (the runner
// checks the length before the KEM sees it), and the file's other
// vectors still count; so does a count of the sntrup761 KAT with a short
// ct. The files are cut to their first few vectors (TestBundled passes
// them whole): what is shown is that the runner goes on after the bad
// one.
func TestRunBadField(t *testing.T) {
	for _, name := range []string{
		"mlkem768x25519-sha256_openssh.json", "sntrup761x25519-sha512_openssh.json", "mlkem768nistp256-sha256_openssh.json",
		"mlkem768nistp256-sha256_putty.json", "mlkem1024nistp384-sha384_putty.json",
	} {
		data, err := fs.ReadFile(Bundled(), name)
		if err != nil {
			t.Fatal(err)
		}
		for _, change := range []func(string) string{
			func(s string) string { return s[:len(s)-2] },
			func(s string) string { return s + "00" },
		} {
			var f map[string]any
			if err := json.Unmarshal(data, &f); err != nil {
				t.Fatal(err)
			}
			// The first three exchanges and the first two edge cases.
			f["tests"] = f["tests"].([]any)[:3]
			f["invalid_and_edge_tests"] = f["invalid_and_edge_tests"].([]any)[:2]
			const all = 3 + 2
			test := f["tests"].([]any)[0].(map[string]any)
			test["kem_ciphertext"] = change(test["kem_ciphertext"].(string))
			bad, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			r := Run(name, bad)
			t.Logf("%s, a %d-byte ciphertext: %d passed, %d failed, error %v; %q", name, len(test["kem_ciphertext"].(string))/2, r.Passed, r.Failed, r.Err, r.Failures)
			if id := fmt.Sprintf("tcId %v: ", test["tcId"]); r.Err != nil || r.Failed != 1 || r.Passed != all-1 || !strings.Contains(r.Failures[0], id) {
				t.Errorf("%s: want 1 failure, of %s, and %d passed", name, id, all-1)
			}
		}
	}
	rsp, err := fs.ReadFile(Bundled(), "sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	rsp = rsp[:bytes.Index(rsp, []byte("count = 3\n"))] // counts 0 to 2
	i := bytes.Index(rsp, []byte("\nct = ")) + len("\nct = ")
	j := i + bytes.IndexByte(rsp[i:], '\n')
	bad := append(bytes.Clone(rsp[:j-2]), rsp[j:]...)
	r := Run("short ct", bad)
	t.Logf("sntrup761 KAT, count 0's ct 1038 bytes: %d passed, %d failed, error %v; %q", r.Passed, r.Failed, r.Err, r.Failures)
	if r.Err != nil || r.Failed != 1 || r.Passed != 2 || r.Failures[0] != "count 0: ct has 1038 bytes, want 1039" {
		t.Errorf("want count 0 failed for its ct's length, counts 1 and 2 passed")
	}
}

// TestResultCopiesEveryField: Result is vectors' own type, converted from
// the internal runners' result; every field of that result has a field of
// the same name and type here, and result copies its value.
func TestResultCopiesEveryField(t *testing.T) {
	if reflect.TypeFor[Result]() == reflect.TypeFor[kat.Result]() {
		t.Fatal("vectors.Result is an alias of kat.Result")
	}
	var in kat.Result
	v := reflect.ValueOf(&in).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"a failure"}))
		case reflect.Interface:
			f.Set(reflect.ValueOf(errors.New("an error")))
		default:
			t.Fatalf("kat.Result.%s: kind %v not handled by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	out := reflect.ValueOf(result(in))
	if out.NumField() != v.NumField() {
		t.Errorf("vectors.Result has %d fields, kat.Result %d", out.NumField(), v.NumField())
	}
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		got := out.FieldByName(name)
		if !got.IsValid() || got.Type() != v.Field(i).Type() || !reflect.DeepEqual(got.Interface(), v.Field(i).Interface()) {
			t.Errorf("field %s: kat.Result has %v, vectors.Result %v", name, v.Field(i), got)
		}
	}
}
