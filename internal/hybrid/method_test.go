package hybrid

import (
	"bytes"
	"crypto"
	"crypto/fips140"
	"os"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/selfexec"
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

// TestNewClientFromReadsReader: NewClientFrom takes both of the client's
// keys from the caller's reader, as documented, in FIPS 140-3 mode too
// (where NewClient of an approved method draws its own): the ML-KEM seed
// d || z, then the classical private key, and nothing more. Its C_INIT
// is NewClientWithKeys's from those bytes, and two clients on the same
// bytes are the same client. Outside FIPS 140-3 mode it also runs itself
// in a child under GODEBUG=fips140=on, where the approved methods'
// classical key came from the curve's own generation before.
func TestNewClientFromReadsReader(t *testing.T) {
	for _, m := range mlkemMethods {
		size := m.Curve.PrivateKeySize()
		stream := make([]byte, 64+size+16) // 16 bytes to spare: none may be read
		for i := range stream {
			stream[i] = byte(37*i + 1)
		}
		stream[64] = 0x01 // the scalar's top byte: below the order of P-256 and P-384
		var want, c1, c2 Client
		if err := m.NewClientWithKeys(&want, stream[:64], stream[64:64+size]); err != nil {
			t.Fatalf("%s: NewClientWithKeys: %v", m.Prefix, err)
		}
		r := bytes.NewReader(stream)
		if err := m.NewClientFrom(&c1, r); err != nil {
			t.Fatalf("%s: NewClientFrom: %v", m.Prefix, err)
		}
		if read := len(stream) - r.Len(); read != 64+size {
			t.Errorf("%s: NewClientFrom read %d bytes, want %d (seed, then the %s key)", m.Prefix, read, 64+size, m.Curve.Name())
		}
		if err := m.NewClientFrom(&c2, bytes.NewReader(stream)); err != nil {
			t.Fatalf("%s: NewClientFrom: %v", m.Prefix, err)
		}
		if !bytes.Equal(m.Init(&c1), m.Init(&want)) {
			t.Errorf("%s: NewClientFrom's C_INIT is not that of the seed and %s key read from the reader", m.Prefix, m.Curve.Name())
		}
		if !bytes.Equal(m.Init(&c1), m.Init(&c2)) {
			t.Errorf("%s: two NewClientFrom on the same reader bytes give different clients", m.Prefix)
		}
	}
	if fips140.Enabled() {
		t.Logf("checked in FIPS 140-3 mode")
		return
	}
	cmd, err := selfexec.Command("-test.run=^TestNewClientFromReadsReader$", "-test.count=1", "-test.v")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "GODEBUG=fips140=on")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checked in FIPS 140-3 mode") {
		t.Fatalf("GODEBUG=fips140=on child: %v\n%s", err, out)
	}
}
