package kat

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/kexhash"
)

// hybridSSHFile is an SSH vector file of the NIST-curve hybrids
// (mlkem768nistp256-sha256_openssh.json, *_putty.json): see
// vectors/testdata/README.md. Field values are read by name because the
// curve's fields are named after it (client_p256_private, ...).
type hybridSSHFile struct {
	Algorithm  string                       `json:"algorithm"`
	Transcript map[string]string            `json:"transcript"`
	Tests      []map[string]json.RawMessage `json:"tests"`
	Edge       []map[string]json.RawMessage `json:"invalid_and_edge_tests"`
}

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

func (f fields) calls(k string) ([]RandomCall, []byte) {
	f.tb.Helper()
	var cs []RandomCall
	if err := json.Unmarshal(f.m[k], &cs); err != nil {
		f.tb.Fatalf("%s: field %s: %v", f.id, k, err)
	}
	var all []byte
	for _, c := range cs {
		if len(c.Hex) != c.Len {
			f.tb.Fatalf("%s: %s call %s: %d bytes, listed as %d", f.id, k, c.Purpose, len(c.Hex), c.Len)
		}
		all = append(all, c.Hex...)
	}
	return cs, all
}

// Stream returns the first n bytes of a side's stream SHAKE256(label),
// the vector files' randomness convention (shakeStream).
func Stream(label string, n int) []byte {
	out := make([]byte, n)
	shakeStream(label).Read(out)
	return out
}

// RunSSHFile checks every test of an SSH vector file (name, its bytes
// data) against each Exchange: positive tests byte for byte (C_INIT from
// the recorded client random calls, which must be consumed exactly;
// S_REPLY and K from the server's; the client's K; K =
// string(HASH(K_PQ || K_CL)) from the file's intermediate values; the
// exchange hash, the six derived keys, the Ed25519 signature and both
// payloads; the explicit-key constructors from the recorded secrets), and
// every edge case against its strict `result` (`putty_result` is
// ignored): rejects must fail with an error naming the peer's side,
// accepts must give the listed K. The curve's field prefix is cf
// ("p256", "p384"). It returns the number of cases run (one per test and
// Exchange).
func RunSSHFile(t TB, name string, data []byte, cf string, exs ...Exchange) int {
	t.Helper()
	var f hybridSSHFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(f.Tests) == 0 || len(f.Edge) == 0 {
		t.Fatalf("%s: no tests", name)
	}
	n := 0
	for _, ex := range exs {
		if f.Algorithm != ex.Name {
			t.Fatalf("%s is for %q, not %q", name, f.Algorithm, ex.Name)
		}
		for _, raw := range f.Tests {
			each(t, func() { runPositive(t, ex, cf, f.Transcript, fields{t, raw, ""}) })
			n++
		}
		for _, raw := range f.Edge {
			each(t, func() { runEdge(t, ex, cf, fields{t, raw, ""}) })
			n++
		}
	}
	return n
}

func tcID(m map[string]json.RawMessage) string {
	return "tcId " + string(m["tcId"])
}

func runPositive(t TB, ex Exchange, cf string, tr map[string]string, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m)
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(f.id+": "+format, args...) }
	_, cStream := f.calls("client_random_calls")
	sCalls, sStream := f.calls("server_random_calls")
	qc, qs, kWant := f.hex("Q_C"), f.hex("Q_S"), f.hex("K_ssh_string")
	// The file is checked before it is sliced: a damaged file fails its
	// case, never panics.
	if len(cStream) < 64 || len(sStream) < 32 || len(sCalls) == 0 || len(kWant) < 4 {
		t.Fatalf("%s: random calls shorter than the seed and m, or K shorter than its length prefix", f.id)
	}

	if ex.IgnoresReader {
		ignoredReaders(t, ex, f.id, cStream, sStream)
	} else {
		readerExchange(t, ex, f.id, cStream, sStream, qc, qs, kWant)
	}
	if !bytes.Equal(qc, append(f.hex("client_kem_public_key"), f.hex("client_"+cf+"_public")...)) {
		fail("file: Q_C is not ek || client point")
	}
	if !bytes.Equal(f.hex("kex_ecdh_init_payload"), append([]byte{30}, sshString(nil, qc)...)) {
		fail("INIT payload is not 30 || string(Q_C)")
	}
	if !bytes.Equal(qs, append(f.hex("kem_ciphertext"), f.hex("server_"+cf+"_public")...)) {
		fail("file: Q_S is not ct || server point")
	}
	kS := kWant // the transcript below is checked with the file's K

	// K from the file's own intermediate values, fixed-length K_CL.
	kpq, kcl := f.hex("kem_shared_secret"), f.hex(cf+"_shared_secret")
	if len(kcl) != ex.Curve.SecretSize() {
		fail("K_CL has %d bytes", len(kcl))
	}
	if !bytes.Equal(f.hex("shared_secret_hash_input"), append(append([]byte{}, kpq...), kcl...)) ||
		!bytes.Equal(hybrid.SharedSecret(ex.Hash, kpq, kcl), kWant) ||
		!bytes.Equal(kWant[4:], f.hex("shared_secret_hash")) {
		fail("K is not string(HASH(K_PQ || K_CL)) of the listed values")
	}

	// Test-only constructors from the recorded secrets.
	seed := cStream[:64]
	if c2, err := ex.NewClientWithKeys(seed, f.hex("client_"+cf+"_private")); err != nil {
		fail("NewClientWithKeys: %v", err)
	} else if !bytes.Equal(c2.Init(), qc) {
		fail("NewClientWithKeys: C_INIT differs")
	} else if k2, err := c2.Finish(qs); err != nil || !bytes.Equal(k2, kWant) {
		fail("NewClientWithKeys: K differs (%v)", err)
	}
	if sCalls[0].Len != 32 {
		fail("first server call is not m")
	}
	if r2, k2, err := ex.RespondWithKeys(qc, sStream[:32], f.hex("server_"+cf+"_private")); err != nil ||
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
	H := kexhash.ExchangeHash(ex.Hash, []byte(tr["V_C"]), []byte(tr["V_S"]), tx("I_C"), tx("I_S"), ks, qc, qs, kS)
	if !bytes.Equal(H, f.hex("exchange_hash_H")) {
		fail("exchange hash differs")
	}
	var dk map[string]string
	if err := json.Unmarshal(f.m["derived_keys_128_bytes"], &dk); err != nil || len(dk) != 6 {
		t.Fatalf("%s: derived_keys_128_bytes: %v", f.id, err)
	}
	for _, l := range "ABCDEF" {
		if got := hex.EncodeToString(kexhash.DeriveKey(ex.Hash, kS, H, H, byte(l), 128)); got != dk[string(l)] {
			fail("derived key %c differs", l)
		}
	}
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(tx("host_key_ed25519_seed")), H)
	blob := append(sshString(nil, []byte("ssh-ed25519")), sshString(nil, sig)...)
	if !bytes.Equal(blob, f.hex("host_key_signature_blob")) {
		fail("signature blob differs")
	}
	payload := append(append(append([]byte{31}, sshString(nil, ks)...), sshString(nil, qs)...), sshString(nil, blob)...)
	if !bytes.Equal(payload, f.hex("kex_ecdh_reply_payload")) {
		fail("REPLY payload differs")
	}
}

// readerExchange checks the exchange from the recorded streams, consumed
// exactly: C_INIT, S_REPLY and both Ks byte for byte.
func readerExchange(t TB, ex Exchange, id string, cStream, sStream, qc, qs, kWant []byte) {
	t.Helper()
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(id+": "+format, args...) }
	cr := bytes.NewReader(cStream)
	c, err := ex.NewClient(cr)
	if err != nil {
		t.Fatalf("%s: NewClient: %v", id, err)
	}
	if cr.Len() != 0 {
		fail("NewClient left %d of the recorded client random bytes unread", cr.Len())
	}
	if got := c.Init(); !bytes.Equal(got, qc) {
		fail("C_INIT differs from Q_C")
	}
	sr := bytes.NewReader(sStream)
	reply, kS, err := ex.Respond(sr, qc)
	if err != nil {
		t.Fatalf("%s: Respond: %v", id, err)
	}
	if sr.Len() != 0 {
		fail("Respond left %d of the recorded server random bytes unread", sr.Len())
	}
	if !bytes.Equal(reply, qs) {
		fail("S_REPLY differs from Q_S")
	}
	if !bytes.Equal(kS, kWant) {
		fail("server K differs")
	}
	kC, err := c.Finish(qs)
	if err != nil || !bytes.Equal(kC, kWant) {
		fail("client K differs (err %v)", err)
	}
}

// ignoredReaders checks an Exchange that ignores the caller's reader (a
// NIST-curve hybrid in FIPS 140-3 mode): NewClient and Respond leave the
// recorded streams unread, their keys are fresh (C_INIT and K differ from
// what the streams give), and the two sides agree on K. The byte-exact
// checks run through the explicit-key constructors.
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

func runEdge(t TB, ex Exchange, cf string, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m) + " (" + f.str("comment") + ")"
	fail := func(format string, args ...any) { t.Helper(); t.Errorf(f.id+": "+format, args...) }
	result := f.str("result")
	if result != "accept" && result != "reject" {
		t.Fatalf("%s: result %q", f.id, result)
	}
	var k []byte
	var err error
	var who string
	switch role := f.str("role"); role {
	case "server":
		who = "client's"
		var reply []byte
		reply, k, err = ex.Respond(shakeStream(f.str("server_stream")), f.hex("Q_C"))
		if ex.IgnoresReader {
			// The verdict is the ignored-reader path's; S_REPLY and K
			// come from the explicit-key constructor on the stream's m and
			// first candidate.
			s := Stream(f.str("server_stream"), 32+ex.Curve.PrivateKeySize())
			var err2 error
			reply, k, err2 = ex.RespondWithKeys(f.hex("Q_C"), s[:32], s[32:])
			if (err == nil) != (err2 == nil) {
				fail("Respond and RespondWithKeys disagree: %v, %v", err, err2)
			}
		}
		if err == nil && f.has("Q_S") && !bytes.Equal(reply, f.hex("Q_S")) {
			fail("S_REPLY differs")
		}
	case "client":
		who = "server's"
		var c Client
		var err2 error
		if ex.IgnoresReader {
			s := Stream(f.str("client_stream"), 64+ex.Curve.PrivateKeySize())
			c, err2 = ex.NewClientWithKeys(s[:64], s[64:])
			if err2 == nil {
				// The verdict of the ignored-reader path must agree.
				c3, err3 := ex.NewClient(shakeStream(f.str("client_stream")))
				if err3 != nil {
					t.Fatalf("%s: NewClient: %v", f.id, err3)
				}
				_, err3 = c3.Finish(f.hex("Q_S"))
				defer func() {
					if (err == nil) != (err3 == nil) {
						fail("the ignored-reader client's verdict differs: %v, %v", err, err3)
					}
				}()
			}
		} else {
			c, err2 = ex.NewClient(shakeStream(f.str("client_stream")))
		}
		if err2 != nil {
			t.Fatalf("%s: NewClient: %v", f.id, err2)
		}
		if !bytes.Equal(c.Init(), f.hex("Q_C")) {
			fail("C_INIT from the client stream differs from Q_C")
		}
		k, err = c.Finish(f.hex("Q_S"))
	default:
		t.Fatalf("%s: role %q", f.id, role)
	}
	switch {
	case result == "reject" && err == nil:
		fail("accepted, want reject")
	case result == "reject":
		msg := err.Error()
		if !strings.Contains(msg, who) {
			fail("error %q does not name the %s value", msg, who)
		}
		for _, key := range []string{"Q_C", "Q_S"} {
			if f.has(key) {
				v := f.hex(key)
				for i := 0; i+8 <= len(v); i += 8 {
					if strings.Contains(msg, hex.EncodeToString(v[i:i+8])) {
						fail("error %q contains input bytes", msg)
						break
					}
				}
			}
		}
	case err != nil:
		fail("rejected (%v), want accept", err)
	default:
		if !bytes.Equal(k, f.hex("K_ssh_string")) {
			fail("K differs")
		}
		kpq, kcl := f.hex("kem_shared_secret"), f.hex(cf+"_shared_secret")
		if !bytes.Equal(hybrid.SharedSecret(ex.Hash, kpq, kcl), k) {
			fail("K is not string(HASH(K_PQ || K_CL)) of the listed values")
		}
	}
}
