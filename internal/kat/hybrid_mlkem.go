package kat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha3"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The ML-KEM runners check one parameter set's files on every given
// implementation. Values that need the expanded decapsulation key
// (dk_PKE || ek || H(ek) || z) run only on implementations that have it
// (hybrid.ExpandedKEM: circl); everything else runs on all.

// mustJSON decodes a JSON vector file or ends the run.
func mustJSON(t TB, name string, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func keyGen(k hybrid.KEM, seed []byte) (ek []byte, dk hybrid.DecapsulationKey, err error) {
	if len(seed) != 64 {
		return nil, nil, fmt.Errorf("seed has %d bytes", len(seed))
	}
	dk, err = k.NewDecapsulationKey(seed)
	if err != nil {
		return nil, nil, err
	}
	ek = make([]byte, k.EncapsulationKeySize())
	dk.EncapsulationKey(ek)
	return ek, dk, nil
}

func encaps(k hybrid.KEM, ek, m []byte) (c, key []byte, err error) {
	e, err := k.ParseEncapsulationKey(ek)
	if err != nil {
		return nil, nil, err
	}
	if len(m) != 32 {
		return nil, nil, fmt.Errorf("m has %d bytes", len(m))
	}
	c, key = make([]byte, k.CiphertextSize()), make([]byte, 32)
	return c, key, e.Encapsulate(c, key, m)
}

func decaps(k hybrid.KEM, dk hybrid.DecapsulationKey, c []byte) ([]byte, error) {
	if len(c) != k.CiphertextSize() {
		return nil, fmt.Errorf("ciphertext has %d bytes", len(c))
	}
	key := make([]byte, 32)
	dk.Decapsulate(key, c)
	return key, nil
}

func loadExpanded(k hybrid.KEM, dk []byte) (hybrid.DecapsulationKey, bool, error) {
	x, ok := k.(hybrid.ExpandedKEM)
	if !ok {
		return nil, false, nil
	}
	if len(dk) != x.ExpandedSize() {
		return nil, true, fmt.Errorf("expanded key has %d bytes", len(dk))
	}
	d, err := x.LoadExpanded(dk)
	return d, true, err
}

func expanded(k hybrid.KEM, dk hybrid.DecapsulationKey) ([]byte, bool) {
	x, ok := k.(hybrid.ExpandedKEM)
	if !ok {
		return nil, false
	}
	return x.Expanded(dk), true
}

// kemCheckKeyGen: KeyGen_internal(seed) gives ek (and the expanded dk where
// the implementation has it and want is given).
func kemCheckKeyGen(k hybrid.KEM, seed, wantEK, wantDK []byte) error {
	ek, dk, err := keyGen(k, seed)
	if err != nil {
		return err
	}
	if !bytes.Equal(ek, wantEK) {
		return errors.New("ek differs")
	}
	if wantDK != nil {
		if got, ok := expanded(k, dk); ok && !bytes.Equal(got, wantDK) {
			return errors.New("expanded dk differs")
		}
	}
	return nil
}

func kemCheckEncaps(k hybrid.KEM, ek, m, wantC, wantK []byte) error {
	c, key, err := encaps(k, ek, m)
	if err != nil {
		return err
	}
	if !bytes.Equal(c, wantC) || !bytes.Equal(key, wantK) {
		return errors.New("c or K differs")
	}
	return nil
}

// kemCheckDecaps decapsulates with a seed (every implementation; any other
// length is an invalid seed) or, if expandedKey, with an expanded key
// (callers run those only on implementations that load them).
func kemCheckDecaps(k hybrid.KEM, key, c, wantK []byte, expandedKey bool) error {
	var dk hybrid.DecapsulationKey
	var err error
	if !expandedKey {
		_, dk, err = keyGen(k, key)
	} else {
		var ok bool
		if dk, ok, err = loadExpanded(k, key); !ok {
			return fmt.Errorf("%s cannot load expanded keys", k.Impl())
		}
	}
	if err != nil {
		return err
	}
	got, err := decaps(k, dk, c)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, wantK) {
		return errors.New("the shared key K differs")
	}
	return nil
}

func reportKEM(t TB, k hybrid.KEM, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s %s: %s: %v", k.Impl(), k.Name(), what, err)
	}
}

// RunKEMACVPKeyGen checks an ACVP keyGen file (prompt joined with the
// results): KeyGen_internal(d, z) gives ek, and the expanded dk where the
// implementation has it. One case per test and implementation.
func RunKEMACVPKeyGen(t TB, name string, data []byte, kems ...hybrid.KEM) int {
	t.Helper()
	var kg ACVPMLKEMKeyGen
	mustJSON(t, name, data, &kg)
	n := 0
	for _, k := range kems {
		if kg.ParameterSet != k.Name() {
			t.Fatalf("%s is for %s, not %s", name, kg.ParameterSet, k.Name())
		}
		for _, tc := range kg.Tests {
			each(t, func() {
				reportKEM(t, k, fmt.Sprintf("keyGen tcId %d", tc.TcID), kemCheckKeyGen(k, append(append([]byte{}, tc.D...), tc.Z...), tc.EK, tc.DK))
			})
			n++
		}
	}
	return n
}

// RunKEMACVPEncapDecap checks an ACVP encapDecap file: every
// encapsulation on every implementation, the decapsulations (which give
// only an expanded dk) on those that load expanded keys.
func RunKEMACVPEncapDecap(t TB, name string, data []byte, kems ...hybrid.KEM) int {
	t.Helper()
	var ed ACVPMLKEMEncapDecap
	mustJSON(t, name, data, &ed)
	n := 0
	for _, k := range kems {
		if ed.ParameterSet != k.Name() {
			t.Fatalf("%s is for %s, not %s", name, ed.ParameterSet, k.Name())
		}
		for _, tc := range ed.Encapsulation.Tests {
			each(t, func() {
				reportKEM(t, k, fmt.Sprintf("encapsulation tcId %d", tc.TcID), kemCheckEncaps(k, tc.EK, tc.M, tc.C, tc.K))
			})
			n++
		}
		if _, ok := k.(hybrid.ExpandedKEM); !ok {
			continue // the decapsulation cases give only an expanded dk
		}
		for _, tc := range ed.Decapsulation.Tests {
			each(t, func() {
				reportKEM(t, k, fmt.Sprintf("decapsulation tcId %d", tc.TcID), kemCheckDecaps(k, ed.Decapsulation.DK, tc.C, tc.K, true))
			})
			n++
		}
	}
	return n
}

// RunKEMWycheproof checks a Wycheproof ML-KEM file of any of the four
// schemas: valid cases give the listed values, invalid ones are rejected.
func RunKEMWycheproof(t TB, name string, data []byte, kems ...hybrid.KEM) int {
	t.Helper()
	var v WycheproofMLKEM
	mustJSON(t, name, data, &v)
	n := 0
	for _, k := range kems {
		for _, g := range v.TestGroups {
			if g.ParameterSet != k.Name() {
				t.Fatalf("%s: group for %s, not %s", name, g.ParameterSet, k.Name())
			}
			switch g.Type {
			case "MLKEMTest", "MLKEMEncapsTest", "MLKEMKeyGen":
			case "MLKEMDecapsValidationTest":
				if _, ok := k.(hybrid.ExpandedKEM); !ok {
					continue
				}
			default:
				t.Fatalf("%s: unknown test group type %q", name, g.Type)
			}
			for _, tc := range g.Tests {
				each(t, func() {
					id := fmt.Sprintf("%s tcId %d", name, tc.TcID)
					valid := tc.Result == "valid"
					if !valid && tc.Result != "invalid" {
						t.Fatalf("%s: result %q", id, tc.Result)
					}
					var err error
					switch g.Type {
					case "MLKEMTest":
						err = kemCheckDecaps(k, tc.Seed, tc.C, tc.K, false)
						if valid && err == nil && tc.EK != nil {
							err = kemCheckKeyGen(k, tc.Seed, tc.EK, nil)
						}
					case "MLKEMEncapsTest":
						err = kemCheckEncaps(k, tc.EK, tc.M, tc.C, tc.K)
					case "MLKEMKeyGen":
						err = kemCheckKeyGen(k, tc.Seed, tc.EK, tc.DK)
					case "MLKEMDecapsValidationTest":
						err = kemCheckDecaps(k, tc.DK, tc.C, tc.K, true)
					}
					switch {
					case valid && err != nil:
						reportKEM(t, k, id, err)
					case !valid && err == nil:
						reportKEM(t, k, id, errors.New("invalid case accepted"))
					}
				})
				n++
			}
		}
	}
	return n
}

// RunKEMCCTVModulus checks that every key of CCTV's modulus file (data:
// gzipped hex, one key per line) is rejected by every implementation and,
// inside C_INIT, by every Exchange's Respond, for the encapsulation key.
// One case per key.
func RunKEMCCTVModulus(t TB, name string, data []byte, kems []hybrid.KEM, exs ...Exchange) int {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	points := map[string][]byte{}
	for _, ex := range exs {
		c, err := ex.NewClient(nil)
		if err != nil {
			t.Fatalf("%s: NewClient: %v", ex.Label, err)
		}
		init := c.Init()
		points[ex.Label] = init[len(init)-ex.Curve.PublicKeySize():]
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	n := 0
	for line := 1; sc.Scan(); line++ {
		each(t, func() {
			ek, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
			if err != nil {
				t.Fatalf("%s line %d: %v", name, line, err)
			}
			for _, k := range kems {
				if len(ek) != k.EncapsulationKeySize() {
					t.Fatalf("%s line %d: %d-byte key", name, line, len(ek))
				}
				if _, err := k.ParseEncapsulationKey(ek); err == nil {
					reportKEM(t, k, fmt.Sprintf("%s line %d", name, line), errors.New("unreduced key accepted"))
				}
			}
			for _, ex := range exs {
				_, _, err := ex.Respond(nil, append(append([]byte{}, ek...), points[ex.Label]...))
				if err == nil || !strings.Contains(err.Error(), "client's ML-KEM") {
					t.Errorf("%s %s line %d: Respond: %v", ex.Label, name, line, err)
				}
			}
		})
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// RunKEMCCTVCase checks one CCTV "name = hex" case (strcmp, unlucky): key
// generation from d, z; encapsulation of m; decapsulation of c with the
// expanded dk and with d || z, as far as the fields allow. One case per
// check and implementation.
func RunKEMCCTVCase(t TB, name string, data []byte, kems ...hybrid.KEM) int {
	t.Helper()
	kv := map[string][]byte{}
	for _, line := range strings.Split(string(data), "\n") {
		key, val, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		b, err := hex.DecodeString(strings.TrimSpace(val))
		if err != nil {
			t.Fatalf("%s: %s: %v", name, key, err)
		}
		kv[strings.TrimSpace(key)] = b
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if kv[n] == nil {
				return false
			}
		}
		return true
	}
	n := 0
	check := func(k hybrid.KEM, what string, f func() error) {
		each(t, func() { reportKEM(t, k, name+" "+what, f()) })
		n++
	}
	for _, k := range kems {
		seed := append(append([]byte{}, kv["d"]...), kv["z"]...)
		if has("d", "z", "ek") {
			check(k, "keygen", func() error { return kemCheckKeyGen(k, seed, kv["ek"], kv["dk"]) })
		}
		if has("ek", "m", "c", "K") {
			check(k, "encaps", func() error { return kemCheckEncaps(k, kv["ek"], kv["m"], kv["c"], kv["K"]) })
		}
		if _, ok := k.(hybrid.ExpandedKEM); ok && has("dk", "c", "K") {
			check(k, "decaps (expanded dk)", func() error { return kemCheckDecaps(k, kv["dk"], kv["c"], kv["K"], true) })
		}
		if has("d", "z", "c", "K") {
			check(k, "decaps (seed)", func() error { return kemCheckDecaps(k, seed, kv["c"], kv["K"], false) })
		}
	}
	if n == 0 {
		t.Fatalf("%s: no complete case", name)
	}
	return n
}

// RunKEMAccumulated runs n accumulated pseudo-random tests (the recipes
// of mlkem*_accumulated.json) on each implementation and compares the
// final hashes the file lists for n: "go" (ek, c, K, K1) everywhere,
// "cctv" (also the expanded dk) where the implementation has expanded
// keys. It returns how many hashes it compared; the callers check that
// number. One case per implementation.
func RunKEMAccumulated(t TB, name string, data []byte, n int, kems ...hybrid.KEM) int {
	t.Helper()
	var v MLKEMAccumulated
	mustJSON(t, name, data, &v)
	key := fmt.Sprint(n)
	runs := 0
	for _, k := range kems {
		each(t, func() { runs += accumulateKEM(t, k, n, key, v.Recipes["cctv"].Expected, v.Recipes["go"].Expected) })
	}
	return runs
}

func accumulateKEM(t TB, k hybrid.KEM, n int, key string, cctv, goRecipe map[string]string) int {
	rng, accCCTV, accGo := sha3.NewSHAKE128(), sha3.NewSHAKE128(), sha3.NewSHAKE128()
	seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, k.CiphertextSize())
	_, hasDK := k.(hybrid.ExpandedKEM)
	for i := range n {
		rng.Read(seed)
		rng.Read(m)
		rng.Read(c1)
		ek, dk, err := keyGen(k, seed)
		if err != nil {
			t.Fatalf("%s test %d: %v", k.Impl(), i, err)
		}
		c, kk, err := encaps(k, ek, m)
		if err != nil {
			t.Fatalf("%s test %d: %v", k.Impl(), i, err)
		}
		k2, _ := decaps(k, dk, c)
		k1, _ := decaps(k, dk, c1)
		if !bytes.Equal(k2, kk) {
			t.Fatalf("%s test %d: decapsulation does not invert encapsulation", k.Impl(), i)
		}
		if hasDK {
			x, _ := expanded(k, dk)
			for _, b := range [][]byte{ek, x, c, kk, k1} {
				accCCTV.Write(b)
			}
		}
		for _, b := range [][]byte{ek, c, kk, k1} {
			accGo.Write(b)
		}
	}
	runs := 0
	for _, r := range []struct {
		name string
		acc  *sha3.SHAKE
		want map[string]string
	}{{"cctv", accCCTV, cctv}, {"go", accGo, goRecipe}} {
		want, ok := r.want[key]
		if !ok || (r.name == "cctv" && !hasDK) {
			continue // no published hash for n tests, or no expanded dk
		}
		got := make([]byte, 32)
		r.acc.Read(got)
		if hex.EncodeToString(got) != want {
			t.Errorf("%s %s: accumulated %s hash over %d tests = %x, want %s", k.Impl(), k.Name(), r.name, n, got, want)
		}
		runs++
	}
	return runs
}

// CrossCheck runs the implementations against each other on n random
// seeds, messages and ciphertexts (valid and garbled) and on random
// unreduced encapsulation keys: every output and every verdict must agree.
func CrossCheck(t TB, n int, a, b hybrid.KEM) {
	t.Helper()
	seed, m := make([]byte, 64), make([]byte, 32)
	for i := range n {
		rand.Read(seed)
		rand.Read(m)
		ekA, dkA, errA := keyGen(a, seed)
		ekB, dkB, errB := keyGen(b, seed)
		if errA != nil || errB != nil || !bytes.Equal(ekA, ekB) {
			t.Fatalf("%d: key generation differs (%v, %v)", i, errA, errB)
		}
		cA, kA, errA := encaps(a, ekA, m)
		cB, kB, errB := encaps(b, ekA, m)
		if errA != nil || errB != nil || !bytes.Equal(cA, cB) || !bytes.Equal(kA, kB) {
			t.Fatalf("%d: encapsulation differs (%v, %v)", i, errA, errB)
		}
		garbled := bytes.Clone(cA)
		garbled[i%len(garbled)] ^= 1 << (i % 8)
		random := make([]byte, len(cA))
		rand.Read(random)
		for _, c := range [][]byte{cA, garbled, random} {
			x, _ := decaps(a, dkA, c)
			y, _ := decaps(b, dkB, c)
			if !bytes.Equal(x, y) {
				t.Fatalf("%d: decapsulation differs", i)
			}
		}
		// An unreduced coefficient at a random position: both reject.
		bad := bytes.Clone(ekA)
		j := 3 * (i % ((len(bad) - 32) / 3))   // a pair of 12-bit coefficients
		bad[j], bad[j+1] = 0xff, bad[j+1]|0x0f // coefficient 0xfff
		_, errA = a.ParseEncapsulationKey(bad)
		_, errB = b.ParseEncapsulationKey(bad)
		if errA == nil || errB == nil {
			t.Fatalf("%d: unreduced key accepted (%v, %v)", i, errA, errB)
		}
	}
}
