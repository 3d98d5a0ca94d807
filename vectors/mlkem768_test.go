package vectors

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/rand"
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/mlkem768x25519/mlkem768x25519test"
)

// ML-KEM-768 known answers and the differential test of the two
// implementations: circl's kem/mlkem/mlkem768 (the backend of
// mlkem768x25519) and the standard library's crypto/mlkem (the oracle).
// crypto/mlkem cannot load an expanded 2400-byte decapsulation key, so
// vectors that only give one run on circl alone.

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// circlKeyFromSeed is circl's key generation, guarded as the method
// package guards it: NewKeyFromSeed panics on a wrong seed length.
func circlKeyFromSeed(seed []byte) (ek, dk []byte, sk *mlkem768.PrivateKey, ok bool) {
	if len(seed) != mlkem768.KeySeedSize {
		return nil, nil, nil, false
	}
	pk, sk := mlkem768.NewKeyFromSeed(seed)
	ek = make([]byte, mlkem768.PublicKeySize)
	dk = make([]byte, mlkem768.PrivateKeySize)
	pk.Pack(ek)
	sk.Pack(dk)
	return ek, dk, sk, true
}

// circlEncaps is circl's encapsulation with the FIPS 203 section 7.2
// check (Unpack) and the length guard EncapsulateTo needs.
func circlEncaps(ek, m []byte) (k, c []byte, ok bool) {
	var pk mlkem768.PublicKey
	if err := pk.Unpack(ek); err != nil || len(m) != mlkem768.EncapsulationSeedSize {
		return nil, nil, false
	}
	c = make([]byte, mlkem768.CiphertextSize)
	k = make([]byte, mlkem768.SharedKeySize)
	pk.EncapsulateTo(c, k, m)
	return k, c, true
}

// circlDecaps decapsulates with a guard on the ciphertext length.
func circlDecaps(sk *mlkem768.PrivateKey, c []byte) ([]byte, bool) {
	if len(c) != mlkem768.CiphertextSize {
		return nil, false
	}
	k := make([]byte, mlkem768.SharedKeySize)
	sk.DecapsulateTo(k, c)
	return k, true
}

// circlExpanded parses an expanded decapsulation key, with the FIPS 203
// section 7.3 length and hash checks.
func circlExpanded(dk []byte) (*mlkem768.PrivateKey, bool) {
	sk := new(mlkem768.PrivateKey)
	if err := sk.Unpack(dk); err != nil {
		return nil, false
	}
	return sk, true
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
	for _, tc := range v.Tests {
		seed := append(bytes.Clone(tc.D), tc.Z...)
		ek, dk, _, ok := circlKeyFromSeed(seed)
		if !ok || !bytes.Equal(ek, tc.EK) || !bytes.Equal(dk, tc.DK) {
			t.Errorf("tcId %d: circl key differs", tc.TcID)
		}
		key, err := mlkem.NewDecapsulationKey768(seed)
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
	for _, tc := range v.Encapsulation.Tests {
		k, c, ok := circlEncaps(tc.EK, tc.M)
		if !ok || !bytes.Equal(k, tc.K) || !bytes.Equal(c, tc.C) {
			t.Errorf("tcId %d: circl encapsulation differs", tc.TcID)
		}
		k, c, ok = stdEncaps(tc.EK, tc.M)
		if !ok || !bytes.Equal(k, tc.K) || !bytes.Equal(c, tc.C) {
			t.Errorf("tcId %d: crypto/mlkem encapsulation differs", tc.TcID)
		}
	}
	sk, ok := circlExpanded(v.Decapsulation.DK)
	if !ok {
		t.Fatal("circl rejects the decapsulation key")
	}
	for _, tc := range v.Decapsulation.Tests {
		if k, ok := circlDecaps(sk, tc.C); !ok || !bytes.Equal(k, tc.K) {
			t.Errorf("tcId %d: circl decapsulation differs", tc.TcID)
		}
	}
}

func readWycheproofMLKEM(t *testing.T, name, typ string, n int) []WycheproofMLKEMTest {
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
	for _, tc := range tests {
		if tc.Result != "valid" && tc.Result != "invalid" {
			t.Fatalf("%s tcId %d: result %q", name, tc.TcID, tc.Result)
		}
	}
	return tests
}

// TestMLKEM768Wycheproof runs MLKEMTest: key generation from a seed, then
// decapsulation; invalid cases have a wrong seed or ciphertext length.
func TestMLKEM768Wycheproof(t *testing.T) {
	var invalid int
	for _, tc := range readWycheproofMLKEM(t, "wycheproof_mlkem_768_test.json", "MLKEMTest", 193) {
		ek, _, sk, circlOK := circlKeyFromSeed(tc.Seed)
		key, err := mlkem.NewDecapsulationKey768(tc.Seed)
		stdOK := err == nil
		var k1, k2 []byte
		if circlOK && stdOK {
			if tc.EK != nil && (!bytes.Equal(ek, tc.EK) || !bytes.Equal(key.EncapsulationKey().Bytes(), tc.EK)) {
				t.Errorf("tcId %d: encapsulation key differs", tc.TcID)
			}
			k1, circlOK = circlDecaps(sk, tc.C)
			k2, err = key.Decapsulate(tc.C)
			stdOK = err == nil
		}
		if tc.Result == "invalid" {
			invalid++
			if circlOK || stdOK {
				t.Errorf("tcId %d (%s): accepted (circl %v, crypto/mlkem %v)", tc.TcID, tc.Comment, circlOK, stdOK)
			}
			// The same inputs through the SSH method.
			if len(tc.Seed) != 64 {
				if _, err := mlkem768x25519test.NewClient(tc.Seed, make([]byte, 32)); err == nil {
					t.Errorf("tcId %d: mlkem768x25519test accepted a %d-byte seed", tc.TcID, len(tc.Seed))
				}
			} else {
				c, err := mlkem768x25519test.NewClient(tc.Seed, make([]byte, 32))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Finish(append(bytes.Clone(tc.C), make([]byte, 32)...)); err == nil || !strings.Contains(err.Error(), "S_REPLY has") {
					t.Errorf("tcId %d: Finish with a %d-byte ciphertext: %v", tc.TcID, len(tc.C), err)
				}
			}
			continue
		}
		if !circlOK || !stdOK || !bytes.Equal(k1, tc.K) || !bytes.Equal(k2, tc.K) {
			t.Errorf("tcId %d (%s): shared key differs (circl %v, crypto/mlkem %v)", tc.TcID, tc.Comment, circlOK, stdOK)
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
	x := make([]byte, 32)
	x[0] = 9 // a valid X25519 public key
	var invalid, sshRejected int
	for _, tc := range readWycheproofMLKEM(t, "wycheproof_mlkem_768_encaps_test.json", "MLKEMEncapsTest", 265) {
		k1, c1, circlOK := circlEncaps(tc.EK, tc.M)
		k2, c2, stdOK := stdEncaps(tc.EK, tc.M)
		_, _, sshErr := mlkem768x25519.Respond(nil, append(bytes.Clone(tc.EK), x...))
		if tc.Result == "invalid" {
			invalid++
			if circlOK || stdOK || sshErr == nil {
				t.Errorf("tcId %d (%s): accepted (circl %v, crypto/mlkem %v, ssh %v)", tc.TcID, tc.Comment, circlOK, stdOK, sshErr)
			}
			if len(tc.EK) == 1184 {
				sshRejected++
				if !strings.Contains(sshErr.Error(), "client's ML-KEM-768 encapsulation key is invalid") {
					t.Errorf("tcId %d: error %q", tc.TcID, sshErr)
				}
			}
			continue
		}
		if !circlOK || !stdOK || !bytes.Equal(k1, tc.K) || !bytes.Equal(c1, tc.C) || !bytes.Equal(k2, tc.K) || !bytes.Equal(c2, tc.C) {
			t.Errorf("tcId %d (%s): encapsulation differs (circl %v, crypto/mlkem %v)", tc.TcID, tc.Comment, circlOK, stdOK)
		}
		if sshErr != nil {
			t.Errorf("tcId %d: the SSH server rejects a valid key: %v", tc.TcID, sshErr)
		}
		// Through the SSH server with m injected: S_REPLY starts with c.
		reply, _, err := mlkem768x25519test.Respond(append(bytes.Clone(tc.EK), x...), tc.M, make([]byte, 32))
		if err != nil || !bytes.Equal(reply[:1088], tc.C) {
			t.Errorf("tcId %d: S_REPLY does not carry the expected ciphertext (%v)", tc.TcID, err)
		}
	}
	if invalid != 132 || sshRejected != 112 {
		t.Errorf("%d invalid cases (want 132), %d of them 1184 bytes long (want 112)", invalid, sshRejected)
	}
}

func TestMLKEM768WycheproofKeyGen(t *testing.T) {
	for _, tc := range readWycheproofMLKEM(t, "wycheproof_mlkem_768_keygen_seed_test.json", "MLKEMKeyGen", 100) {
		ek, dk, _, ok := circlKeyFromSeed(tc.Seed)
		if !ok || !bytes.Equal(ek, tc.EK) || !bytes.Equal(dk, tc.DK) {
			t.Errorf("tcId %d: circl key differs", tc.TcID)
		}
		key, err := mlkem.NewDecapsulationKey768(tc.Seed)
		if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), tc.EK) {
			t.Errorf("tcId %d: crypto/mlkem key differs", tc.TcID)
		}
		c, err := mlkem768x25519test.NewClient(tc.Seed, make([]byte, 32))
		if err != nil || !bytes.Equal(c.Init()[:1184], tc.EK) {
			t.Errorf("tcId %d: C_INIT does not start with ek", tc.TcID)
		}
	}
}

// TestMLKEM768WycheproofSemiExpanded runs decapsulation with expanded keys
// (circl only), including the FIPS 203 section 7.3 checks, also through
// mlkem768x25519test.NewClient.
func TestMLKEM768WycheproofSemiExpanded(t *testing.T) {
	for _, tc := range readWycheproofMLKEM(t, "wycheproof_mlkem_768_semi_expanded_decaps_test.json", "MLKEMDecapsValidationTest", 9) {
		sk, ok := circlExpanded(tc.DK)
		var k []byte
		if ok {
			k, ok = circlDecaps(sk, tc.C)
		}
		_, clientErr := mlkem768x25519test.NewClient(tc.DK, make([]byte, 32))
		if tc.Result == "invalid" {
			if ok {
				t.Errorf("tcId %d (%s): accepted", tc.TcID, tc.Comment)
			}
			if len(tc.C) == 1088 && clientErr == nil {
				t.Errorf("tcId %d (%s): mlkem768x25519test accepted the key", tc.TcID, tc.Comment)
			}
			continue
		}
		if !ok || !bytes.Equal(k, tc.K) || clientErr != nil {
			t.Errorf("tcId %d (%s): decapsulation differs (%v)", tc.TcID, tc.Comment, clientErr)
		}
	}
}

func readKeyValues(t *testing.T, name string) map[string][]byte {
	f, err := os.Open("testdata/" + name)
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
	f, err := os.Open("testdata/cctv_mlkem768_modulus.txt.gz")
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
	x := make([]byte, 32)
	x[0] = 9
	for i, ek := range keys {
		if len(ek) != 1184 {
			t.Fatalf("line %d: %d bytes", i+1, len(ek))
		}
		var pk mlkem768.PublicKey
		if pk.Unpack(ek) == nil {
			t.Errorf("line %d: circl accepted", i+1)
		}
		if _, err := mlkem.NewEncapsulationKey768(ek); err == nil {
			t.Errorf("line %d: crypto/mlkem accepted", i+1)
		}
		_, _, err := mlkem768x25519.Respond(nil, append(bytes.Clone(ek), x...))
		if err == nil || !strings.Contains(err.Error(), "client's ML-KEM-768 encapsulation key is invalid") {
			t.Errorf("line %d: SSH server: %v", i+1, err)
		}
	}
}

func TestMLKEM768CCTVStrcmp(t *testing.T) {
	kv := readKeyValues(t, "cctv_mlkem768_strcmp.txt")
	sk, ok := circlExpanded(kv["dk"])
	if !ok {
		t.Fatal("circl rejects dk")
	}
	if k, ok := circlDecaps(sk, kv["c"]); !ok || !bytes.Equal(k, kv["K"]) {
		t.Errorf("circl decapsulation differs")
	}
	c, err := mlkem768x25519test.NewClient(kv["dk"], make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Init()[:1184], kv["dk"][1152:2336]) {
		t.Error("C_INIT does not carry the key's ek")
	}
}

func TestMLKEM768CCTVUnlucky(t *testing.T) {
	kv := readKeyValues(t, "cctv_mlkem768_unlucky_fips203final_pr13.txt")
	seed := append(bytes.Clone(kv["d"]), kv["z"]...)
	ek, dk, sk, ok := circlKeyFromSeed(seed)
	if !ok || !bytes.Equal(ek, kv["ek"]) || !bytes.Equal(dk, kv["dk"]) {
		t.Error("circl key differs")
	}
	key, err := mlkem.NewDecapsulationKey768(seed)
	if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), kv["ek"]) {
		t.Error("crypto/mlkem key differs")
	}
	for name, f := range map[string]func(ek, m []byte) ([]byte, []byte, bool){"circl": circlEncaps, "crypto/mlkem": stdEncaps} {
		k, c, ok := f(kv["ek"], kv["m"])
		if !ok || !bytes.Equal(k, kv["K"]) || !bytes.Equal(c, kv["c"]) {
			t.Errorf("%s encapsulation differs", name)
		}
	}
	if k, ok := circlDecaps(sk, kv["c"]); !ok || !bytes.Equal(k, kv["K"]) {
		t.Error("circl decapsulation differs")
	}
	if k, err := key.Decapsulate(kv["c"]); err != nil || !bytes.Equal(k, kv["K"]) {
		t.Error("crypto/mlkem decapsulation differs")
	}
}

// TestMLKEM768Accumulated runs the accumulated pseudo-random tests of
// mlkem768_accumulated.json with both implementations on the same inputs:
// circl feeds the CCTV recipe (it needs the expanded dk), crypto/mlkem the
// Go recipe, and the two must agree on every test's ek, c, K and K1. The
// two run concurrently. 10 000 tests by default, 100 with -short,
// 1 000 000 with -long.
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
	key := map[int]string{100: "100", 10000: "10000", 1000000: "1000000"}[n]

	var first [16]byte
	sha3.NewSHAKE128().Read(first[:])
	if hex.EncodeToString(first[:]) != "7f9c2ba4e88f827d616045507605853e" {
		t.Fatal("SHAKE-128 of the empty string is not as the recipe says")
	}

	// Each implementation reads the same RNG (64 bytes seed, 32 bytes m,
	// 1088 bytes c1 per test), absorbs its recipe's values and records a
	// fingerprint of (ek, c, K, K1) per test for the comparison.
	type run struct {
		sum    [32]byte
		prints [][32]byte
		err    string
	}
	fingerprint := func(bs ...[]byte) (f [32]byte) {
		h := sha3.New256()
		for _, b := range bs {
			h.Write(b)
		}
		copy(f[:], h.Sum(nil))
		return f
	}
	circlRun := func() (r run) {
		rng, acc := sha3.NewSHAKE128(), sha3.NewSHAKE128()
		seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, 1088)
		r.prints = make([][32]byte, n)
		for i := range n {
			rng.Read(seed)
			rng.Read(m)
			rng.Read(c1)
			ek, dk, sk, _ := circlKeyFromSeed(seed)
			k, c, ok := circlEncaps(ek, m)
			if !ok {
				r.err = fmt.Sprintf("test %d: circl rejects its own key", i)
				return r
			}
			kk, _ := circlDecaps(sk, c)
			k1, _ := circlDecaps(sk, c1)
			if !bytes.Equal(kk, k) {
				r.err = fmt.Sprintf("test %d: circl decapsulation does not invert encapsulation", i)
				return r
			}
			for _, b := range [][]byte{ek, dk, c, k, k1} {
				acc.Write(b)
			}
			r.prints[i] = fingerprint(ek, c, k, k1)
		}
		acc.Read(r.sum[:])
		return r
	}
	stdRun := func() (r run) {
		rng, acc := sha3.NewSHAKE128(), sha3.NewSHAKE128()
		seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, 1088)
		r.prints = make([][32]byte, n)
		for i := range n {
			rng.Read(seed)
			rng.Read(m)
			rng.Read(c1)
			dk, err := mlkem.NewDecapsulationKey768(seed)
			if err != nil {
				r.err = err.Error()
				return r
			}
			ek := dk.EncapsulationKey().Bytes()
			k, c, err := mlkemtest.Encapsulate768(dk.EncapsulationKey(), m)
			if err != nil {
				r.err = err.Error()
				return r
			}
			kk, _ := dk.Decapsulate(c)
			k1, _ := dk.Decapsulate(c1)
			if !bytes.Equal(kk, k) {
				r.err = fmt.Sprintf("test %d: crypto/mlkem decapsulation does not invert encapsulation", i)
				return r
			}
			for _, b := range [][]byte{ek, c, k, k1} {
				acc.Write(b)
			}
			r.prints[i] = fingerprint(ek, c, k, k1)
		}
		acc.Read(r.sum[:])
		return r
	}
	done := make(chan run)
	go func() { done <- circlRun() }()
	std := stdRun()
	circl := <-done
	if circl.err != "" || std.err != "" {
		t.Fatalf("%s %s", circl.err, std.err)
	}
	for i := range n {
		if circl.prints[i] != std.prints[i] {
			t.Fatalf("test %d: circl and crypto/mlkem differ", i)
		}
	}
	for name, sum := range map[string][32]byte{"cctv": circl.sum, "go": std.sum} {
		want, ok := v.Recipes[name].Expected[key]
		if !ok {
			t.Logf("recipe %s has no hash for %d tests; checked by the differential only", name, n)
			continue
		}
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("recipe %s, %d tests: %s, want %s", name, n, got, want)
		}
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
