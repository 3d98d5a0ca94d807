package kat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha3"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The ML-KEM files (ACVP, Wycheproof, CCTV, accumulated recipes) of one
// parameter set run on Targets: an ML-KEM implementation alone
// (KEMTarget: circl, crypto/mlkem), or a hybrid method whose SSH messages
// carry the KEM's values (SSHTarget): there the vector's ek, c and key
// must appear in C_INIT, S_REPLY and K = string(HASH(K || K_CL)), with a
// fixed classical key pair. Values that need the expanded decapsulation
// key (dk_PKE || ek || H(ek) || z) run only on targets that load it
// (circl, and mlkem768x25519's explicit-key constructor).

func fails(t TB, tg Target, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %s: %v", tg.Label(), what, err)
	}
}

// checkParams ends the run if a file's parameter set is not every
// target's.
func checkParams(t TB, name, ps string, ts []Target) {
	t.Helper()
	for _, tg := range ts {
		if ps != tg.Params() {
			t.Fatalf("%s is for %s, not %s", name, ps, tg.Params())
		}
	}
}

// onAll runs one case: check on every target (on those that load
// expanded keys only, if expandedOnly), failures reported under what. It
// returns 1, or 0 if no target ran it.
func onAll(t TB, ts []Target, what string, expandedOnly bool, check func(Target) error) int {
	t.Helper()
	var run []Target
	for _, tg := range ts {
		if !expandedOnly || tg.Expanded() {
			run = append(run, tg)
		}
	}
	if len(run) == 0 {
		return 0
	}
	each(t, func() {
		for _, tg := range run {
			fails(t, tg, what, check(tg))
		}
	})
	return 1
}

// RunACVP checks an ACVP file (prompt joined with the results): keyGen,
// KeyGen_internal(d, z) gives ek, and the expanded dk where the target
// has it; encapDecap, every encapsulation, and the decapsulations (which
// give only an expanded dk) on the targets that load expanded keys. One
// case per test, run on every target (as are the cases of the runners
// below).
func RunACVP(t TB, name string, data []byte, ts ...Target) int {
	t.Helper()
	var v acvpMLKEM
	mustJSON(t, name, data, &v)
	checkParams(t, name, v.ParameterSet, ts)
	n := 0
	for _, tc := range v.Tests {
		n += onAll(t, ts, fmt.Sprintf("keyGen tcId %d", tc.TcID), false, func(tg Target) error { return tg.KeyGen(cat(tc.D, tc.Z), tc.EK, tc.DK) })
	}
	for _, tc := range v.Encapsulation.Tests {
		n += onAll(t, ts, fmt.Sprintf("encapsulation tcId %d", tc.TcID), false, func(tg Target) error { return tg.Encaps(tc.EK, tc.M, tc.C, tc.K) })
	}
	for _, tc := range v.Decapsulation.Tests {
		n += onAll(t, ts, fmt.Sprintf("decapsulation tcId %d", tc.TcID), true, func(tg Target) error { return tg.Decaps(v.Decapsulation.DK, tc.C, tc.K) })
	}
	return n
}

// RunWycheproof checks a Wycheproof ML-KEM file of any of the four
// schemas: valid cases give the listed values, invalid ones (wrong
// lengths, unreduced keys, a bad dk hash) are rejected.
func RunWycheproof(t TB, name string, data []byte, ts ...Target) int {
	t.Helper()
	var v wycheproofFile
	mustJSON(t, name, data, &v)
	n := 0
	for _, g := range v.TestGroups {
		checkParams(t, name, g.ParameterSet, ts)
		switch g.Type {
		case "MLKEMTest", "MLKEMEncapsTest", "MLKEMKeyGen", "MLKEMDecapsValidationTest":
		default:
			t.Fatalf("%s: unknown test group type %q", name, g.Type)
		}
		for _, tc := range g.Tests {
			valid := tc.Result == "valid"
			if !valid && tc.Result != "invalid" {
				t.Fatalf("%s tcId %d: result %q", name, tc.TcID, tc.Result)
			}
			n += onAll(t, ts, fmt.Sprintf("%s tcId %d", name, tc.TcID), g.Type == "MLKEMDecapsValidationTest", func(tg Target) error {
				var err error
				switch g.Type {
				case "MLKEMTest":
					err = tg.Decaps(tc.Seed, tc.C, tc.K)
					if valid && err == nil && tc.EK != nil {
						err = tg.KeyGen(tc.Seed, tc.EK, nil)
					}
				case "MLKEMEncapsTest":
					err = tg.Encaps(tc.EK, tc.M, tc.C, tc.K)
				case "MLKEMKeyGen":
					err = tg.KeyGen(tc.Seed, tc.EK, tc.DK)
				case "MLKEMDecapsValidationTest":
					err = tg.Decaps(tc.DK, tc.C, tc.K)
				}
				switch {
				case valid, errors.Is(err, errUnnamed):
					return err
				case err == nil:
					return errors.New("invalid case accepted")
				}
				return nil
			})
		}
	}
	return n
}

// RunCCTVModulus checks that every key of CCTV's modulus file (data:
// gzipped hex, one key per line) is rejected by every target. One case
// per key. A file that decompresses to more than maxDecompressed bytes
// or maxLines lines ends the run.
func RunCCTVModulus(t TB, name string, data []byte, ts ...Target) int {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	lr := &io.LimitedReader{R: z, N: maxDecompressed + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(nil, 1<<20)
	n := 0
	tooBig := func() {
		if lr.N == 0 {
			t.Fatalf("%s decompresses to more than %d MiB", name, maxDecompressed>>20)
		}
	}
	for line := 1; sc.Scan(); line++ {
		tooBig()
		if line > maxLines {
			t.Fatalf("%s has more than %d lines", name, maxLines)
		}
		ek, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("%s line %d: %v", name, line, err)
		}
		n += onAll(t, ts, fmt.Sprintf("%s line %d", name, line), false, func(tg Target) error { return tg.RejectsEK(ek) })
	}
	tooBig()
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// RunCCTVCase checks one CCTV "name = hex" case (strcmp, unlucky): key
// generation from d, z; encapsulation of m; decapsulation of c with the
// expanded dk (where a target loads it) and with d || z, as far as the
// fields allow: one case.
func RunCCTVCase(t TB, name string, data []byte, ts ...Target) int {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	if len(lines) > maxLines {
		t.Fatalf("%s has more than %d lines", name, maxLines)
	}
	kv := map[string][]byte{}
	for _, line := range lines {
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
	seed := cat(kv["d"], kv["z"])
	var checks []func(Target) error
	if has("d", "z", "ek") {
		checks = append(checks, func(tg Target) error { return tg.KeyGen(seed, kv["ek"], kv["dk"]) })
	}
	if has("ek", "m", "c", "K") {
		checks = append(checks, func(tg Target) error { return tg.Encaps(kv["ek"], kv["m"], kv["c"], kv["K"]) })
	}
	if has("dk", "c", "K") {
		checks = append(checks, func(tg Target) error {
			if !tg.Expanded() {
				return nil // the expanded dk loads on some targets only
			}
			return tg.Decaps(kv["dk"], kv["c"], kv["K"])
		})
	}
	if has("d", "z", "c", "K") {
		checks = append(checks, func(tg Target) error { return tg.Decaps(seed, kv["c"], kv["K"]) })
	}
	if len(checks) == 0 {
		t.Fatalf("%s: no complete case", name)
	}
	return onAll(t, ts, name, false, func(tg Target) error {
		for _, c := range checks {
			if err := c(tg); err != nil {
				return err
			}
		}
		return nil
	})
}

// RunAccumulated runs n accumulated pseudo-random tests (the recipes of
// mlkem*_accumulated.json) on each implementation and compares the final
// hashes the file lists for n: "go" (ek, c, K, K1) everywhere, "cctv"
// (also the expanded dk) where the implementation has expanded keys. It
// returns how many hashes it compared; the callers check that number. One
// case per implementation.
func RunAccumulated(t TB, name string, data []byte, n int, kems ...hybrid.KEM) int {
	t.Helper()
	var v MLKEMAccumulated
	mustJSON(t, name, data, &v)
	key := fmt.Sprint(n)
	runs := 0
	for _, k := range kems {
		each(t, func() {
			runs += accumulateKEM(t, kemTarget{k}, n, key, v.Recipes["cctv"].Expected, v.Recipes["go"].Expected)
		})
	}
	return runs
}

func accumulateKEM(t TB, k kemTarget, n int, key string, cctv, goRecipe map[string]string) int {
	rng, accCCTV, accGo := sha3.NewSHAKE128(), sha3.NewSHAKE128(), sha3.NewSHAKE128()
	seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, k.k.CiphertextSize())
	x, hasDK := k.k.(hybrid.ExpandedKEM)
	for i := range n {
		rng.Read(seed)
		rng.Read(m)
		rng.Read(c1)
		ek, dk, err := k.keyGen(seed)
		if err != nil {
			t.Fatalf("%s test %d: %v", k.Label(), i, err)
		}
		c, kk, err := k.encaps(ek, m)
		if err != nil {
			t.Fatalf("%s test %d: %v", k.Label(), i, err)
		}
		k2, _ := k.decaps(dk, c)
		k1, _ := k.decaps(dk, c1)
		if !bytes.Equal(k2, kk) {
			t.Fatalf("%s test %d: decapsulation does not invert encapsulation", k.Label(), i)
		}
		if hasDK {
			for _, b := range [][]byte{ek, x.Expanded(dk), c, kk, k1} {
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
			t.Errorf("%s: accumulated %s hash over %d tests = %x, want %s", k.Label(), r.name, n, got, want)
		}
		runs++
	}
	return runs
}

// CrossCheck runs two implementations against each other on n random
// seeds, messages and ciphertexts (valid and garbled) and on random
// unreduced encapsulation keys: every output and every verdict must agree.
func CrossCheck(t TB, n int, a, b hybrid.KEM) {
	t.Helper()
	ta, tb := kemTarget{a}, kemTarget{b}
	seed, m := make([]byte, 64), make([]byte, 32)
	for i := range n {
		rand.Read(seed)
		rand.Read(m)
		ekA, dkA, errA := ta.keyGen(seed)
		ekB, dkB, errB := tb.keyGen(seed)
		if errA != nil || errB != nil || !bytes.Equal(ekA, ekB) {
			t.Fatalf("%d: key generation differs (%v, %v)", i, errA, errB)
		}
		cA, kA, errA := ta.encaps(ekA, m)
		cB, kB, errB := tb.encaps(ekA, m)
		if errA != nil || errB != nil || !bytes.Equal(cA, cB) || !bytes.Equal(kA, kB) {
			t.Fatalf("%d: encapsulation differs (%v, %v)", i, errA, errB)
		}
		garbled := bytes.Clone(cA)
		garbled[i%len(garbled)] ^= 1 << (i % 8)
		random := make([]byte, len(cA))
		rand.Read(random)
		for _, c := range [][]byte{cA, garbled, random} {
			x, _ := ta.decaps(dkA, c)
			y, _ := tb.decaps(dkB, c)
			if !bytes.Equal(x, y) {
				t.Fatalf("%d: decapsulation differs", i)
			}
		}
		// An unreduced coefficient at a random position: both reject.
		bad := bytes.Clone(ekA)
		j := 3 * (i % ((len(bad) - 32) / 3))   // a pair of 12-bit coefficients
		bad[j], bad[j+1] = 0xff, bad[j+1]|0x0f // coefficient 0xfff
		if ta.RejectsEK(bad) != nil || tb.RejectsEK(bad) != nil {
			t.Fatalf("%d: unreduced key accepted", i)
		}
	}
}
