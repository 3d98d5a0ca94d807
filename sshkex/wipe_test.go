package sshkex

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"testing"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"golang.org/x/crypto/ssh"
)

// scriptedConn is a packetConn whose reads return the given packets, then
// errRead, and whose writes fail with errWrite if set.
type scriptedConn struct {
	reads    [][]byte
	errWrite error
}

var errRead = errors.New("connection reset (test)")

func (c *scriptedConn) writePacket([]byte) error { return c.errWrite }
func (c *scriptedConn) readPacket() ([]byte, error) {
	if len(c.reads) == 0 {
		return nil, errRead
	}
	p := c.reads[0]
	c.reads = c.reads[1:]
	return p, nil
}
func (c *scriptedConn) Close() error { return nil }

func isZero(b []byte) bool { return !bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) }

// TestClientWipesOnEveryPath runs the client side of sntrup761x25519 with
// a key the test keeps (as SetKeyPool's keys are passed in) and checks
// that the key is overwritten however the key exchange ends: the
// connection fails before S_REPLY, the server's REPLY is malformed, the
// write of INIT fails, or the exchange completes.
func TestClientWipesOnEveryPath(t *testing.T) {
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	host := mustSigner(t, edKey).(ssh.AlgorithmSigner)
	for _, tc := range []struct {
		name string
		conn func(init []byte) *scriptedConn
		ok   bool
	}{
		{"read fails before REPLY", func([]byte) *scriptedConn { return &scriptedConn{} }, false},
		{"malformed REPLY", func([]byte) *scriptedConn { return &scriptedConn{reads: [][]byte{{31, 0, 0}}} }, false},
		{"write of INIT fails", func([]byte) *scriptedConn { return &scriptedConn{errWrite: errors.New("write failed (test)")} }, false},
		{"success", nil, true},
	} {
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		m := *sntrupMethod
		var init []byte
		m.newClient = func(r io.Reader) (client, error) {
			c, err := sntrup761x25519.NewClientWithKey(dk, r)
			if err == nil {
				init = c.Init()
			}
			return c, err
		}
		magics := &handshakeMagics{}
		var conn packetConn
		if tc.ok {
			// A server that answers whatever INIT the client sends.
			conn = &replyingConn{t: t, host: host, magics: magics}
		} else {
			conn = tc.conn(nil)
		}
		_, err = (&hybridKEX{m: &m}).Client(conn, rand.Reader, magics)
		if (err == nil) != tc.ok {
			t.Fatalf("%s: Client error %v", tc.name, err)
		}
		if init == nil {
			t.Fatalf("%s: no client was made", tc.name)
		}
		if !isZero(dk.Bytes()) {
			t.Errorf("%s: the client's sntrup761 key was not overwritten", tc.name)
		}
	}
}

// replyingConn answers the client's INIT with a real server REPLY.
type replyingConn struct {
	t      *testing.T
	host   ssh.AlgorithmSigner
	magics *handshakeMagics
	reply  []byte
}

func (c *replyingConn) writePacket(p []byte) error {
	srv := &scriptedConn{reads: [][]byte{p}}
	rec := &recordingConn{scriptedConn: srv}
	if _, err := (&hybridKEX{m: sntrupMethod}).Server(rec, rand.Reader, c.magics, c.host, ssh.KeyAlgoED25519); err != nil {
		c.t.Fatal(err)
	}
	c.reply = rec.written
	return nil
}
func (c *replyingConn) readPacket() ([]byte, error) { return c.reply, nil }
func (c *replyingConn) Close() error                { return nil }

type recordingConn struct {
	*scriptedConn
	written []byte
}

func (c *recordingConn) writePacket(p []byte) error {
	c.written = append([]byte(nil), p...)
	return nil
}

type failingSigner struct{ ssh.AlgorithmSigner }

func (failingSigner) SignWithAlgorithm(io.Reader, []byte, string) (*ssh.Signature, error) {
	return nil, errors.New("signer failed (test)")
}

// TestServerWipesKOnError checks that the server side overwrites K when
// the key exchange fails after Respond: the host key cannot sign (an
// error, or no signature), or the REPLY cannot be written.
func TestServerWipesKOnError(t *testing.T) {
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	host := mustSigner(t, edKey).(ssh.AlgorithmSigner)
	c, err := mlkem768nistp256.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	initPacket := sshwire.AppendKexECDHInit(nil, c.Init())
	for _, tc := range []struct {
		name   string
		signer ssh.AlgorithmSigner
		conn   *scriptedConn
	}{
		{"signing fails", failingSigner{host}, &scriptedConn{reads: [][]byte{initPacket}}},
		{"write of REPLY fails", host, &scriptedConn{reads: [][]byte{initPacket}, errWrite: errors.New("write failed (test)")}},
		{"the signer returns no signature", silentSigner{host}, &scriptedConn{reads: [][]byte{initPacket}}},
	} {
		m := *nistp256Method
		var k []byte
		m.respond = func(r io.Reader, qc []byte) ([]byte, []byte, error) {
			qs, kk, err := mlkem768nistp256.Respond(r, qc)
			k = kk
			return qs, kk, err
		}
		if _, err := (&hybridKEX{m: &m}).Server(tc.conn, rand.Reader, &handshakeMagics{}, tc.signer, ssh.KeyAlgoED25519); err == nil {
			t.Fatalf("%s: Server succeeded", tc.name)
		}
		if len(k) != mlkem768nistp256.SharedSecretSize || !isZero(k) {
			t.Errorf("%s: K was not overwritten (%d bytes)", tc.name, len(k))
		}
	}
}
