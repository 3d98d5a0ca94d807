package kat

import (
	"bytes"
	"crypto"
	"crypto/sha3"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/pqkex/pqkex/internal/hybrid"
	"strconv"
	"strings"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkex/pqkex/mlkem768x25519"
)

// The ML-KEM-768 files run on circl's kem/mlkem/mlkem768, the backend of
// mlkem768x25519, called with the guards the method package puts around
// it, and where a vector maps onto an SSH message also through
// mlkem768x25519 itself: its K must then be string(SHA-256(K || K_CL))
// with the vector's K and the X25519 secret of RFC 7748 section 6.1.

// RFC 7748 section 6.1: the X25519 half of the ML-KEM checks that run
// through mlkem768x25519. Our private key is Alice's, the peer's public
// key Bob's, so K_CL is the RFC's shared secret.
var (
	rfcAlicePrivate = mustHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	rfcAlicePublic  = mustHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
	rfcBobPublic    = mustHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
	rfcShared       = mustHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
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

// sshClientCheck checks that an mlkem768x25519 client holding kemKey (a
// seed or an expanded key) sends ek || Alice's public key and, if c is
// not nil, that finishing with c || Bob's public key gives the K of the
// ML-KEM key k.
func sshClientCheck(kemKey, ek, c, k []byte) error {
	cl, err := withKeys(&hybrid.MLKEM768X25519, kemKey, rfcAlicePrivate)
	if err != nil {
		return fmt.Errorf("mlkem768x25519 client: %v", err)
	}
	if ek != nil {
		if err := equal("mlkem768x25519 C_INIT", cl.Init(), cat(ek, rfcAlicePublic)); err != nil {
			return err
		}
	}
	if c == nil {
		return nil
	}
	got, err := cl.Finish(cat(c, rfcBobPublic))
	if err != nil {
		return fmt.Errorf("mlkem768x25519 client: %v", err)
	}
	return equal("mlkem768x25519 client K", got, kexK(crypto.SHA256, k, rfcShared))
}

// sshClientRejects reports whether an mlkem768x25519 client rejects
// kemKey or the reply c || Bob's public key.
func sshClientRejects(kemKey, c []byte) bool {
	cl, err := withKeys(&hybrid.MLKEM768X25519, kemKey, rfcAlicePrivate)
	if err != nil {
		return true
	}
	_, err = cl.Finish(cat(c, rfcBobPublic))
	return err != nil
}

// sshServerCheck checks that an mlkem768x25519 server answering C_INIT =
// ek || Bob's public key with randomness m sends c || Alice's public key
// and derives the K of the ML-KEM key k.
func sshServerCheck(ek, m, c, k []byte) error {
	reply, got, err := hybrid.MLKEM768X25519.RespondWithKeys(cat(ek, rfcBobPublic), m, rfcAlicePrivate)
	if err != nil {
		return fmt.Errorf("mlkem768x25519 server: %v", err)
	}
	return firstErr(equal("mlkem768x25519 S_REPLY", reply, cat(c, rfcAlicePublic)),
		equal("mlkem768x25519 server K", got, kexK(crypto.SHA256, k, rfcShared)))
}

// sshServerRejectsKey reports whether an mlkem768x25519 server rejects
// C_INIT = ek || Bob's public key because of ek.
func sshServerRejectsKey(ek []byte) error {
	_, _, err := mlkem768x25519.Respond(nil, cat(ek, rfcBobPublic))
	switch {
	case err == nil:
		return errors.New("accepted by mlkem768x25519")
	case !strings.Contains(err.Error(), "encapsulation key is invalid") && !strings.Contains(err.Error(), "C_INIT has"):
		return fmt.Errorf("mlkem768x25519 rejects for another reason: %v", err)
	}
	return nil
}

// checkKeyGen checks ML-KEM.KeyGen_internal(d, z) = (ek, dk); dk may be
// nil.
func checkKeyGen(seed, wantEK, wantDK []byte) error {
	ek, dk, _, ok := circlKeyFromSeed(seed)
	if !ok {
		return errors.New("seed rejected")
	}
	if err := equal("ek", ek, wantEK); err != nil {
		return err
	}
	if wantDK != nil {
		if err := equal("expanded dk", dk, wantDK); err != nil {
			return err
		}
		if err := sshClientCheck(wantDK, wantEK, nil, nil); err != nil {
			return fmt.Errorf("from the expanded key: %v", err)
		}
	}
	return sshClientCheck(seed, wantEK, nil, nil)
}

// checkEncaps checks ML-KEM.Encaps_internal(ek, m) = (k, c).
func checkEncaps(ek, m, wantC, wantK []byte) error {
	k, c, ok := circlEncaps(ek, m)
	if !ok {
		return errors.New("encapsulation key rejected")
	}
	if err := firstErr(equal("c", c, wantC), equal("K", k, wantK)); err != nil {
		return err
	}
	return sshServerCheck(ek, m, wantC, wantK)
}

// checkDecaps checks decapsulation of c with kemKey, a 64-byte seed or a
// 2400-byte expanded key.
func checkDecaps(kemKey, c, wantK []byte) error {
	var sk *mlkem768.PrivateKey
	var ok bool
	if len(kemKey) == mlkem768.KeySeedSize {
		_, _, sk, ok = circlKeyFromSeed(kemKey)
	} else {
		sk, ok = circlExpanded(kemKey)
	}
	if !ok {
		return errors.New("decapsulation key rejected")
	}
	k, ok := circlDecaps(sk, c)
	if !ok {
		return errors.New("ciphertext rejected")
	}
	if err := equal("K", k, wantK); err != nil {
		return err
	}
	var ek []byte // an expanded key carries ek: dk_PKE || ek || H(ek) || z
	if len(kemKey) == mlkem768.PrivateKeySize {
		ek = kemKey[1152:2336]
	}
	return sshClientCheck(kemKey, ek, c, wantK)
}

// decapsRejected checks that decapsulation of c with kemKey fails, with
// circl and through mlkem768x25519.
func decapsRejected(kemKey, c []byte) error {
	var sk *mlkem768.PrivateKey
	var ok bool
	if len(kemKey) == mlkem768.KeySeedSize {
		_, _, sk, ok = circlKeyFromSeed(kemKey)
	} else {
		sk, ok = circlExpanded(kemKey)
	}
	if ok {
		if _, ok = circlDecaps(sk, c); ok {
			return errors.New("accepted by circl")
		}
	}
	if !sshClientRejects(kemKey, c) {
		return errors.New("accepted by mlkem768x25519")
	}
	return nil
}

// RunACVPMLKEMKeyGen checks ACVP keyGen vectors: ML-KEM.KeyGen_internal(d,
// z) must give ek and the expanded dk.
func RunACVPMLKEMKeyGen(v *ACVPMLKEMKeyGen) Result {
	if v.ParameterSet != "ML-KEM-768" {
		return Result{Skipped: fmt.Sprintf("ACVP vectors for %q, which pqkex does not implement", v.ParameterSet)}
	}
	var r Result
	for _, tc := range v.Tests {
		var err error
		if len(tc.D) != 32 || len(tc.Z) != 32 {
			err = errors.New("d and z must be 32 bytes")
		} else {
			err = checkKeyGen(cat(tc.D, tc.Z), tc.EK, tc.DK)
		}
		r.record("tcId "+strconv.Itoa(tc.TcID), err)
	}
	return r
}

// RunACVPMLKEMEncapDecap checks ACVP encapDecap vectors:
// ML-KEM.Encaps_internal(ek, m) must give c and k, and decapsulating each
// c with the expanded dk must give k (the implicit-rejection key for the
// invalid ciphertexts).
func RunACVPMLKEMEncapDecap(v *ACVPMLKEMEncapDecap) Result {
	if v.ParameterSet != "ML-KEM-768" {
		return Result{Skipped: fmt.Sprintf("ACVP vectors for %q, which pqkex does not implement", v.ParameterSet)}
	}
	var r Result
	for _, tc := range v.Encapsulation.Tests {
		r.record("encapsulation tcId "+strconv.Itoa(tc.TcID), checkEncaps(tc.EK, tc.M, tc.C, tc.K))
	}
	for _, tc := range v.Decapsulation.Tests {
		r.record("decapsulation tcId "+strconv.Itoa(tc.TcID), checkDecaps(v.Decapsulation.DK, tc.C, tc.K))
	}
	return r
}

// RunWycheproofMLKEM checks a Wycheproof ML-KEM-768 file of any of the
// four bundled schemas. Valid cases must give the expected values;
// invalid ones (wrong lengths, unreduced key coefficients, a bad dk hash)
// must be rejected both by circl and by mlkem768x25519.
func RunWycheproofMLKEM(v *WycheproofMLKEM) Result {
	var r Result
	sets := map[string]bool{}
	for _, g := range v.TestGroups {
		sets[g.ParameterSet] = true
	}
	if len(sets) == 1 && !sets["ML-KEM-768"] {
		for ps := range sets {
			return Result{Skipped: fmt.Sprintf("Wycheproof vectors for %s, which pqkex does not implement", ps)}
		}
	}
	if len(sets) != 1 {
		return Result{Err: errors.New("vectors: Wycheproof file mixes parameter sets or has no test groups")}
	}
	for _, g := range v.TestGroups {
		check := wycheproofMLKEMChecks[g.Type]
		if check == nil {
			return Result{Err: fmt.Errorf("vectors: unknown Wycheproof ML-KEM test group type %q", g.Type)}
		}
		for _, tc := range g.Tests {
			var err error
			switch tc.Result {
			case "valid", "invalid":
				err = check(&tc)
			default:
				err = fmt.Errorf("result %q", tc.Result)
			}
			r.record("tcId "+strconv.Itoa(tc.TcID), err)
		}
	}
	return r
}

var wycheproofMLKEMChecks = map[string]func(tc *WycheproofMLKEMTest) error{
	// Key generation from a seed, then decapsulation; invalid cases have
	// a wrong seed or ciphertext length.
	"MLKEMTest": func(tc *WycheproofMLKEMTest) error {
		if tc.Result == "invalid" {
			return decapsRejected(tc.Seed, tc.C)
		}
		if tc.EK != nil {
			if err := checkKeyGen(tc.Seed, tc.EK, nil); err != nil {
				return err
			}
		}
		return checkDecaps(tc.Seed, tc.C, tc.K)
	},
	// Encapsulation from ek and m; invalid keys must be rejected.
	"MLKEMEncapsTest": func(tc *WycheproofMLKEMTest) error {
		if tc.Result == "valid" {
			return checkEncaps(tc.EK, tc.M, tc.C, tc.K)
		}
		if _, _, ok := circlEncaps(tc.EK, tc.M); ok {
			return errors.New("accepted by circl")
		}
		if len(tc.M) != 32 { // m is the server's own randomness, not peer input
			return nil
		}
		return sshServerRejectsKey(tc.EK)
	},
	// Key generation from a seed: ek and the expanded dk.
	"MLKEMKeyGen": func(tc *WycheproofMLKEMTest) error {
		if tc.Result == "valid" {
			return checkKeyGen(tc.Seed, tc.EK, tc.DK)
		}
		if _, _, _, ok := circlKeyFromSeed(tc.Seed); ok {
			return errors.New("accepted by circl")
		}
		if _, err := withKeys(&hybrid.MLKEM768X25519, tc.Seed, rfcAlicePrivate); err == nil {
			return errors.New("accepted by mlkem768x25519")
		}
		return nil
	},
	// Decapsulation with an expanded dk, including the FIPS 203 section
	// 7.3 checks of dk.
	"MLKEMDecapsValidationTest": func(tc *WycheproofMLKEMTest) error {
		if tc.Result == "invalid" {
			return decapsRejected(tc.DK, tc.C)
		}
		return checkDecaps(tc.DK, tc.C, tc.K)
	},
}

// RunCCTVMLKEMModulus checks CCTV's modulus keys: every ML-KEM-768
// encapsulation key has a coefficient not reduced modulo q and must be
// rejected by circl and by the mlkem768x25519 server.
func RunCCTVMLKEMModulus(keys [][]byte) Result {
	var r Result
	for i, ek := range keys {
		var err error
		if len(ek) != mlkem768.PublicKeySize {
			err = fmt.Errorf("key has %d bytes, want %d", len(ek), mlkem768.PublicKeySize)
		} else if _, _, ok := circlEncaps(ek, make([]byte, 32)); ok {
			err = errors.New("accepted by circl")
		} else {
			err = sshServerRejectsKey(ek)
		}
		r.record("key "+strconv.Itoa(i+1), err)
	}
	return r
}

// RunCCTVMLKEMCase checks one of CCTV's single ML-KEM-768 cases ("name =
// hex" fields): key generation from d and z, encapsulation of m to ek,
// and decapsulation of c, as far as the fields given allow. It is one
// vector.
func RunCCTVMLKEMCase(kv map[string][]byte) Result {
	for name, sizes := range map[string][2]int{"ek": {800, 1568}, "dk": {1632, 3168}, "c": {768, 1568}} {
		if b, ok := kv[name]; ok && (len(b) == sizes[0] || len(b) == sizes[1]) {
			return Result{Skipped: fmt.Sprintf("ML-KEM case with a %d-byte %s (ML-KEM-512 or ML-KEM-1024), which pqkex does not implement", len(b), name)}
		}
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := kv[n]; !ok {
				return false
			}
		}
		return true
	}
	var checks []func() error
	if has("d", "z") && (has("ek") || has("dk")) {
		checks = append(checks, func() error {
			if len(kv["d"]) != 32 || len(kv["z"]) != 32 {
				return errors.New("d and z must be 32 bytes")
			}
			return checkKeyGen(cat(kv["d"], kv["z"]), kv["ek"], kv["dk"])
		})
	}
	if has("ek", "m", "c", "K") {
		checks = append(checks, func() error { return checkEncaps(kv["ek"], kv["m"], kv["c"], kv["K"]) })
	}
	switch {
	case has("dk", "c", "K"):
		checks = append(checks, func() error { return checkDecaps(kv["dk"], kv["c"], kv["K"]) })
	case has("d", "z", "c", "K"):
		checks = append(checks, func() error { return checkDecaps(cat(kv["d"], kv["z"]), kv["c"], kv["K"]) })
	}
	if len(checks) == 0 {
		return Result{Err: errors.New("vectors: the case has no complete key generation, encapsulation or decapsulation")}
	}
	var err error
	for _, c := range checks {
		if err = c(); err != nil {
			break
		}
	}
	var r Result
	r.record("case", err)
	return r
}

// RunMLKEMAccumulated runs n accumulated pseudo-random tests (the recipe
// of mlkem768_accumulated.json) on circl and compares the final hash of
// each recipe that lists one for n tests ("cctv": ek, expanded dk, c, K,
// K1; "go": ek, c, K, K1). Each compared hash is one vector.
func RunMLKEMAccumulated(v *MLKEMAccumulated, n int) Result {
	return runAccumulated(v, n, nil)
}

// runAccumulated is RunMLKEMAccumulated; visit, if not nil, is called with
// every test's values.
func runAccumulated(v *MLKEMAccumulated, n int, visit func(i int, ek, c, k, k1 []byte)) Result {
	key := strconv.Itoa(n)
	var names []string
	for _, name := range []string{"cctv", "go"} {
		if _, ok := v.Recipes[name].Expected[key]; ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return Result{Err: fmt.Errorf("vectors: no recipe has a hash for %d tests", n)}
	}
	cctv, goSum, err := accumulate(n, visit)
	sums := map[string][]byte{"cctv": cctv[:], "go": goSum[:]}
	var r Result
	for _, name := range names {
		want, herr := hex.DecodeString(v.Recipes[name].Expected[key])
		e := err
		if e == nil && herr != nil {
			e = fmt.Errorf("expected hash: %v", herr)
		}
		if e == nil {
			e = equal("accumulated hash", sums[name], want)
		}
		r.record(fmt.Sprintf("recipe %s, %d tests", name, n), e)
	}
	return r
}

// accumulate runs the accumulated tests: per test, 64 bytes of seed, 32
// of m and 1088 of a random ciphertext c1 from one SHAKE-128 of the empty
// string; it returns the first 32 bytes of the two accumulators.
func accumulate(n int, visit func(i int, ek, c, k, k1 []byte)) (cctv, goSum [32]byte, err error) {
	rng, accCCTV, accGo := sha3.NewSHAKE128(), sha3.NewSHAKE128(), sha3.NewSHAKE128()
	seed, m, c1 := make([]byte, 64), make([]byte, 32), make([]byte, 1088)
	for i := range n {
		rng.Read(seed)
		rng.Read(m)
		rng.Read(c1)
		ek, dk, sk, _ := circlKeyFromSeed(seed)
		k, c, ok := circlEncaps(ek, m)
		if !ok {
			return cctv, goSum, fmt.Errorf("test %d: circl rejects its own encapsulation key", i)
		}
		kk, _ := circlDecaps(sk, c)
		k1, _ := circlDecaps(sk, c1)
		if !bytes.Equal(kk, k) {
			return cctv, goSum, fmt.Errorf("test %d: decapsulation does not invert encapsulation", i)
		}
		for _, b := range [][]byte{ek, dk, c, k, k1} {
			accCCTV.Write(b)
		}
		for _, b := range [][]byte{ek, c, k, k1} {
			accGo.Write(b)
		}
		if visit != nil {
			visit(i, ek, c, k, k1)
		}
	}
	accCCTV.Read(cctv[:])
	accGo.Read(goSum[:])
	return cctv, goSum, nil
}
