package kat

import (
	"bytes"
	"crypto/fips140"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// The ML-KEM files of both parameter sets on mlkemTargets: every method
// of the parameter set through its SSH messages, on the engine paths the
// bundled run (vectors.TestBundled) does not take.

// mlkemCase is one bundled ML-KEM file, how many cases it has and how
// many of those run only on targets that load an expanded key.
type mlkemCase struct {
	file           string
	params         hybrid.Params
	run            func(t TB, name string, data []byte, ts ...Target) int
	cases, expOnly int
}

var mlkemFiles = []mlkemCase{
	{"mlkem768_acvp_keygen.json", hybrid.MLKEM768, RunACVP, 25, 0},
	{"mlkem768_acvp_encapdecap.json", hybrid.MLKEM768, RunACVP, 35, 10},
	{"wycheproof_mlkem_768_test.json", hybrid.MLKEM768, RunWycheproof, 193, 0},
	{"wycheproof_mlkem_768_encaps_test.json", hybrid.MLKEM768, RunWycheproof, 265, 0},
	{"wycheproof_mlkem_768_keygen_seed_test.json", hybrid.MLKEM768, RunWycheproof, 100, 0},
	{"wycheproof_mlkem_768_semi_expanded_decaps_test.json", hybrid.MLKEM768, RunWycheproof, 9, 9},
	{"cctv_mlkem768_strcmp.txt", hybrid.MLKEM768, RunCCTVCase, 1, 0},
	{"cctv_mlkem768_unlucky_fips203final_pr13.txt", hybrid.MLKEM768, RunCCTVCase, 1, 0},
	{"mlkem1024_acvp_keygen.json", hybrid.MLKEM1024, RunACVP, 25, 0},
	{"mlkem1024_acvp_encapdecap.json", hybrid.MLKEM1024, RunACVP, 35, 10},
	{"wycheproof_mlkem_1024_test.json", hybrid.MLKEM1024, RunWycheproof, 193, 0},
	{"wycheproof_mlkem_1024_encaps_test.json", hybrid.MLKEM1024, RunWycheproof, 269, 0},
	{"wycheproof_mlkem_1024_keygen_seed_test.json", hybrid.MLKEM1024, RunWycheproof, 100, 0},
	{"wycheproof_mlkem_1024_semi_expanded_decaps_test.json", hybrid.MLKEM1024, RunWycheproof, 9, 9},
	{"cctv_mlkem1024_strcmp.txt", hybrid.MLKEM1024, RunCCTVCase, 1, 0},
	{"cctv_mlkem1024_unlucky_fips203final_pr13.txt", hybrid.MLKEM1024, RunCCTVCase, 1, 0},
}

func TestMLKEMFiles(t *testing.T) {
	for _, f := range mlkemFiles {
		t.Run(f.file, func(t *testing.T) {
			ts, want := mlkemTargets(f.params), f.cases
			if !slices.ContainsFunc(ts, Target.Expanded) {
				want -= f.expOnly
			}
			knownAnswers(func() {
				if n := f.run(t, f.file, readFile(t, f.file), ts...); n != want {
					t.Errorf("ran %d cases on %d targets, want %d", n, len(ts), want)
				}
			})
		})
	}
}

// TestCCTVModulus: every key of CCTV's modulus files (780 ML-KEM-768,
// 1040 ML-KEM-1024) has an unreduced coefficient and is rejected by
// every target.
func TestCCTVModulus(t *testing.T) {
	for file, c := range map[string]struct {
		p    hybrid.Params
		keys int
	}{"cctv_mlkem768_modulus.txt.gz": {hybrid.MLKEM768, 780}, "cctv_mlkem1024_modulus.txt.gz": {hybrid.MLKEM1024, 1040}} {
		ts := mlkemTargets(c.p)
		if n := RunCCTVModulus(t, file, readFile(t, file), ts...); n != c.keys {
			t.Errorf("%s: ran %d keys", file, n)
		}
	}
}

// TestAccumulated runs the accumulated pseudo-random tests on both
// implementations, compared with every hash the files publish for that
// number: 100 (vectors.TestBundled runs the 10 000 that Run does), 10 000
// in FIPS 140-3 mode (where .ci/run reruns this package and not vectors),
// 1 000 000 with PQKEX_LONG=1 (minutes).
func TestAccumulated(t *testing.T) {
	n := 100
	switch {
	case tier.Long(t):
		n = 1000000
	case fips140.Enabled():
		n = 10000
	}
	for file, p := range map[string]hybrid.Params{"mlkem768_accumulated.json": hybrid.MLKEM768, "mlkem1024_accumulated.json": hybrid.MLKEM1024} {
		data := readFile(t, file)
		var v MLKEMAccumulated
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		// "go" on both implementations, "cctv" (with the expanded dk) on
		// circl only.
		want := 0
		for name, r := range v.Recipes {
			if _, ok := r.Expected[strconv.Itoa(n)]; ok {
				want += map[string]int{"go": 2, "cctv": 1}[name]
			}
		}
		knownAnswers(func() {
			if runs := RunAccumulated(t, file, data, n, hybrid.Circl(p), hybrid.Std(p)); runs != want || want == 0 {
				t.Errorf("%s: compared %d hashes, want %d (> 0)", file, runs, want)
			}
		})
	}
}

// TestAccumulatedCorrupted: a changed published hash fails the run.
func TestAccumulatedCorrupted(t *testing.T) {
	data := readFile(t, "mlkem768_accumulated.json")
	k := []hybrid.KEM{hybrid.Circl(hybrid.MLKEM768)}
	if r := Record(func(t TB) { RunAccumulated(t, "", data, 100, k...) }); r.Passed != 1 || r.Failed != 0 {
		t.Fatalf("intact: %+v", r)
	}
	var v MLKEMAccumulated
	json.Unmarshal(data, &v)
	h := v.Recipes["go"].Expected["100"]
	bad := bytes.Replace(data, []byte(h), []byte("00"+h[2:]), 1)
	if r := Record(func(t TB) { RunAccumulated(t, "", bad, 100, k...) }); r.Passed != 0 || r.Failed != 1 {
		t.Errorf("corrupted: %+v", r)
	}
}

// TestCrossCheck runs circl against crypto/mlkem on random inputs, for
// both parameter sets: the one such comparison in go test ./... (fuzz's
// TestMethods runs exchanges across the two, not this again per method).
func TestCrossCheck(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	knownAnswers(func() {
		for _, p := range []hybrid.Params{hybrid.MLKEM768, hybrid.MLKEM1024} {
			CrossCheck(t, n, hybrid.Circl(p), hybrid.Std(p))
		}
	})
}

// TestCirclPanicsOnBadLengths documents why the engine checks every
// length before calling circl.
func TestCirclPanicsOnBadLengths(t *testing.T) {
	pk, sk := mlkem768.NewKeyFromSeed(make([]byte, 64))
	for name, f := range map[string]func(){
		"NewKeyFromSeed(63)":        func() { mlkem768.NewKeyFromSeed(make([]byte, 63)) },
		"EncapsulateTo(m 31)":       func() { pk.EncapsulateTo(make([]byte, 1088), make([]byte, 32), make([]byte, 31)) },
		"EncapsulateTo(ct 1087)":    func() { pk.EncapsulateTo(make([]byte, 1087), make([]byte, 32), make([]byte, 32)) },
		"DecapsulateTo(ct 1087)":    func() { sk.DecapsulateTo(make([]byte, 32), make([]byte, 1087)) },
		"DecapsulateTo(ct 1089)":    func() { sk.DecapsulateTo(make([]byte, 32), make([]byte, 1089)) },
		"PublicKey.Pack(buf 1183)":  func() { pk.Pack(make([]byte, 1183)) },
		"PrivateKey.Pack(buf 2399)": func() { sk.Pack(make([]byte, 2399)) },
	} {
		if !panics(f) {
			t.Errorf("%s did not panic", name)
		}
	}
	var p mlkem768.PublicKey
	if panics(func() { p.Unpack(make([]byte, 1183)) }) {
		t.Error("PublicKey.Unpack panics on a short key")
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}
