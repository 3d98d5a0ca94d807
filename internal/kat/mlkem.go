package kat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/sha3"
	"encoding/hex"
	"encoding/json"
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

// acvpMLKEM is an ACVP ML-KEM vector set, prompt joined with the expected
// results: keyGen tests ML-KEM.KeyGen_internal(d, z) = (ek, dk), dk in
// its expanded form (2400 bytes for ML-KEM-768, 3168 for ML-KEM-1024);
// encapDecap tests ML-KEM.Encaps_internal(ek, m) = (k, c), and
// decapsulation tests of one expanded dk.
type acvpMLKEM struct {
	ParameterSet  string     `json:"parameterSet"`
	Tests         []acvpTest `json:"tests"` // keyGen
	Encapsulation struct {
		Tests []acvpTest `json:"tests"`
	} `json:"encapsulation"`
	Decapsulation struct {
		DK    Hex        `json:"dk"`
		Tests []acvpTest `json:"tests"`
	} `json:"decapsulation"`
}

type acvpTest struct {
	TcID                  int `json:"tcId"`
	D, Z, EK, DK, M, C, K Hex
}

// wycheproofFile is a Wycheproof file: one of the four ML-KEM schemas
// (MLKEMTest, MLKEMEncapsTest, MLKEMKeyGen, MLKEMDecapsValidationTest),
// XDH or ECDH (dh.go). A field that a file does not have is nil.
type wycheproofFile struct {
	TestGroups []struct {
		Type         string           `json:"type"`
		ParameterSet string           `json:"parameterSet"`
		Curve        string           `json:"curve"`
		Encoding     string           `json:"encoding"` // ECDH: "ecpoint" or "asn"
		Tests        []wycheproofTest `json:"tests"`
	} `json:"testGroups"`
}

// wycheproofTest is one Wycheproof test case: Seed is d || z, DK an
// expanded decapsulation key, Public the peer's key (raw, SEC1 or DER by
// the file's encoding); Result is "valid", "invalid" or "acceptable".
type wycheproofTest struct {
	TcID                    int `json:"tcId"`
	Comment, Result         string
	Flags                   []string
	Seed, EK, DK, M, C, K   Hex
	Public, Private, Shared Hex
}

// MLKEMAccumulated holds the recipes of mlkem768_accumulated.json: for
// each recipe ("cctv", "go") the expected hashes by number of tests.
type MLKEMAccumulated struct {
	Recipes map[string]struct {
		AbsorbedPerTest []string          `json:"absorbed_per_test"`
		Expected        map[string]string `json:"expected"`
	} `json:"recipes"`
}

// mustJSON decodes a JSON vector file or ends the run.
func mustJSON(t TB, name string, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// Target is one way to run an ML-KEM file's values. Each check returns an
// error for an output that differs from want or for rejected input; the
// runners decide from the case's verdict which of the two is right.
type Target interface {
	Label() string
	Params() string // "ML-KEM-768" or "ML-KEM-1024"
	// Expanded says whether key may be an expanded decapsulation key.
	Expanded() bool
	// KeyGen checks KeyGen_internal(seed) = ek (and the expanded dk, if
	// want and the target has it).
	KeyGen(seed, wantEK, wantDK []byte) error
	// Encaps checks Encaps_internal(ek, m) = (c, K).
	Encaps(ek, m, wantC, wantK []byte) error
	// Decaps checks that decapsulating c with key (a 64-byte seed or, if
	// Expanded, an expanded key) gives K.
	Decaps(key, c, wantK []byte) error
	// RejectsEK checks that an (unreduced) encapsulation key is refused.
	RejectsEK(ek []byte) error
}

// KEMTarget runs an ML-KEM implementation alone.
func KEMTarget(k hybrid.KEM) Target { return kemTarget{k} }

type kemTarget struct{ k hybrid.KEM }

func (t kemTarget) Label() string  { return t.k.Impl() + " " + t.k.Name() }
func (t kemTarget) Params() string { return t.k.Name() }
func (t kemTarget) Expanded() bool { _, ok := t.k.(hybrid.ExpandedKEM); return ok }

func (t kemTarget) keyGen(seed []byte) (ek []byte, dk hybrid.DecapsulationKey, err error) {
	if len(seed) != 64 {
		return nil, nil, fmt.Errorf("seed has %d bytes", len(seed))
	}
	dk, err = t.k.NewDecapsulationKey(seed)
	if err != nil {
		return nil, nil, err
	}
	ek = make([]byte, t.k.EncapsulationKeySize())
	dk.EncapsulationKey(ek)
	return ek, dk, nil
}

func (t kemTarget) encaps(ek, m []byte) (c, key []byte, err error) {
	e, err := t.k.ParseEncapsulationKey(ek)
	if err != nil {
		return nil, nil, err
	}
	if len(m) != 32 {
		return nil, nil, fmt.Errorf("m has %d bytes", len(m))
	}
	c, key = make([]byte, t.k.CiphertextSize()), make([]byte, 32)
	return c, key, e.Encapsulate(c, key, m)
}

func (t kemTarget) decaps(dk hybrid.DecapsulationKey, c []byte) ([]byte, error) {
	if len(c) != t.k.CiphertextSize() {
		return nil, fmt.Errorf("ciphertext has %d bytes", len(c))
	}
	key := make([]byte, 32)
	dk.Decapsulate(key, c)
	return key, nil
}

func (t kemTarget) KeyGen(seed, wantEK, wantDK []byte) error {
	ek, dk, err := t.keyGen(seed)
	if err != nil {
		return err
	}
	if !bytes.Equal(ek, wantEK) {
		return errors.New("ek differs")
	}
	if x, ok := t.k.(hybrid.ExpandedKEM); ok && wantDK != nil && !bytes.Equal(x.Expanded(dk), wantDK) {
		return errors.New("expanded dk differs")
	}
	return nil
}

func (t kemTarget) Encaps(ek, m, wantC, wantK []byte) error {
	c, key, err := t.encaps(ek, m)
	if err != nil {
		return err
	}
	if !bytes.Equal(c, wantC) || !bytes.Equal(key, wantK) {
		return errors.New("c or K differs")
	}
	return nil
}

func (t kemTarget) Decaps(key, c, wantK []byte) error {
	var dk hybrid.DecapsulationKey
	var err error
	if x, ok := t.k.(hybrid.ExpandedKEM); ok && len(key) != 64 {
		if len(key) != x.ExpandedSize() {
			return fmt.Errorf("expanded key has %d bytes", len(key))
		}
		dk, err = x.LoadExpanded(key)
	} else {
		_, dk, err = t.keyGen(key)
	}
	if err != nil {
		return err
	}
	got, err := t.decaps(dk, c)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, wantK) {
		return errors.New("the shared key K differs")
	}
	return nil
}

func (t kemTarget) RejectsEK(ek []byte) error {
	if len(ek) != t.k.EncapsulationKeySize() {
		return fmt.Errorf("%d-byte key", len(ek))
	}
	if _, err := t.k.ParseEncapsulationKey(ek); err == nil {
		return errors.New("unreduced key accepted")
	}
	return nil
}

// SSHTarget runs the ML-KEM values through a hybrid method's SSH messages
// (its explicit-key constructors), with a fixed classical key pair: ours
// (the client's or the server's) and the peer's public key. For X25519
// these are RFC 7748 section 6.1's (ours Alice's, the peer's Bob's), so
// K_CL is the RFC's shared secret.
func SSHTarget(ex Exchange) Target {
	f := classicalFixture(ex.Method.Curve)
	return sshTarget{ex, f}
}

type sshTarget struct {
	ex Exchange
	f  fixture
}

type fixture struct{ priv, pub, peer, shared []byte }

func classicalFixture(curve hybrid.Curve) fixture {
	if curve.Name() == "X25519" {
		return fixture{
			priv:   mustHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
			pub:    mustHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
			peer:   mustHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"),
			shared: mustHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"),
		}
	}
	// Two fixed scalars (every byte 1, every byte 2) through crypto/ecdh.
	cu := oracleCurves[curve.Name()]
	key := func(b byte) *ecdh.PrivateKey {
		k, err := cu.NewPrivateKey(bytes.Repeat([]byte{b}, curve.PrivateKeySize()))
		if err != nil {
			panic(err)
		}
		return k
	}
	ours, peer := key(1), key(2)
	shared, err := ours.ECDH(peer.PublicKey())
	if err != nil {
		panic(err)
	}
	return fixture{ours.Bytes(), ours.PublicKey().Bytes(), peer.PublicKey().Bytes(), shared}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func (t sshTarget) Label() string  { return t.ex.Label + " " + t.ex.Name }
func (t sshTarget) Params() string { return t.ex.Method.Backend().Name() }
func (t sshTarget) Expanded() bool { return t.ex.Method.Expanded != nil }

func (t sshTarget) KeyGen(seed, wantEK, wantDK []byte) error {
	keys := [][]byte{seed}
	if wantDK != nil && t.Expanded() {
		keys = append(keys, wantDK)
	}
	for _, key := range keys {
		c, err := t.ex.NewClientWithKeys(key, t.f.priv)
		if err != nil {
			return err
		}
		if !bytes.Equal(c.Init(), cat(wantEK, t.f.pub)) {
			return errors.New("C_INIT is not ek || our public key")
		}
	}
	return nil
}

// errUnnamed marks a rejection whose error does not say what was wrong.
var errUnnamed = errors.New("the error names neither the client's value nor m")

func (t sshTarget) Encaps(ek, m, wantC, wantK []byte) error {
	reply, k, err := t.ex.RespondWithKeys(cat(ek, t.f.peer), m, t.f.priv)
	if err != nil && !strings.Contains(err.Error(), "client's ") && !strings.Contains(err.Error(), ": m has ") {
		return fmt.Errorf("%w: %v", errUnnamed, err)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(reply, cat(wantC, t.f.pub)) || !bytes.Equal(k, kexK(t.ex.Method.Hash, wantK, t.f.shared)) {
		return errors.New("S_REPLY is not c || our public key, or K is not string(HASH(K || K_CL))")
	}
	return nil
}

func (t sshTarget) Decaps(key, c, wantK []byte) error {
	cl, err := t.ex.NewClientWithKeys(key, t.f.priv)
	if err != nil {
		return err
	}
	k, err := cl.Finish(cat(c, t.f.peer))
	if err != nil {
		return err
	}
	if !bytes.Equal(k, kexK(t.ex.Method.Hash, wantK, t.f.shared)) {
		return errors.New("the client's K is not string(HASH(K || K_CL))")
	}
	return nil
}

func (t sshTarget) RejectsEK(ek []byte) error {
	_, _, err := t.ex.Respond(nil, cat(ek, t.f.peer))
	if err == nil || !strings.Contains(err.Error(), "client's ML-KEM") {
		return fmt.Errorf("respond: %v", err)
	}
	return nil
}

// Targets returns every KEM implementation and every Exchange whose KEM
// has the parameter set params as Targets.
func Targets(params hybrid.Params, exs ...Exchange) []Target {
	ts := []Target{KEMTarget(hybrid.Circl(params)), KEMTarget(hybrid.Std(params))}
	for _, ex := range exs {
		ts = append(ts, SSHTarget(ex))
	}
	return ts
}

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
