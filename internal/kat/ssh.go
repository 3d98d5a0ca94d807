package kat

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/mlkem"
	"crypto/sha3"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// The SSH vector files (*_openssh.json, *_putty.json; see
// vectors/testdata/README.md), one format for the four methods. Their
// curve fields are named after the curve (client_x25519_private,
// p256_shared_secret, ...), so fields are read by name.

// RandomCall is one call to the random generator made while the vector
// was generated: its purpose, length and the bytes it returned.
type RandomCall struct {
	Purpose string `json:"purpose"`
	Len     int    `json:"len"`
	Hex     Hex    `json:"hex"`
}

// Hex is a byte string that appears in JSON vector files as hexadecimal.
type Hex []byte

// UnmarshalJSON decodes a JSON string of hex digits.
func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := hex.DecodeString(s)
	*h = d
	return err
}

// sshFile is an SSH vector file.
type sshFile struct {
	Algorithm  string                       `json:"algorithm"`
	Transcript map[string]string            `json:"transcript"`
	Tests      []map[string]json.RawMessage `json:"tests"`
	Edge       []map[string]json.RawMessage `json:"invalid_and_edge_tests"`
}

// fields reads one test's fields; a missing or malformed field ends the
// vector (Fatalf), so a damaged file fails its case, never panics.
type fields struct {
	tb TB
	m  map[string]json.RawMessage
	id string
}

func (f fields) has(k string) bool { _, ok := f.m[k]; return ok }

func (f fields) str(k string) string {
	f.tb.Helper()
	var s string
	if err := json.Unmarshal(f.m[k], &s); err != nil {
		f.tb.Fatalf("%s: field %s: %v", f.id, k, err)
	}
	return s
}

func (f fields) hex(k string) []byte {
	f.tb.Helper()
	b, err := hex.DecodeString(f.str(k))
	if err != nil {
		f.tb.Fatalf("%s: field %s: %v", f.id, k, err)
	}
	return b
}

// calls returns the recorded random calls of k split into the KEM's and
// the curve's (purpose starting with the curve's field prefix cf), each
// call's bytes one slice.
func (f fields) calls(k, cf string) (kem, curve [][]byte) {
	f.tb.Helper()
	var cs []RandomCall
	if err := json.Unmarshal(f.m[k], &cs); err != nil {
		f.tb.Fatalf("%s: field %s: %v", f.id, k, err)
	}
	for _, c := range cs {
		if len(c.Hex) != c.Len {
			f.tb.Fatalf("%s: %s call %s: %d bytes, listed as %d", f.id, k, c.Purpose, len(c.Hex), c.Len)
		}
		if strings.HasPrefix(c.Purpose, cf+"_") {
			curve = append(curve, c.Hex)
		} else {
			kem = append(kem, c.Hex)
		}
	}
	if len(kem) == 0 || len(curve) == 0 {
		f.tb.Fatalf("%s: %s has no KEM or no %s calls", f.id, k, cf)
	}
	return kem, curve
}

// curveField is the vector files' field prefix for a curve.
var curveField = map[string]string{"X25519": "x25519", "P-256": "p256", "P-384": "p384"}

// oracleCurves are crypto/ecdh's curves, the independent check of the
// files' classical values.
var oracleCurves = map[string]ecdh.Curve{"X25519": ecdh.X25519(), "P-256": ecdh.P256(), "P-384": ecdh.P384()}

// RunSSHFile checks every test of an SSH vector file (name, its bytes
// data) against each Exchange. Exchanges: the client and server read the
// recorded random calls (each Read exactly one call, all consumed) and
// must give Q_C, Q_S and K byte for byte, and a second Finish must fail;
// K must be string(HASH(K_PQ || K_CL)) of the file's intermediate
// values, which crypto/ecdh and the exchange's KEM alone reproduce; the
// explicit-key constructors must give the same; H, the six derived keys
// (and their prefixes), the Ed25519 signature and both payloads must
// match. Edge cases are judged by their strict `result` (`putty_result`
// is ignored): rejects must fail with an error naming the peer's side and
// what is wrong (length, encapsulation key or point, classified from the
// input with crypto/mlkem, not pqkex), holding no input bytes; accepts
// must give the listed K, or for an X25519 key with bit 255 set the RFC
// 7748 value (K_ssh_string_if_bit255_masked), which OpenSSH does not
// give. It returns the number of cases run (one per test and Exchange).
func RunSSHFile(t TB, name string, data []byte, exs ...Exchange) int {
	t.Helper()
	var f sshFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(f.Tests) == 0 || len(f.Edge) == 0 {
		t.Fatalf("%s: no tests", name)
	}
	host, err := sshHostKey(f.Transcript)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n := 0
	for _, ex := range exs {
		if f.Algorithm != ex.Name {
			t.Fatalf("%s is for %q, not %q", name, f.Algorithm, ex.Name)
		}
		for _, raw := range f.Tests {
			each(t, func() { runPositive(t, ex, host, f.Transcript, fields{t, raw, ""}) })
			n++
		}
		for _, raw := range f.Edge {
			each(t, func() { runEdge(t, ex, fields{t, raw, ""}) })
			n++
		}
	}
	return n
}

// sshHostKey checks the transcript's host key (seed, public key and K_S
// blob agree) and returns the private key.
func sshHostKey(tr map[string]string) (ed25519.PrivateKey, error) {
	seed, err1 := hex.DecodeString(tr["host_key_ed25519_seed"])
	pub, err2 := hex.DecodeString(tr["host_key_ed25519_public"])
	ks, err3 := hex.DecodeString(tr["K_S"])
	if err := errors.Join(err1, err2, err3); err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("transcript: bad host key seed, public key or K_S")
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !bytes.Equal(priv.Public().(ed25519.PublicKey), pub) ||
		!bytes.Equal(ks, sshString(sshString(nil, []byte("ssh-ed25519")), pub)) {
		return nil, errors.New("transcript: host key seed, public key and K_S differ")
	}
	return priv, nil
}

func tcID(m map[string]json.RawMessage) string { return "tcId " + string(m["tcId"]) }

func runPositive(t TB, ex Exchange, host ed25519.PrivateKey, tr map[string]string, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m)
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(f.id+": "+format, args...) }
	m, kem, cu := ex.Method, ex.Method.Backend(), ex.Method.Curve
	cf := curveField[cu.Name()]
	cKEM, cCurve := f.calls("client_random_calls", cf)
	sKEM, sCurve := f.calls("server_random_calls", cf)
	qc, qs, kWant := f.hex("Q_C"), f.hex("Q_S"), f.hex("K_ssh_string")
	if len(qc) != m.ClientInitSize() || len(qs) != m.ServerReplySize() || len(kWant) < 4 {
		t.Fatalf("%s: Q_C, Q_S or K has the wrong length", f.id)
	}

	if ex.IgnoresReader {
		ignoredReaders(t, ex, f.id, bytes.Join(append(cKEM, cCurve...), nil), bytes.Join(append(sKEM, sCurve...), nil))
	} else {
		readerExchange(t, ex, f.id, append(cKEM, cCurve...), append(sKEM, sCurve...), qc, qs, kWant)
	}
	ekSize := kem.EncapsulationKeySize()
	if !bytes.Equal(qc, cat(f.hex("client_kem_public_key"), f.hex("client_"+cf+"_public"))) ||
		!bytes.Equal(qs, cat(f.hex("kem_ciphertext"), f.hex("server_"+cf+"_public"))) {
		fail("file: Q_C is not ek || client point, or Q_S not ct || server point")
	}
	if !bytes.Equal(f.hex("kex_ecdh_init_payload"), sshString([]byte{30}, qc)) {
		fail("INIT payload is not 30 || string(Q_C)")
	}

	// K from the file's intermediate values, which crypto/ecdh and the KEM
	// alone must reproduce.
	kpq, kcl := f.hex("kem_shared_secret"), f.hex(cf+"_shared_secret")
	if len(kcl) != cu.SecretSize() {
		fail("K_CL has %d bytes", len(kcl))
	}
	if !bytes.Equal(f.hex("shared_secret_hash_input"), cat(kpq, kcl)) ||
		!bytes.Equal(kexK(m.Hash, kpq, kcl), kWant) || !bytes.Equal(kWant[4:], f.hex("shared_secret_hash")) {
		fail("K is not string(HASH(K_PQ || K_CL)) of the listed values")
	}
	cPriv, sPriv := f.hex("client_"+cf+"_private"), f.hex("server_"+cf+"_private")
	if !bytes.Equal(cPriv, cCurve[len(cCurve)-1]) || !bytes.Equal(sPriv, sCurve[len(sCurve)-1]) {
		fail("the private keys are not the last recorded curve calls")
	}
	if err := oracleECDH(cu.Name(), cPriv, qs[len(qs)-cu.PublicKeySize():], kcl); err != nil {
		fail("client %v", err)
	}
	if err := oracleECDH(cu.Name(), sPriv, qc[ekSize:], kcl); err != nil {
		fail("server %v", err)
	}
	if err := kemAlone(kem, cKEM, bytes.Join(sKEM, nil), f.hex("client_kem_private_key"), qc[:ekSize], f.hex("kem_ciphertext"), kpq); err != nil {
		fail("%s %s alone: %v", kem.Impl(), kem.Name(), err)
	}

	// The explicit-key constructors from the recorded secrets.
	kemKey, err := explicitKEMKey(kem, &callReader{cKEM})
	if err != nil {
		t.Fatalf("%s: KEM key from the recorded calls: %v", f.id, err)
	}
	if c2, err := ex.NewClientWithKeys(kemKey, cPriv); err != nil {
		fail("NewClientWithKeys: %v", err)
	} else if !bytes.Equal(c2.Init(), qc) {
		fail("NewClientWithKeys: C_INIT differs")
	} else if k2, err := c2.Finish(qs); err != nil || !bytes.Equal(k2, kWant) {
		fail("NewClientWithKeys: K differs (%v)", err)
	}
	if r2, k2, err := ex.RespondWithKeys(qc, bytes.Join(sKEM, nil), sPriv); err != nil ||
		!bytes.Equal(r2, qs) || !bytes.Equal(k2, kWant) {
		fail("RespondWithKeys differs (%v)", err)
	}

	// Transcript: H, keys, signature, reply payload.
	tx := func(k string) []byte {
		b, err := hex.DecodeString(tr[k])
		if err != nil {
			t.Fatalf("transcript %s: %v", k, err)
		}
		return b
	}
	ks := tx("K_S")
	H := kexhash.ExchangeHash(m.Hash, []byte(tr["V_C"]), []byte(tr["V_S"]), tx("I_C"), tx("I_S"), ks, qc, qs, kWant)
	if !bytes.Equal(H, f.hex("exchange_hash_H")) {
		fail("exchange hash differs")
	}
	var dk map[string]Hex
	if err := json.Unmarshal(f.m["derived_keys_128_bytes"], &dk); err != nil || len(dk) != 6 {
		t.Fatalf("%s: derived_keys_128_bytes: %v", f.id, err)
	}
	for _, l := range []byte("ABCDEF") {
		for _, n := range []int{16, 32, 64, 100, 128} {
			if len(dk[string(l)]) != 128 || !bytes.Equal(kexhash.DeriveKey(m.Hash, kWant, H, H, l, n), dk[string(l)][:n]) {
				fail("derived key %c (%d bytes) differs", l, n)
			}
		}
	}
	sig := ed25519.Sign(host, H) // deterministic: the file's must be this
	blob := sshString(sshString(nil, []byte("ssh-ed25519")), sig)
	if !bytes.Equal(blob, f.hex("host_key_signature_blob")) || !ed25519.Verify(host.Public().(ed25519.PublicKey), H, sig) {
		fail("signature blob differs")
	}
	if !bytes.Equal(sshString(sshString(sshString([]byte{31}, ks), qs), blob), f.hex("kex_ecdh_reply_payload")) {
		fail("REPLY payload differs")
	}
}

// readerExchange checks the exchange from the recorded random calls, each
// read by one Read and all consumed: C_INIT, S_REPLY and both Ks byte for
// byte, and that a second Finish fails.
func readerExchange(t TB, ex Exchange, id string, cCalls, sCalls [][]byte, qc, qs, kWant []byte) {
	t.Helper()
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(id+": "+format, args...) }
	cr := &callReader{cCalls}
	c, err := ex.NewClient(cr)
	if err != nil {
		t.Fatalf("%s: NewClient: %v", id, err)
	}
	if len(cr.calls) != 0 {
		fail("NewClient left %d recorded client random calls unused", len(cr.calls))
	}
	if !bytes.Equal(c.Init(), qc) {
		fail("C_INIT differs from Q_C")
	}
	sr := &callReader{sCalls}
	reply, kS, err := ex.Respond(sr, qc)
	if err != nil {
		t.Fatalf("%s: Respond: %v", id, err)
	}
	if len(sr.calls) != 0 {
		fail("Respond left %d recorded server random calls unused", len(sr.calls))
	}
	if !bytes.Equal(reply, qs) || !bytes.Equal(kS, kWant) {
		fail("S_REPLY differs from Q_S, or the server's K differs")
	}
	if kC, err := c.Finish(qs); err != nil || !bytes.Equal(kC, kWant) {
		fail("client K differs (err %v)", err)
	}
	if _, err := c.Finish(qs); err == nil {
		fail("a second Finish succeeded")
	}
}

// ignoredReaders checks an Exchange that ignores the caller's reader (a
// NIST-curve hybrid in FIPS 140-3 mode): NewClient and Respond leave the
// recorded streams unread, their keys are fresh (C_INIT differs from what
// the streams give), and the two sides agree on K. The byte-exact checks
// run through the explicit-key constructors.
func ignoredReaders(t TB, ex Exchange, id string, cStream, sStream []byte) {
	t.Helper()
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(id+": "+format, args...) }
	cr, sr := bytes.NewReader(cStream), bytes.NewReader(sStream)
	c, err := ex.NewClient(cr)
	if err != nil {
		t.Fatalf("%s: NewClient: %v", id, err)
	}
	reply, kS, err := ex.Respond(sr, c.Init())
	if err != nil {
		t.Fatalf("%s: Respond: %v", id, err)
	}
	if cr.Len() != len(cStream) || sr.Len() != len(sStream) {
		fail("the caller's reader was read (%d client, %d server bytes)", len(cStream)-cr.Len(), len(sStream)-sr.Len())
	}
	c2, err := ex.NewClient(bytes.NewReader(cStream))
	if err != nil {
		t.Fatalf("%s: NewClient: %v", id, err)
	}
	if bytes.Equal(c.Init(), c2.Init()) {
		fail("two clients from the same stream have the same C_INIT")
	}
	if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		fail("client and server K differ (err %v)", err)
	}
}

// oracleECDH checks with crypto/ecdh that priv's shared secret with peer
// is want.
func oracleECDH(curve string, priv, peer, want []byte) error {
	if s, err := oracleShared(curve, priv, peer); err != nil || !bytes.Equal(s, want) {
		return errors.New("crypto/ecdh shared secret differs")
	}
	return nil
}

// oracleShared is crypto/ecdh's shared secret of priv and peer.
func oracleShared(curve string, priv, peer []byte) ([]byte, error) {
	cu := oracleCurves[curve]
	k, err := cu.NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	p, err := cu.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return k.ECDH(p)
}

// kemAlone checks the KEM half of an exchange with the KEM alone: key
// generation from the recorded calls gives ek, the file's private key
// (expanded ML-KEM key where the implementation loads one; sntrup761's
// encoding) has the same ek, encapsulation with the server's m gives ct
// and the key, and decapsulation of ct gives the key. The file's values
// are checked for length first: the KEM's Decapsulate and Encapsulate
// take only the right sizes.
func kemAlone(k hybrid.KEM, calls [][]byte, m, filePriv, wantEK, wantCT, wantK []byte) error {
	switch {
	case len(wantEK) != k.EncapsulationKeySize():
		return fmt.Errorf("client_kem_public_key has %d bytes, want %d", len(wantEK), k.EncapsulationKeySize())
	case len(wantCT) != k.CiphertextSize():
		return fmt.Errorf("kem_ciphertext has %d bytes, want %d", len(wantCT), k.CiphertextSize())
	case len(m) != k.RandomnessSize():
		return fmt.Errorf("the server's KEM random calls hold %d bytes, want %d", len(m), k.RandomnessSize())
	}
	r := &callReader{calls}
	dk, err := k.GenerateKey(r)
	if err != nil || len(r.calls) != 0 {
		return errors.New("key generation failed or left recorded calls unused")
	}
	keys := []hybrid.DecapsulationKey{dk}
	if x, ok := k.(hybrid.ExpandedKEM); ok {
		if !bytes.Equal(x.Expanded(dk), filePriv) {
			return errors.New("expanded decapsulation key differs")
		}
	} else if k.Name() == "sntrup761" {
		d2, err := k.NewDecapsulationKey(filePriv)
		if err != nil {
			return err
		}
		keys = append(keys, d2)
	}
	for _, d := range keys {
		ek, got := make([]byte, len(wantEK)), make([]byte, 32)
		d.EncapsulationKey(ek)
		d.Decapsulate(got, wantCT)
		if !bytes.Equal(ek, wantEK) || !bytes.Equal(got, wantK) {
			return errors.New("encapsulation key or decapsulated key differs")
		}
	}
	e, err := k.ParseEncapsulationKey(wantEK)
	if err != nil {
		return err
	}
	ct, key := make([]byte, len(wantCT)), make([]byte, 32)
	if err := e.Encapsulate(ct, key, m); err != nil || !bytes.Equal(ct, wantCT) || !bytes.Equal(key, wantK) {
		return errors.New("encapsulation differs")
	}
	return nil
}

// edgeKind classifies an SSH edge case by what is wrong with the peer's
// input, from the input itself and crypto/mlkem (not pqkex's code):
// "length", "ek" (an ML-KEM encapsulation key crypto/mlkem rejects) or
// "point".
func edgeKind(m *hybrid.Method, role string, qc, qs []byte) string {
	switch {
	case role == "server" && len(qc) != m.ClientInitSize(), role == "client" && len(qs) != m.ServerReplySize():
		return "length"
	case role == "server" && m.Backend().Name() == "ML-KEM-768":
		if _, err := mlkem.NewEncapsulationKey768(qc[:mlkem.EncapsulationKeySize768]); err != nil {
			return "ek"
		}
	case role == "server" && m.Backend().Name() == "ML-KEM-1024":
		if _, err := mlkem.NewEncapsulationKey1024(qc[:mlkem.EncapsulationKeySize1024]); err != nil {
			return "ek"
		}
	}
	return "point"
}

// edgeError is what the error of a rejected edge case must say.
func edgeError(m *hybrid.Method, kem hybrid.KEM, role, kind string) string {
	peer := map[string]string{"server": "client's ", "client": "server's "}[role]
	switch kind {
	case "length":
		return peer + map[string]string{"server": "C_INIT has ", "client": "S_REPLY has "}[role]
	case "ek":
		return peer + kem.Name() + " encapsulation key is invalid"
	}
	if m.Curve.Name() == "X25519" {
		return peer + "X25519 public key is a low-order point"
	}
	return peer + m.Curve.Name() + " public key "
}

func runEdge(t TB, ex Exchange, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m) + " (" + f.str("comment") + ")"
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(f.id+": "+format, args...) }
	m, kem := ex.Method, ex.Method.Backend()
	cf := curveField[m.Curve.Name()]
	result, role := f.str("result"), f.str("role")
	if result != "accept" && result != "reject" {
		t.Fatalf("%s: result %q", f.id, result)
	}
	qc := f.hex("Q_C")
	var qs []byte
	if f.has("Q_S") {
		qs = f.hex("Q_S")
	}
	var k, reply, kemKey []byte
	var err error
	switch role {
	case "server":
		reply, k, err = ex.Respond(shakeStream(f.str("server_stream")), qc)
		s := Stream(f.str("server_stream"), kem.RandomnessSize()+m.Curve.PrivateKeySize())
		if f.has("server_"+cf+"_private") && !bytes.Equal(s[kem.RandomnessSize():], f.hex("server_"+cf+"_private")) {
			fail("the server stream does not give the recorded private key")
		}
		if ex.IgnoresReader {
			// The verdict is the ignored-reader path's; S_REPLY and K come
			// from the explicit-key constructor on the stream.
			var err2 error
			reply, k, err2 = ex.RespondWithKeys(qc, s[:kem.RandomnessSize()], s[kem.RandomnessSize():])
			if (err == nil) != (err2 == nil) {
				fail("Respond and RespondWithKeys disagree: %v, %v", err, err2)
			}
		}
		if err == nil && qs != nil && !bytes.Equal(reply, qs) {
			fail("S_REPLY differs")
		}
	case "client":
		cPriv := f.hex("client_" + cf + "_private")
		var err2 error
		if kemKey, err2 = explicitKEMKey(kem, shakeStream(f.str("client_stream"))); err2 != nil {
			t.Fatalf("%s: KEM key from the client stream: %v", f.id, err2)
		}
		c2, err2 := ex.NewClientWithKeys(kemKey, cPriv)
		if err2 != nil {
			t.Fatalf("%s: NewClientWithKeys: %v", f.id, err2)
		}
		c, err2 := ex.NewClient(shakeStream(f.str("client_stream")))
		if err2 != nil {
			t.Fatalf("%s: NewClient: %v", f.id, err2)
		}
		if !ex.IgnoresReader && !bytes.Equal(c.Init(), qc) || !bytes.Equal(c2.Init(), qc) {
			fail("C_INIT from the client stream or the recorded keys differs from Q_C")
		}
		k, err = c2.Finish(qs)
		if k2, err2 := c.Finish(qs); (err == nil) != (err2 == nil) || !ex.IgnoresReader && !bytes.Equal(k, k2) {
			fail("the stream's client and the recorded keys' give different outcomes: %v, %v", err, err2)
		}
	default:
		t.Fatalf("%s: role %q", f.id, role)
	}

	if result == "reject" {
		if err == nil {
			fail("accepted, want reject")
			return
		}
		msg := err.Error()
		if want := edgeError(m, kem, role, edgeKind(m, role, qc, qs)); !strings.Contains(msg, want) {
			fail("rejected with %q, want it to say %q", msg, want)
		}
		for _, v := range [][]byte{qc, qs} {
			for i := 0; i+8 <= len(v); i += 8 {
				if strings.Contains(msg, hex.EncodeToString(v[i:i+8])) {
					fail("error %q contains input bytes", msg)
					return
				}
			}
		}
		return
	}
	if err != nil {
		fail("rejected (%v), want accept", err)
		return
	}
	kpq, want := f.hex("kem_shared_secret"), f.hex("K_ssh_string")
	var kcl []byte
	if f.has(cf + "_shared_secret") {
		kcl = f.hex(cf + "_shared_secret")
	} else if role == "client" {
		// A modified ciphertext: the KEM alone decapsulates it (implicit
		// rejection) to the listed key, crypto/ecdh gives K_CL.
		dk, err := kem.NewDecapsulationKey(kemKey)
		if err != nil || len(qs) != m.ServerReplySize() {
			t.Fatalf("%s: KEM key (%v) or Q_S length", f.id, err)
		}
		got := make([]byte, 32)
		dk.Decapsulate(got, qs[:kem.CiphertextSize()])
		if !bytes.Equal(got, kpq) {
			fail("the KEM alone does not decapsulate to kem_shared_secret")
		}
		if kcl, err = oracleShared(m.Curve.Name(), f.hex("client_"+cf+"_private"), qs[kem.CiphertextSize():]); err != nil {
			fail("crypto/ecdh: %v", err)
		}
	}
	if f.has("K_ssh_string_if_bit255_masked") {
		// A peer X25519 key with bit 255 set: pqkex follows RFC 7748 (the
		// bit is ignored, as crypto/ecdh does), OpenSSH does not.
		kcl, want = f.hex("x25519_shared_secret_if_bit255_masked"), f.hex("K_ssh_string_if_bit255_masked")
		peer, priv := qs[len(qs)-32:], f.hex("client_x25519_private")
		if role == "server" {
			peer, priv = qc[len(qc)-32:], Stream(f.str("server_stream"), kem.RandomnessSize()+32)[kem.RandomnessSize():]
		}
		if peer[31]&0x80 == 0 || bytes.Equal(want, f.hex("K_ssh_string")) {
			fail("the vector does not show a bit-255 difference")
		}
		if err := oracleECDH("X25519", priv, peer, kcl); err != nil {
			fail("%v", err)
		}
	}
	if !bytes.Equal(k, want) || !bytes.Equal(kexK(m.Hash, kpq, kcl), k) {
		fail("K differs, or is not string(HASH(K_PQ || K_CL)) of the listed values")
	}
	if role == "server" && f.has("client_kem_private_key") && !ex.IgnoresReader {
		// The client whose share was altered, finishing with its honest
		// key, agrees with our server.
		if c, err := ex.NewClientWithKeys(f.hex("client_kem_private_key"), f.hex("client_"+cf+"_private")); err != nil {
			fail("honest client: %v", err)
		} else if kc, err := c.Finish(reply); err != nil || !bytes.Equal(kc, k) {
			fail("honest client's K differs (%v)", err)
		}
	}
}

// explicitKEMKey reads a KEM key generation's randomness from r and
// returns the key in the form the explicit-key constructors take: the
// ML-KEM seed d || z itself, sntrup761's encoded key (its key generation
// has no seed).
func explicitKEMKey(k hybrid.KEM, r io.Reader) ([]byte, error) {
	if k.Name() != "sntrup761" {
		seed := make([]byte, 64)
		_, err := io.ReadFull(r, seed)
		return seed, err
	}
	dk, err := sntrup761test.GenerateKey(r)
	if err != nil {
		return nil, err
	}
	return dk.Bytes(), nil
}

// callReader returns each recorded random call's bytes from one Read, so
// the reader reproduces the generator's call pattern.
type callReader struct{ calls [][]byte }

func (r *callReader) Read(p []byte) (int, error) {
	if len(r.calls) == 0 {
		return 0, errors.New("recorded random calls exhausted")
	}
	c := r.calls[0]
	if len(p) != len(c) {
		return 0, errors.New("read size differs from the recorded call")
	}
	r.calls = r.calls[1:]
	return copy(p, c), nil
}

// shakeStream is the randomness of the SSH vector files' edge cases:
// SHAKE256 of the stream label, read sequentially.
func shakeStream(label string) io.Reader {
	s := sha3.NewSHAKE256()
	s.Write([]byte(label))
	return s
}

// Stream returns the first n bytes of shakeStream(label).
func Stream(label string, n int) []byte {
	out := make([]byte, n)
	shakeStream(label).Read(out)
	return out
}

// sshString appends the SSH string encoding of b, written out here rather
// than taken from kexhash.
func sshString(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// kexK is the K of a hybrid method, string(HASH(K_PQ || K_CL)), computed
// here rather than by the engine.
func kexK(h crypto.Hash, kPQ, kCL []byte) []byte {
	d := h.New()
	d.Write(kPQ)
	d.Write(kCL)
	return sshString(nil, d.Sum(nil))
}

// cat returns a new slice holding a then b.
func cat(a, b []byte) []byte { return append(bytes.Clone(a), b...) }
