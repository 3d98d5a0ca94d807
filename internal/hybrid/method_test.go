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
			clear(r[m.kem().CiphertextSize():])
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
