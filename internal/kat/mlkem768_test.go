package kat

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/rand"
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"github.com/pqkex/pqkex/internal/hybrid"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkex/pqkex/mlkem768x25519"
)

// ML-KEM-768 known answers and the differential test of the two
// implementations: circl's kem/mlkem/mlkem768 (the backend of
// mlkem768x25519, run with mlkem768x25519 itself by the Run functions) and
// the standard library's crypto/mlkem (the oracle, run here). crypto/mlkem
// cannot load an expanded 2400-byte decapsulation key, so vectors that only
// give one run on circl alone.

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// stdEncaps is crypto/mlkem's encapsulation with explicit m.
func stdEncaps(ek, m []byte) (k, c []byte, ok bool) {
	key, err := mlkem.NewEncapsulationKey768(ek)
	if err != nil {
		return nil, nil, false
	}
	k, c, err = mlkemtest.Encapsulate768(key, m)
	return k, c, err == nil
}

// TestCirclPanicsOnBadLengths documents why mlkem768x25519 checks every
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

func TestMLKEM768ACVPKeyGen(t *testing.T) {
	var v ACVPMLKEMKeyGen
	readJSON(t, "mlkem768_acvp_keygen.json", &v)
	if v.ParameterSet != "ML-KEM-768" || len(v.Tests) != 25 {
		t.Fatalf("%s, %d tests", v.ParameterSet, len(v.Tests))
	}
	report(t, RunACVPMLKEMKeyGen(&v))
	for _, tc := range v.Tests {
		key, err := mlkem.NewDecapsulationKey768(append(bytes.Clone(tc.D), tc.Z...))
		if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), tc.EK) {
			t.Errorf("tcId %d: crypto/mlkem key differs (%v)", tc.TcID, err)
		}
	}
}

func TestMLKEM768ACVPEncapDecap(t *testing.T) {
	var v ACVPMLKEMEncapDecap
	readJSON(t, "mlkem768_acvp_encapdecap.json", &v)
	if len(v.Encapsulation.Tests) != 25 || len(v.Decapsulation.Tests) != 10 {
		t.Fatalf("%d encapsulation and %d decapsulation tests", len(v.Encapsulation.Tests), len(v.Decapsulation.Tests))
	}
	report(t, RunACVPMLKEMEncapDecap(&v))
	for _, tc := range v.Encapsulation.Tests {
		k, c, ok := stdEncaps(tc.EK, tc.M)
		if !ok || !bytes.Equal(k, tc.K) || !bytes.Equal(c, tc.C) {
			t.Errorf("tcId %d: crypto/mlkem encapsulation differs", tc.TcID)
		}
	}
}

// readWycheproofMLKEM reads a Wycheproof ML-KEM-768 file whose groups all
// have type typ and checks that it has n tests.
func readWycheproofMLKEM(t *testing.T, name, typ string, n int) (*WycheproofMLKEM, []WycheproofMLKEMTest) {
	t.Helper()
	var v WycheproofMLKEM
	readJSON(t, name, &v)
	var tests []WycheproofMLKEMTest
	for _, g := range v.TestGroups {
		if g.Type != typ || g.ParameterSet != "ML-KEM-768" {
			t.Fatalf("%s: group %s %s", name, g.Type, g.ParameterSet)
		}
		tests = append(tests, g.Tests...)
	}
	if len(tests) != n || v.NumberOfTests != n {
		t.Fatalf("%s: %d tests, want %d", name, len(tests), n)
	}
	return &v, tests
}

// TestMLKEM768Wycheproof runs MLKEMTest: key generation from a seed, then
// decapsulation; invalid cases have a wrong seed or ciphertext length.
func TestMLKEM768Wycheproof(t *testing.T) {
	v, tests := readWycheproofMLKEM(t, "wycheproof_mlkem_768_test.json", "MLKEMTest", 193)
	report(t, RunWycheproofMLKEM(v))
	var invalid int
	for _, tc := range tests {
		key, err := mlkem.NewDecapsulationKey768(tc.Seed)
		var k []byte
		if err == nil {
			if tc.EK != nil && !bytes.Equal(key.EncapsulationKey().Bytes(), tc.EK) {
				t.Errorf("tcId %d: crypto/mlkem encapsulation key differs", tc.TcID)
			}
			k, err = key.Decapsulate(tc.C)
		}
		if tc.Result == "invalid" {
			invalid++
			if err == nil {
				t.Errorf("tcId %d (%s): crypto/mlkem accepted", tc.TcID, tc.Comment)
			}
			// A wrong ciphertext length is rejected by the SSH client as
			// a wrong S_REPLY length.
			if len(tc.Seed) == 64 {
				c, err := withKeys(&hybrid.MLKEM768X25519, tc.Seed, make([]byte, 32))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Finish(append(bytes.Clone(tc.C), make([]byte, 32)...)); err == nil || !strings.Contains(err.Error(), "S_REPLY has") {
					t.Errorf("tcId %d: Finish with a %d-byte ciphertext: %v", tc.TcID, len(tc.C), err)
				}
			}
			continue
		}
		if err != nil || !bytes.Equal(k, tc.K) {
			t.Errorf("tcId %d (%s): crypto/mlkem shared key differs (%v)", tc.TcID, tc.Comment, err)
		}
	}
	if invalid != 40 {
		t.Errorf("%d invalid cases, want 40", invalid)
	}
}

// TestMLKEM768WycheproofEncaps runs MLKEMEncapsTest: encapsulation from ek
// and m; the invalid keys (wrong length, coefficients not reduced) must be
// rejected by both implementations and by the SSH server.
func TestMLKEM768WycheproofEncaps(t *testing.T) {
	v, tests := readWycheproofMLKEM(t, "wycheproof_mlkem_768_encaps_test.json", "MLKEMEncapsTest", 265)
	report(t, RunWycheproofMLKEM(v))
	x := make([]byte, 32)
	x[0] = 9 // a valid X25519 public key
	var invalid, sshRejected int
	for _, tc := range tests {
		k, c, ok := stdEncaps(tc.EK, tc.M)
		if tc.Result == "invalid" {
			invalid++
			if ok {
				t.Errorf("tcId %d (%s): crypto/mlkem accepted", tc.TcID, tc.Comment)
			}
			if len(tc.EK) == 1184 {
				sshRejected++
				_, _, err := mlkem768x25519.Respond(nil, append(bytes.Clone(tc.EK), x...))
				if err == nil || !strings.Contains(err.Error(), "client's ML-KEM-768 encapsulation key is invalid") {
					t.Errorf("tcId %d: error %v", tc.TcID, err)
				}
			}
			continue
		}
		if !ok || !bytes.Equal(k, tc.K) || !bytes.Equal(c, tc.C) {
			t.Errorf("tcId %d (%s): crypto/mlkem encapsulation differs", tc.TcID, tc.Comment)
		}
	}
	if invalid != 132 || sshRejected != 112 {
		t.Errorf("%d invalid cases (want 132), %d of them 1184 bytes long (want 112)", invalid, sshRejected)
	}
}

func TestMLKEM768WycheproofKeyGen(t *testing.T) {
	v, tests := readWycheproofMLKEM(t, "wycheproof_mlkem_768_keygen_seed_test.json", "MLKEMKeyGen", 100)
	report(t, RunWycheproofMLKEM(v))
	for _, tc := range tests {
		key, err := mlkem.NewDecapsulationKey768(tc.Seed)
		if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), tc.EK) {
			t.Errorf("tcId %d: crypto/mlkem key differs", tc.TcID)
		}
	}
}

// TestMLKEM768WycheproofSemiExpanded runs decapsulation with expanded keys
// (circl only), including the FIPS 203 section 7.3 checks; an invalid key
// must already be refused by the explicit-key constructor.
func TestMLKEM768WycheproofSemiExpanded(t *testing.T) {
	v, tests := readWycheproofMLKEM(t, "wycheproof_mlkem_768_semi_expanded_decaps_test.json", "MLKEMDecapsValidationTest", 9)
	report(t, RunWycheproofMLKEM(v))
	for _, tc := range tests {
		if tc.Result != "invalid" || len(tc.C) != 1088 {
			continue
		}
		if _, err := withKeys(&hybrid.MLKEM768X25519, tc.DK, make([]byte, 32)); err == nil {
			t.Errorf("tcId %d (%s): the explicit-key constructor accepted the key", tc.TcID, tc.Comment)
		}
	}
}

func readKeyValues(t *testing.T, name string) map[string][]byte {
	f, err := os.Open("../../vectors/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv, err := ParseKeyValues(f)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// TestMLKEM768CCTVModulus: each of the 780 keys has one coefficient >= q;
// both implementations and the SSH server must reject every one.
func TestMLKEM768CCTVModulus(t *testing.T) {
	f, err := os.Open("../../vectors/testdata/cctv_mlkem768_modulus.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys, err := ParseHexLines(f, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 780 {
		t.Fatalf("%d keys, want 780", len(keys))
	}
	report(t, RunCCTVMLKEMModulus(keys))
	for i, ek := range keys {
		if _, err := mlkem.NewEncapsulationKey768(ek); err == nil {
			t.Errorf("key %d: crypto/mlkem accepted", i+1)
		}
	}
}

func TestMLKEM768CCTVStrcmp(t *testing.T) {
	kv := readKeyValues(t, "cctv_mlkem768_strcmp.txt")
	if len(kv) != 3 {
		t.Fatalf("%d fields, want dk, c and K", len(kv))
	}
	report(t, RunCCTVMLKEMCase(kv))
}

func TestMLKEM768CCTVUnlucky(t *testing.T) {
	kv := readKeyValues(t, "cctv_mlkem768_unlucky_fips203final_pr13.txt")
	if len(kv) != 7 {
		t.Fatalf("%d fields, want d, z, ek, dk, m, K and c", len(kv))
	}
	report(t, RunCCTVMLKEMCase(kv))
	key, err := mlkem.NewDecapsulationKey768(append(bytes.Clone(kv["d"]), kv["z"]...))
	if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), kv["ek"]) {
		t.Fatal("crypto/mlkem key differs")
	}
	if k, c, ok := stdEncaps(kv["ek"], kv["m"]); !ok || !bytes.Equal(k, kv["K"]) || !bytes.Equal(c, kv["c"]) {
		t.Error("crypto/mlkem encapsulation differs")
	}
	if k, err := key.Decapsulate(kv["c"]); err != nil || !bytes.Equal(k, kv["K"]) {
		t.Error("crypto/mlkem decapsulation differs")
	}
}

// TestMLKEM768Accumulated runs the accumulated pseudo-random tests of
// mlkem768_accumulated.json with both implementations on the same inputs:
// circl (RunMLKEMAccumulated) feeds both recipes, crypto/mlkem the Go
// recipe, and the two must agree on every test's ek, c, K and K1. The two
// run concurrently. 10 000 tests by default, 100 with -short, 1 000 000
// with -long.
func TestMLKEM768Accumulated(t *testing.T) {
	var v MLKEMAccumulated
	readJSON(t, "mlkem768_accumulated.json", &v)
	n := 10000
	if testing.Short() {
		n = 100
	}
	if *long {
		n = 1000000
	}
	key := strconv.Itoa(n)

	var first [16]byte
	sha3.NewSHAKE128().Read(first[:])
	if hex.EncodeToString(first[:]) != "7f9c2ba4e88f827d616045507605853e" {
		t.Fatal("SHAKE-128 of the empty string is not as the recipe says")
	}

	// Each implementation reads the same RNG (64 bytes seed, 32 bytes m,
	// 1088 bytes c1 per test) and records a fingerprint of (ek, c, K, K1)
	// per test for the comparison.
	fingerprint := func(bs ...[]byte) (f [32]byte) {
		h := sha3.New256()
		for _, b := range bs {
			h.Write(b)
		}
		copy(f[:], h.Sum(nil))
		return f
	}
	circlPrints := make([][32]byte, n)
	done := make(chan Result)
	go func() {
		done <- runAccumulated(&v, n, func(i int, ek, c, k, k1 []byte) { circlPrints[i] = fingerprint(ek, c, k, k1) })
	}()

	rng, acc := sha3.NewSHAKE128(), sha3.NewSHAKE128()
	seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, 1088)
	stdPrints := make([][32]byte, n)
	var stdErr error
	for i := range n {
		rng.Read(seed)
		rng.Read(m)
		rng.Read(c1)
		dk, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			stdErr = err
			break
		}
		ek := dk.EncapsulationKey().Bytes()
		k, c, err := mlkemtest.Encapsulate768(dk.EncapsulationKey(), m)
		if err != nil {
			stdErr = err
			break
		}
		kk, _ := dk.Decapsulate(c)
		k1, _ := dk.Decapsulate(c1)
		if !bytes.Equal(kk, k) {
			stdErr = fmt.Errorf("test %d: crypto/mlkem decapsulation does not invert encapsulation", i)
			break
		}
		for _, b := range [][]byte{ek, c, k, k1} {
			acc.Write(b)
		}
		stdPrints[i] = fingerprint(ek, c, k, k1)
	}
	var stdSum [32]byte
	acc.Read(stdSum[:])

	r := <-done
	hashes := 0
	for _, recipe := range v.Recipes {
		if _, ok := recipe.Expected[key]; ok {
			hashes++
		}
	}
	if report(t, r) != hashes {
		t.Errorf("%d accumulated hashes passed, want %d", r.Passed, hashes)
	}
	if stdErr != nil {
		t.Fatal(stdErr)
	}
	for i := range n {
		if circlPrints[i] != stdPrints[i] {
			t.Fatalf("test %d: circl and crypto/mlkem differ", i)
		}
	}
	if want, ok := v.Recipes["go"].Expected[key]; !ok {
		t.Logf("recipe go has no hash for %d tests; crypto/mlkem checked by the differential only", n)
	} else if got := hex.EncodeToString(stdSum[:]); got != want {
		t.Errorf("crypto/mlkem, recipe go, %d tests: %s, want %s", n, got, want)
	}
}

// TestMLKEM768DifferentialRandom compares the implementations on random
// seeds, messages and ciphertexts, and on random and corrupted
// encapsulation keys.
func TestMLKEM768DifferentialRandom(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	seed, m, c := make([]byte, 64), make([]byte, 32), make([]byte, 1088)
	for i := range n {
		rand.Read(seed)
		rand.Read(m)
		rand.Read(c)
		ek, _, sk, _ := circlKeyFromSeed(seed)
		key, _ := mlkem.NewDecapsulationKey768(seed)
		if !bytes.Equal(ek, key.EncapsulationKey().Bytes()) {
			t.Fatalf("seed %x: keys differ", seed)
		}
		k1, c1, _ := circlEncaps(ek, m)
		k2, c2, _ := stdEncaps(ek, m)
		if !bytes.Equal(k1, k2) || !bytes.Equal(c1, c2) {
			t.Fatalf("seed %x m %x: encapsulations differ", seed, m)
		}
		r1, _ := circlDecaps(sk, c)
		r2, _ := key.Decapsulate(c)
		if !bytes.Equal(r1, r2) {
			t.Fatalf("seed %x: implicit rejection keys differ", seed)
		}
		// Corrupt one 12-bit coefficient to a random value: both must
		// agree on whether it is reduced (< 3329).
		bad := bytes.Clone(ek)
		j := (i * 7) % 768 // coefficient index within the 3 polynomials
		var rv [2]byte
		rand.Read(rv[:])
		val := uint16(rv[0]) | uint16(rv[1]&0x0f)<<8
		off := j / 2 * 3
		if j%2 == 0 {
			bad[off] = byte(val)
			bad[off+1] = bad[off+1]&0xf0 | byte(val>>8)
		} else {
			bad[off+1] = bad[off+1]&0x0f | byte(val<<4)
			bad[off+2] = byte(val >> 4)
		}
		_, _, ok1 := circlEncaps(bad, m)
		_, _, ok2 := stdEncaps(bad, m)
		if ok1 != ok2 || ok1 != (val < 3329) {
			t.Fatalf("coefficient %d = %d: circl %v, crypto/mlkem %v", j, val, ok1, ok2)
		}
		// Random bytes are almost never a valid key; both must agree.
		rand.Read(bad)
		_, _, ok1 = circlEncaps(bad, m)
		_, _, ok2 = stdEncaps(bad, m)
		if ok1 != ok2 {
			t.Fatalf("random ek %x: circl %v, crypto/mlkem %v", bad, ok1, ok2)
		}
	}
}

// TestRunAccumulatedCorrupted runs 100 accumulated tests against a
// corrupted expected hash.
func TestRunAccumulatedCorrupted(t *testing.T) {
	var v MLKEMAccumulated
	readJSON(t, "mlkem768_accumulated.json", &v)
	if r := RunMLKEMAccumulated(&v, 100); r.Passed != 1 || r.Failed != 0 {
		t.Fatalf("intact: %+v", r)
	}
	want := v.Recipes["go"].Expected["100"]
	v.Recipes["go"].Expected["100"] = "00" + want[2:]
	if r := RunMLKEMAccumulated(&v, 100); r.Passed != 0 || r.Failed != 1 {
		t.Errorf("corrupted: %+v", r)
	}
	if r := RunMLKEMAccumulated(&v, 7); r.Err == nil {
		t.Errorf("no hash for 7 tests: %+v", r)
	}
}
