package sshkex

import (
	"bytes"
	"crypto/fips140"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/tool/badkeys"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// lowOrder are X25519 u-coordinates whose shared secret is all zero for
// every scalar (RFC 7748 §7; 0, 1, the two order-8 points, p-1, p, p+1,
// each also with bit 255 set): badkeys.X25519LowOrder.
var lowOrder = func() [][]byte {
	var out [][]byte
	for _, k := range badkeys.X25519LowOrder {
		out = append(out, k.Value)
	}
	return out
}()

// leaks reports which secret (by name) appears in msg: raw, hex in either
// case or base64, or any 8-byte window of it in hex.
func leaks(msg string, secrets map[string][]byte) string {
	low := strings.ToLower(msg)
	for name, s := range secrets {
		forms := []string{string(s), hex.EncodeToString(s), base64.StdEncoding.EncodeToString(s), base64.RawStdEncoding.EncodeToString(s)}
		for _, f := range forms {
			if f != "" && (strings.Contains(msg, f) || strings.Contains(low, strings.ToLower(f))) {
				return name
			}
		}
		for i := 0; i+8 <= len(s); i++ {
			if strings.Contains(low, hex.EncodeToString(s[i:i+8])) {
				return name + " (8-byte window)"
			}
		}
	}
	return ""
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestNoSecretsInErrors drives many failing exchanges, with known secrets
// on the side that detects the failure, and checks that no error message
// contains any of them.
func TestNoSecretsInErrors(t *testing.T) {
	// The detector itself must catch the usual ways a key ends up in text.
	probe := randBytes(32)
	for _, msg := range []string{fmt.Sprintf("bad key %x", probe), fmt.Sprintf("%X", probe), string(probe),
		base64.StdEncoding.EncodeToString(probe), fmt.Sprintf("prefix %x", probe[5:20])} {
		if leaks(msg, map[string][]byte{"probe": probe}) == "" {
			t.Fatalf("leak detector missed %q", msg)
		}
	}

	type side struct {
		name    string
		secrets map[string][]byte
		err     error
	}
	var results []side
	add := func(name string, secrets map[string][]byte, err error) {
		results = append(results, side{name, secrets, err})
	}

	// badInits gives a server (respond) C_INITs of the wrong length (good
	// cut to short bytes, one byte short, one byte long) and good with
	// each low-order X25519 share; badReplies gives a client (finish) such
	// S_REPLYs, the long one ending in extra.
	badInits := func(label string, good []byte, short int, respond func([]byte) error, sec map[string][]byte) {
		for _, bad := range [][]byte{nil, good[:short], good[:len(good)-1], append(bytes.Clone(good), 0)} {
			add(fmt.Sprintf("%s server len %d", label, len(bad)), sec, respond(bad))
		}
		for i, lo := range lowOrder {
			add(fmt.Sprintf("%s server low order %d", label, i), sec, respond(append(bytes.Clone(good[:len(good)-32]), lo...)))
		}
	}
	badReplies := func(label string, reply []byte, short int, extra byte, finish func([]byte) error, sec map[string][]byte) {
		for _, bad := range [][]byte{nil, reply[:short], reply[:len(reply)-1], append(bytes.Clone(reply), extra)} {
			add(fmt.Sprintf("%s client len %d", label, len(bad)), sec, finish(bad))
		}
		for i, lo := range lowOrder {
			add(fmt.Sprintf("%s client low order %d", label, i), sec, finish(append(bytes.Clone(reply[:len(reply)-32]), lo...)))
		}
	}
	for round := range 20 {
		// mlkem768x25519 server: bad C_INIT lengths, an ML-KEM key with a
		// coefficient >= q, low-order X25519 shares.
		m, x := randBytes(32), randBytes(32)
		sec := map[string][]byte{"ML-KEM message m": m, "server X25519 key": x}
		c, _ := mlkem768x25519.NewClient(nil)
		good := c.Init()
		mlkemRespond := func(ci []byte) error {
			_, _, err := mlkem768x25519.Respond(readerOf(m, x), ci)
			return err
		}
		badInits("mlkem", good, 1, mlkemRespond, sec)
		badEK := bytes.Clone(good)
		badEK[0], badEK[1] = 0xff, 0x0f // first coefficient 4095 >= q
		add("mlkem server ek modulus", sec, mlkemRespond(badEK))

		// mlkem768x25519 client with a known seed and X25519 key.
		seed, cx := randBytes(64), randBytes(32)
		csec := map[string][]byte{"ML-KEM seed": seed, "client X25519 key": cx}
		// A valid reply to corrupt. Under GODEBUG=fips140=only Go refuses
		// this method's server (its Respond errors are checked above);
		// the reply is test input, made outside the enforcement.
		var reply []byte
		var err error
		fips140.WithoutEnforcement(func() { reply, _, err = mlkem768x25519.Respond(nil, good) })
		if err != nil {
			t.Fatalf("a valid mlkem768x25519 reply: %v", err)
		}
		badReplies("mlkem", reply, 5, 1, func(sr []byte) error {
			cl, err := mlkem768x25519.NewClient(readerOf(seed, cx))
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Finish(sr)
			return err
		}, csec)

		// sntrup761x25519 server and client.
		r, sx := randBytes(4*761), randBytes(32)
		ssec := map[string][]byte{"sntrup761 r": r, "server X25519 key": sx}
		sc, _ := sntrup761x25519.NewClient(nil)
		sgood := sc.Init()
		badInits("sntrup", sgood, 7, func(ci []byte) error {
			_, _, err := sntrup761x25519.Respond(readerOf(r, sx), ci)
			return err
		}, ssec)
		dk, _ := sntrup761.GenerateKey()
		dkb, scx := dk.Bytes(), randBytes(32)
		dsec := map[string][]byte{"sntrup761 decapsulation key": dkb, "client X25519 key": scx}
		sreply, _, err := sntrup761x25519.Respond(nil, sgood)
		if err != nil {
			t.Fatalf("a valid sntrup761x25519 reply: %v", err)
		}
		badReplies("sntrup", sreply, 9, 2, func(sr []byte) error {
			cl, err := sntrupClient(dkb, scx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Finish(sr)
			return err
		}, dsec)

		// The SSH framing: malformed KEX_ECDH messages carrying secrets
		// as their bytes must not be echoed either.
		junk := randBytes(48)
		jsec := map[string][]byte{"message bytes": junk}
		for _, msg := range [][]byte{append([]byte{30}, junk...), append([]byte{31}, junk...), append([]byte{29}, junk...)} {
			_, err := sshwire.ParseKexECDHInit(msg)
			add(fmt.Sprintf("KEX_ECDH_INIT round %d", round), jsec, err)
			_, _, _, err = sshwire.ParseKexECDHReply(msg)
			add(fmt.Sprintf("KEX_ECDH_REPLY round %d", round), jsec, err)
		}
	}

	for _, r := range results {
		if r.err == nil {
			t.Errorf("%s: no error", r.name)
			continue
		}
		if name := leaks(r.err.Error(), r.secrets); name != "" {
			t.Errorf("%s: error %q contains the %s", r.name, r.err, name)
		}
	}
	if len(results) < 500 {
		t.Fatalf("only %d failing exchanges ran", len(results))
	}
}

// readerOf returns a reader of the parts in order: the known randomness of
// a method's public constructors.
func readerOf(parts ...[]byte) io.Reader { return bytes.NewReader(bytes.Join(parts, nil)) }

// sntrupClient is a sntrup761x25519 client with the encoded sntrup761 key
// dk (parsed afresh each time: the Client overwrites its key when done)
// and the X25519 private key priv.
func sntrupClient(dk, priv []byte) (*sntrup761x25519.Client, error) {
	k, err := sntrup761.NewDecapsulationKey(dk)
	if err != nil {
		return nil, err
	}
	return sntrup761x25519.NewClientWithKey(k, bytes.NewReader(priv))
}
