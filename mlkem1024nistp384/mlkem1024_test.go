package mlkem1024nistp384_test

import (
	"flag"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
)

var long = flag.Bool("long", false, "run the 1 000 000-test accumulated ML-KEM-1024 recipe")

const td = hybridtest.Dir

// kems are both ML-KEM-1024 implementations; every file runs on each.
func kems() []hybrid.KEM {
	return []hybrid.KEM{hybrid.Circl(hybrid.MLKEM1024), hybrid.Std(hybrid.MLKEM1024)}
}

func TestMLKEM1024ACVP(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		if n := hybridtest.RunACVP(t, td+"mlkem1024_acvp_keygen.json", td+"mlkem1024_acvp_encapdecap.json", kems()...); n != 60+50 {
			t.Errorf("ran %d cases, want 110 (decapsulation with the expanded dk on circl only)", n)
		}
	})
}

func TestMLKEM1024Wycheproof(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		for file, want := range map[string]int{
			"wycheproof_mlkem_1024_test.json":                      193,
			"wycheproof_mlkem_1024_encaps_test.json":               269,
			"wycheproof_mlkem_1024_keygen_seed_test.json":          100,
			"wycheproof_mlkem_1024_semi_expanded_decaps_test.json": 9, // circl only: expanded keys
		} {
			n := hybridtest.RunWycheproof(t, td+file, kems()...)
			if n != 2*want && !(want == 9 && n == want) {
				t.Errorf("%s: ran %d cases", file, n)
			}
		}
	})
}

// TestMLKEM1024CCTVModulus: 1040 keys with an unreduced coefficient, each
// rejected by both implementations and, inside C_INIT, by Respond.
func TestMLKEM1024CCTVModulus(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		exs := append([]hybridtest.Exchange{public()}, hybridtest.Backends(mlkem1024nistp384.Name, mlkem1024nistp384.Engine)...)
		if n := hybridtest.RunCCTVModulus(t, td+"cctv_mlkem1024_modulus.txt.gz", kems(), exs...); n != 1040 {
			t.Errorf("ran %d keys", n)
		}
	})
}

func TestMLKEM1024CCTVCases(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		// strcmp: decapsulation with an expanded dk (circl only).
		if n := hybridtest.RunCCTVCase(t, td+"cctv_mlkem1024_strcmp.txt", kems()...); n != 1 {
			t.Errorf("strcmp: ran %d checks", n)
		}
		// unlucky: key generation, encapsulation, decapsulation (seed on both,
		// expanded dk on circl).
		if n := hybridtest.RunCCTVCase(t, td+"cctv_mlkem1024_unlucky_fips203final_pr13.txt", kems()...); n != 2*3+1 {
			t.Errorf("unlucky: ran %d checks", n)
		}
	})
}

// TestMLKEM1024Accumulated: 10 000 pseudo-random tests by default (100
// with -short, 1 000 000 with -long), hashes from CCTV PR #13 and Go's
// recipe.
func TestMLKEM1024Accumulated(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		n := 10000
		switch {
		case *long:
			n = 1000000
		case testing.Short():
			n = 100
		}
		if runs := hybridtest.RunAccumulated(t, td+"mlkem1024_accumulated.json", n, kems()...); runs != 3 {
			t.Errorf("compared %d hashes, want 3", runs)
		}
	})
}

// TestMLKEM1024CrossCheck runs circl against crypto/mlkem on random inputs.
func TestMLKEM1024CrossCheck(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		hybridtest.CrossCheck(t, 200, kems()[0], kems()[1])
	})
}
