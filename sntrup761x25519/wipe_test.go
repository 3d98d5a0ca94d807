package sntrup761x25519

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
)

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no randomness") }

// TestClientWipesSecrets checks that every path that ends a Client
// overwrites the sntrup761 decapsulation key it used (here one given to
// NewClientWithKey, as sshkex does with a KeyPool's keys, so the test can
// look at the key afterwards): Finish on success, Finish on a malformed
// reply and on a low-order X25519 key, the empty Finish that ends an
// abandoned Client, and NewClientWithKey's reading error. The engine's
// TestFinishClearsClassicalKey checks the X25519 private key.
func TestClientWipesSecrets(t *testing.T) {
	newKey := func() *sntrup761.DecapsulationKey {
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if isZero(dk.Bytes()) {
			t.Fatal("fresh key is all zero")
		}
		return dk
	}
	goodReply := func(c *Client) []byte {
		reply, _, err := Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		return reply
	}
	lowOrder := func(c *Client) []byte {
		r := goodReply(c)
		clear(r[sntrup761.CiphertextSize:]) // u = 0: all-zero shared secret
		return r
	}
	for _, tc := range []struct {
		name    string
		reply   func(*Client) []byte
		wantErr bool
	}{
		{"success", goodReply, false},
		{"short reply", func(*Client) []byte { return make([]byte, ServerReplySize-1) }, true},
		{"low-order X25519", lowOrder, true},
		{"abandoned (Finish(nil))", func(*Client) []byte { return nil }, true},
	} {
		dk := newKey()
		c, err := NewClientWithKey(dk, nil)
		if err != nil {
			t.Fatal(err)
		}
		reply := tc.reply(c)
		if _, err := c.Finish(reply); (err != nil) != tc.wantErr {
			t.Fatalf("%s: Finish error %v", tc.name, err)
		}
		if !isZero(dk.Bytes()) {
			t.Errorf("%s: sntrup761 decapsulation key not overwritten", tc.name)
		}
	}

	dk := newKey()
	if _, err := NewClientWithKey(dk, io.MultiReader(bytes.NewReader(make([]byte, 5)), failingReader{})); err == nil {
		t.Fatal("NewClientWithKey succeeded with a failing reader")
	}
	if !isZero(dk.Bytes()) {
		t.Error("NewClientWithKey's reading error: sntrup761 decapsulation key not overwritten")
	}
}

func isZero(b []byte) bool { return !bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) }
