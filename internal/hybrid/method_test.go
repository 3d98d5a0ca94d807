package hybrid

import (
	"bytes"
	"crypto"
	"testing"
)

// TestFinishClearsClassicalKey: every way a Client ends (success, a short
// reply, a low-order X25519 key, the empty Finish of an abandoned Client)
// overwrites its X25519 private key, and a second Finish is refused.
func TestFinishClearsClassicalKey(t *testing.T) {
	m := &Method{Prefix: "test", Hash: crypto.SHA256, KEM: Circl(MLKEM768), Curve: X25519()}
	for _, tc := range []struct {
		name  string
		reply func(init []byte) []byte
		ok    bool
	}{
		{"success", func(init []byte) []byte { r, _, _ := m.Respond(nil, init); return r }, true},
		{"short reply", func([]byte) []byte { return make([]byte, m.ServerReplySize()-1) }, false},
		{"low-order X25519", func(init []byte) []byte {
			r, _, _ := m.Respond(nil, init)
			clear(r[m.Backend().CiphertextSize():])
			return r
		}, false},
		{"abandoned", func([]byte) []byte { return nil }, false},
	} {
		var c Client
		if err := m.NewClient(&c, nil); err != nil {
			t.Fatal(err)
		}
		key := c.ec.(*x25519Key)
		if bytes.Equal(key.priv[:], make([]byte, 32)) {
			t.Fatal("X25519 private key all zero before Finish")
		}
		if _, err := m.Finish(&c, tc.reply(m.Init(&c))); (err == nil) != tc.ok {
			t.Fatalf("%s: Finish: %v", tc.name, err)
		}
		if !bytes.Equal(key.priv[:], make([]byte, 32)) {
			t.Errorf("%s: X25519 private key not overwritten", tc.name)
		}
		if _, err := m.Finish(&c, nil); err == nil {
			t.Errorf("%s: second Finish accepted", tc.name)
		}
	}
}

// TestNewClientWithKeys: the explicit-key constructors of the known-answer
// tests refuse keys and randomness of the wrong size, and an expanded
// ML-KEM-768 key (checked against H(ek), FIPS 203 section 7.3) gives the
// same client as its seed.
func TestNewClientWithKeys(t *testing.T) {
	seed, x := bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)
	mm := MLKEM768X25519
	mm.KEM = Circl(MLKEM768) // expanded keys load on circl only (its Default in FIPS mode is crypto/mlkem)
	m := &mm
	var c, e Client
	if err := m.NewClientWithKeys(&c, seed, x); err != nil {
		t.Fatal(err)
	}
	expanded := circlKEMs[MLKEM768].(ExpandedKEM).Expanded(c.dk)
	if err := m.NewClientWithKeys(&e, expanded, x); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Init(&c), m.Init(&e)) {
		t.Error("expanded key and seed give different clients")
	}
	for _, tc := range []struct {
		name    string
		m       *Method
		key, ec []byte
	}{
		{"63-byte seed", m, seed[:63], x},
		{"31-byte X25519 key", m, seed, x[:31]},
		{"all-zero expanded key (bad H(ek))", m, make([]byte, ExpandedSize768), x},
		{"2399-byte key", m, make([]byte, ExpandedSize768-1), x},
		{"1762-byte sntrup761 key", &SNTRUP761X25519, make([]byte, 1762), x},
		{"sntrup761 with a 31-byte X25519 key", &SNTRUP761X25519, make([]byte, 1763), x[:31]},
		{"31-byte P-256 key", &MLKEM768NISTP256, seed, make([]byte, 31)},
	} {
		var c Client
		if err := tc.m.NewClientWithKeys(&c, tc.key, tc.ec); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if _, _, err := m.RespondWithKeys(m.Init(&c), seed[:31], x); err == nil {
		t.Error("31-byte m accepted")
	}
	var s Client
	if err := SNTRUP761X25519.NewClientWithKeys(&s, nil, x); err == nil {
		t.Error("sntrup761: no key accepted")
	}
	if _, _, err := SNTRUP761X25519.RespondWithKeys(make([]byte, SNTRUP761X25519.ClientInitSize()), make([]byte, 3043), x); err == nil {
		t.Error("sntrup761: 3043 bytes of r accepted")
	}
}
