package kat

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/kexhash"
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

// fail reports a failure of the vector, prefixed with its identifier.
func (f fields) fail(format string, args ...any) {
	f.tb.Helper()
	f.tb.Errorf(f.id+": "+format, args...)
}

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

// runPositive checks one exchange of an SSH vector file on ex: the
// exchange from the recorded randomness (readerExchange, or
// ignoredReaders), the file's own values against crypto/ecdh and the KEM
// alone (fileValues), the explicit-key constructors (explicitKeys) and
// the transcript (transcript).
func runPositive(t TB, ex Exchange, host ed25519.PrivateKey, tr map[string]string, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m)
	m := ex.Method
	cf := curveField[m.Curve.Name()]
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
	cPriv, sPriv := f.hex("client_"+cf+"_private"), f.hex("server_"+cf+"_private")
	fileValues(f, m, cKEM, sKEM, cPriv, sPriv, qc, qs, kWant,
		bytes.Equal(cPriv, cCurve[len(cCurve)-1]) && bytes.Equal(sPriv, sCurve[len(sCurve)-1]))
	explicitKeys(f, ex, cKEM, sKEM, cPriv, sPriv, qc, qs, kWant)
	transcript(f, m, host, tr, qc, qs, kWant)
}

// fileValues checks a file's intermediate values: Q_C and Q_S are made of
// the listed keys, the INIT payload carries Q_C, K is
// string(HASH(K_PQ || K_CL)) of the listed secrets, the listed private
// keys are the last recorded curve calls (privLast), and crypto/ecdh and
// the KEM alone reproduce the secrets from the recorded keys.
func fileValues(f fields, m *hybrid.Method, cKEM, sKEM [][]byte, cPriv, sPriv, qc, qs, kWant []byte, privLast bool) {
	f.tb.Helper()
	kem, cu := m.Backend(), m.Curve
	cf := curveField[cu.Name()]
	ekSize := kem.EncapsulationKeySize()
	if !bytes.Equal(qc, cat(f.hex("client_kem_public_key"), f.hex("client_"+cf+"_public"))) ||
		!bytes.Equal(qs, cat(f.hex("kem_ciphertext"), f.hex("server_"+cf+"_public"))) {
		f.fail("file: Q_C is not ek || client point, or Q_S not ct || server point")
	}
	if !bytes.Equal(f.hex("kex_ecdh_init_payload"), sshString([]byte{30}, qc)) {
		f.fail("INIT payload is not 30 || string(Q_C)")
	}
	kpq, kcl := f.hex("kem_shared_secret"), f.hex(cf+"_shared_secret")
	if len(kcl) != cu.SecretSize() {
		f.fail("K_CL has %d bytes", len(kcl))
	}
	if !bytes.Equal(f.hex("shared_secret_hash_input"), cat(kpq, kcl)) ||
		!bytes.Equal(kexK(m.Hash, kpq, kcl), kWant) || !bytes.Equal(kWant[4:], f.hex("shared_secret_hash")) {
		f.fail("K is not string(HASH(K_PQ || K_CL)) of the listed values")
	}
	if !privLast {
		f.fail("the private keys are not the last recorded curve calls")
	}
	if err := oracleECDH(cu.Name(), cPriv, qs[len(qs)-cu.PublicKeySize():], kcl); err != nil {
		f.fail("client %v", err)
	}
	if err := oracleECDH(cu.Name(), sPriv, qc[ekSize:], kcl); err != nil {
		f.fail("server %v", err)
	}
	if err := kemAlone(kem, cKEM, bytes.Join(sKEM, nil), f.hex("client_kem_private_key"), qc[:ekSize], f.hex("kem_ciphertext"), kpq); err != nil {
		f.fail("%s %s alone: %v", kem.Impl(), kem.Name(), err)
	}
}

// explicitKeys checks the explicit-key constructors on the recorded
// secrets: the same C_INIT, S_REPLY and K.
func explicitKeys(f fields, ex Exchange, cKEM, sKEM [][]byte, cPriv, sPriv, qc, qs, kWant []byte) {
	f.tb.Helper()
	kemKey, err := explicitKEMKey(ex.Method.Backend(), &callReader{cKEM})
	if err != nil {
		f.tb.Fatalf("%s: KEM key from the recorded calls: %v", f.id, err)
	}
	if c2, err := ex.NewClientWithKeys(kemKey, cPriv); err != nil {
		f.fail("NewClientWithKeys: %v", err)
	} else if !bytes.Equal(c2.Init(), qc) {
		f.fail("NewClientWithKeys: C_INIT differs")
	} else if k2, err := c2.Finish(qs); err != nil || !bytes.Equal(k2, kWant) {
		f.fail("NewClientWithKeys: K differs (%v)", err)
	}
	if r2, k2, err := ex.RespondWithKeys(qc, bytes.Join(sKEM, nil), sPriv); err != nil ||
		!bytes.Equal(r2, qs) || !bytes.Equal(k2, kWant) {
		f.fail("RespondWithKeys differs (%v)", err)
	}
}

// transcript checks the exchange hash H over the file's transcript, the
// six derived keys (and their prefixes), the Ed25519 signature and the
// reply payload.
func transcript(f fields, m *hybrid.Method, host ed25519.PrivateKey, tr map[string]string, qc, qs, kWant []byte) {
	t := f.tb
	t.Helper()
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
		f.fail("exchange hash differs")
	}
	var dk map[string]Hex
	if err := json.Unmarshal(f.m["derived_keys_128_bytes"], &dk); err != nil || len(dk) != 6 {
		t.Fatalf("%s: derived_keys_128_bytes: %v", f.id, err)
	}
	for _, l := range []byte("ABCDEF") {
		for _, n := range []int{16, 32, 64, 100, 128} {
			if len(dk[string(l)]) != 128 || !bytes.Equal(kexhash.DeriveKey(m.Hash, kWant, H, H, l, n), dk[string(l)][:n]) {
				f.fail("derived key %c (%d bytes) differs", l, n)
			}
		}
	}
	sig := ed25519.Sign(host, H) // deterministic: the file's must be this
	blob := sshString(sshString(nil, []byte("ssh-ed25519")), sig)
	if !bytes.Equal(blob, f.hex("host_key_signature_blob")) || !ed25519.Verify(host.Public().(ed25519.PublicKey), H, sig) {
		f.fail("signature blob differs")
	}
	if !bytes.Equal(sshString(sshString(sshString([]byte{31}, ks), qs), blob), f.hex("kex_ecdh_reply_payload")) {
		f.fail("REPLY payload differs")
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
