package mlkem768nistp256_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// The ML-KEM-768 files bundled for mlkem768x25519 (vectors/testdata) run
// here too, on both implementations behind this method: crypto/mlkem is
// its FIPS-mode backend, which no other package's vector tests reach
// through the engine.
const td768 = hybridtest.Dir

func kems768() []hybrid.KEM {
	return []hybrid.KEM{hybrid.Circl(hybrid.MLKEM768), hybrid.Std(hybrid.MLKEM768)}
}

func TestMLKEM768Vectors(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		if n := hybridtest.RunACVP(t, td768+"mlkem768_acvp_keygen.json", td768+"mlkem768_acvp_encapdecap.json", kems768()...); n != 60+50 {
			t.Errorf("ACVP: ran %d cases, want 110", n)
		}
		for file, want := range map[string]int{
			"wycheproof_mlkem_768_test.json":                      2 * 193,
			"wycheproof_mlkem_768_encaps_test.json":               2 * 265,
			"wycheproof_mlkem_768_keygen_seed_test.json":          2 * 100,
			"wycheproof_mlkem_768_semi_expanded_decaps_test.json": 9, // circl only: expanded keys
		} {
			if n := hybridtest.RunWycheproof(t, td768+file, kems768()...); n != want {
				t.Errorf("%s: ran %d cases, want %d", file, n, want)
			}
		}
		exs := append([]hybridtest.Exchange{public()}, hybridtest.Backends(mlkem768nistp256.Name, mlkem768nistp256.Engine)...)
		if n := hybridtest.RunCCTVModulus(t, td768+"cctv_mlkem768_modulus.txt.gz", kems768(), exs...); n != 780 {
			t.Errorf("CCTV modulus: ran %d keys", n)
		}
		if n := hybridtest.RunCCTVCase(t, td768+"cctv_mlkem768_strcmp.txt", kems768()...); n != 1 {
			t.Errorf("strcmp: ran %d checks", n)
		}
		if n := hybridtest.RunCCTVCase(t, td768+"cctv_mlkem768_unlucky_fips203final_pr13.txt", kems768()...); n != 2*3+1 {
			t.Errorf("unlucky: ran %d checks", n)
		}
		// 10 000 tests: cctv (circl) and go (both); -short: 100 tests, for
		// which only the go recipe has a hash.
		n, want := 10000, 3
		if testing.Short() {
			n, want = 100, 2
		}
		if runs := hybridtest.RunAccumulated(t, td768+"mlkem768_accumulated.json", n, kems768()...); runs != want {
			t.Errorf("accumulated: compared %d hashes, want %d", runs, want)
		}
	})
}
