package sshkex

import (
	"bytes"
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

	for round := range 20 {
		// mlkem768x25519 server: bad C_INIT lengths, an ML-KEM key with a
		// coefficient >= q, low-order X25519 shares.
		m, x := randBytes(32), randBytes(32)
		sec := map[string][]byte{"ML-KEM message m": m, "server X25519 key": x}
		c, _ := mlkem768x25519.NewClient(nil)
		good := c.Init()
		for _, bad := range [][]byte{nil, good[:1], good[:len(good)-1], append(bytes.Clone(good), 0)} {
			_, _, err := mlkem768x25519.Respond(readerOf(m, x), bad)
			add(fmt.Sprintf("mlkem server len %d", len(bad)), sec, err)
		}
		badEK := bytes.Clone(good)
		badEK[0], badEK[1] = 0xff, 0x0f // first coefficient 4095 >= q
		_, _, err := mlkem768x25519.Respond(readerOf(m, x), badEK)
		add("mlkem server ek modulus", sec, err)
		for i, lo := range lowOrder {
			ci := append(bytes.Clone(good[:mlkem768x25519.ClientInitSize-32]), lo...)
			_, _, err := mlkem768x25519.Respond(readerOf(m, x), ci)
			add(fmt.Sprintf("mlkem server low order %d", i), sec, err)
		}

		// mlkem768x25519 client with a known seed and X25519 key.
		seed, cx := randBytes(64), randBytes(32)
		csec := map[string][]byte{"ML-KEM seed": seed, "client X25519 key": cx}
		reply, _, _ := mlkem768x25519.Respond(nil, good)
		for _, bad := range [][]byte{nil, reply[:5], reply[:len(reply)-1], append(bytes.Clone(reply), 1)} {
			cl, err := mlkem768x25519.NewClient(readerOf(seed, cx))
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Finish(bad)
			add(fmt.Sprintf("mlkem client len %d", len(bad)), csec, err)
		}
		for i, lo := range lowOrder {
			cl, _ := mlkem768x25519.NewClient(readerOf(seed, cx))
			_, err := cl.Finish(append(bytes.Clone(reply[:mlkem768x25519.ServerReplySize-32]), lo...))
			add(fmt.Sprintf("mlkem client low order %d", i), csec, err)
		}

		// sntrup761x25519 server and client.
		r, sx := randBytes(4*761), randBytes(32)
		ssec := map[string][]byte{"sntrup761 r": r, "server X25519 key": sx}
		sc, _ := sntrup761x25519.NewClient(nil)
		sgood := sc.Init()
		for _, bad := range [][]byte{nil, sgood[:7], sgood[:len(sgood)-1], append(bytes.Clone(sgood), 0)} {
			_, _, err := sntrup761x25519.Respond(readerOf(r, sx), bad)
			add(fmt.Sprintf("sntrup server len %d", len(bad)), ssec, err)
		}
		for i, lo := range lowOrder {
			ci := append(bytes.Clone(sgood[:sntrup761x25519.ClientInitSize-32]), lo...)
			_, _, err := sntrup761x25519.Respond(readerOf(r, sx), ci)
			add(fmt.Sprintf("sntrup server low order %d", i), ssec, err)
		}
		dk, _ := sntrup761.GenerateKey()
		dkb, scx := dk.Bytes(), randBytes(32)
		dsec := map[string][]byte{"sntrup761 decapsulation key": dkb, "client X25519 key": scx}
		sreply, _, _ := sntrup761x25519.Respond(nil, sgood)
		for _, bad := range [][]byte{nil, sreply[:9], sreply[:len(sreply)-1], append(bytes.Clone(sreply), 2)} {
			cl, err := sntrupClient(dkb, scx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Finish(bad)
			add(fmt.Sprintf("sntrup client len %d", len(bad)), dsec, err)
		}
		for i, lo := range lowOrder {
			cl, _ := sntrupClient(dkb, scx)
			_, err := cl.Finish(append(bytes.Clone(sreply[:sntrup761x25519.ServerReplySize-32]), lo...))
			add(fmt.Sprintf("sntrup client low order %d", i), dsec, err)
		}

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
