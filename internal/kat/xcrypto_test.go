package kat

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/mlkem768x25519"
)

// Cross-checks against golang.org/x/crypto/ssh's built-in
// mlkem768x25519-sha256 (v0.59.0, ssh/mlkem.go).

// xcryptoClient is XCrypto's client from explicit secrets (the X25519 key
// priv, the ML-KEM seed).
func xcryptoClient(t *testing.T, priv, seed []byte) Client {
	t.Helper()
	c, err := XCrypto().NewClientWithKeys(seed, priv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestXCryptoStyleOpenSSHVectors checks the x/crypto code path (XCrypto,
// the oracle of the tests below) against OpenSSH's exchanges.
func TestXCryptoStyleOpenSSHVectors(t *testing.T) {
	needX25519Oracle(t)
	v := readSSH(t, "mlkem768x25519-sha256_openssh.json")
	for i := range v.Tests {
		tc := &v.Tests[i]
		seed := Calls(tc.ClientRandomCalls, "mlkem768_keygen_seed_d_then_z")[0]
		c := xcryptoClient(t, tc.ClientX25519Priv, seed)
		if !bytes.Equal(c.Init(), tc.QC) {
			t.Errorf("%v: x/crypto-style C_INIT differs", tc)
		}
		k, err := c.Finish(tc.QS)
		if err != nil || !bytes.Equal(k, tc.K) {
			t.Errorf("%v: x/crypto-style K differs (%v)", tc, err)
		}
	}
}

// TestXCryptoStyleMessages exchanges messages between this package and the
// x/crypto code path, in both directions, on random keys.
func TestXCryptoStyleMessages(t *testing.T) {
	needX25519Oracle(t)
	for range 20 {
		priv, seed := make([]byte, 32), make([]byte, 64)
		rand.Read(priv)
		rand.Read(seed)
		// x/crypto client, our server.
		xc := xcryptoClient(t, priv, seed)
		init := xc.Init()
		reply, kS, err := mlkem768x25519.Respond(nil, init)
		if err != nil {
			t.Fatal(err)
		}
		kC, err := xc.Finish(reply)
		if err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("x/crypto client, our server: K differs (%v)", err)
		}
		// Our client (same secrets, so the same C_INIT), x/crypto server.
		c, err := withKeys(&hybrid.MLKEM768X25519, seed, priv)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Init(), init) {
			t.Fatal("our C_INIT differs from x/crypto's for the same secrets")
		}
		reply, kS, err = XCrypto().Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		kC, err = c.Finish(reply)
		if err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("our client, x/crypto server: K differs (%v)", err)
		}
	}
}

// recordingRand is crypto/rand that records every Read.
type recordingRand struct {
	mu    sync.Mutex
	calls [][]byte
}

func (r *recordingRand) Read(p []byte) (int, error) {
	rand.Read(p)
	r.mu.Lock()
	r.calls = append(r.calls, bytes.Clone(p))
	r.mu.Unlock()
	return len(p), nil
}

// recordingConn records both directions of a connection.
type recordingConn struct {
	net.Conn
	mu       sync.Mutex
	sent     bytes.Buffer
	received bytes.Buffer
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.record(&c.received, p[:n])
	return n, err
}

func (c *recordingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.record(&c.sent, p[:n])
	return n, err
}

// record appends p to the direction's buffer b under c.mu.
func (c *recordingConn) record(b *bytes.Buffer, p []byte) {
	c.mu.Lock()
	b.Write(p)
	c.mu.Unlock()
}

// sshStream is one direction of a recorded SSH connection: the version
// line, the cleartext packets up to and including NEWKEYS, and the rest
// (encrypted).
type sshStream struct {
	version   string
	payloads  [][]byte
	encrypted []byte
}

func parseSSHStream(t *testing.T, b []byte) *sshStream {
	t.Helper()
	line, rest, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(line, []byte("SSH-2.0-")) {
		t.Fatalf("no version line in %q", b[:min(len(b), 40)])
	}
	s := &sshStream{version: string(line)}
	r := bytes.NewReader(rest)
	for {
		// RFC 4253 section 6, without MAC before the first NEWKEYS.
		payload, err := sshwire.ReadPlainPacket(r, sshwire.MaxPacket)
		if err != nil {
			t.Fatalf("bad cleartext packet before NEWKEYS: %v", err)
		}
		s.payloads = append(s.payloads, payload)
		if len(payload) > 0 && payload[0] == 21 { // SSH_MSG_NEWKEYS
			s.encrypted = rest[len(rest)-r.Len():]
			return s
		}
	}
}

func (s *sshStream) payload(t *testing.T, msg byte) []byte {
	t.Helper()
	var found []byte
	for _, p := range s.payloads {
		if len(p) > 0 && p[0] == msg {
			if found != nil {
				t.Fatalf("message %d sent twice", msg)
			}
			found = p
		}
	}
	if found == nil {
		t.Fatalf("message %d not sent", msg)
	}
	return found
}

// decryptFirst decrypts and authenticates the first packet after NEWKEYS
// in direction dir with sshwire's aes128-ctr and hmac-sha2-256, keyed from
// k and H (the session identifier of the first exchange), and returns its
// payload.
func decryptFirst(t *testing.T, enc, k, H []byte, dir sshwire.Direction, seq uint32) []byte {
	t.Helper()
	in, err := sshwire.NewPacketCipher(sshwire.CipherAES128CTR, sshwire.MACHMACSHA256, crypto.SHA256, k, H, H, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) == 0 {
		t.Fatal("no encrypted packet")
	}
	p, err := in.Open(bytes.NewReader(enc), seq)
	switch {
	case errors.Is(err, sshwire.ErrPacketAuth):
		t.Fatal("MAC of the first encrypted packet does not verify: wrong keys")
	case err != nil:
		t.Fatalf("first encrypted packet does not decrypt (%v): wrong keys", err)
	case len(p) == 0:
		t.Fatal("first encrypted packet is empty")
	}
	return p
}

// TestXCryptoHandshake runs x/crypto/ssh's client and server over TCP on
// loopback with mlkem768x25519-sha256 and replays the recorded handshake
// with this module:
//
//   - from the random bytes the x/crypto client drew, our client
//     rebuilds its C_INIT byte for byte;
//   - our client finishes with the x/crypto server's real S_REPLY, and
//     kexhash's H over the recorded transcript is what the x/crypto server
//     signed: its signature verifies;
//   - kexhash's derived keys decrypt and authenticate the first encrypted
//     packet in each direction;
//   - our server accepts the x/crypto client's real C_INIT, and the x/crypto
//     client code path derives the same K from our S_REPLY.
func TestXCryptoHandshake(t *testing.T) {
	needX25519Oracle(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()

	signer := sshtest.HostKey(t)
	algs := ssh.Config{
		KeyExchanges: []string{mlkem768x25519.Name},
		Ciphers:      []string{sshwire.CipherAES128CTR},
		MACs:         []string{sshwire.MACHMACSHA256},
	}
	clientRand, serverRand := new(recordingRand), new(recordingRand)

	serverCfg := &ssh.ServerConfig{Config: algs, NoClientAuth: true}
	serverCfg.Rand = serverRand
	serverCfg.AddHostKey(signer)
	serverErr := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			serverErr <- err
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		sshtest.ServeConn(conn, serverCfg, serverErr)
	}()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	rc := &recordingConn{Conn: conn}
	clientCfg := &ssh.ClientConfig{
		Config:          algs,
		User:            "pqkex",
		HostKeyCallback: ssh.FixedHostKey(signer.PublicKey()),
	}
	clientCfg.Rand = clientRand
	cc, _, _, err := ssh.NewClientConn(rc, ln.Addr().String(), clientCfg)
	if err != nil {
		t.Fatalf("x/crypto handshake: %v", err)
	}
	if err := <-serverErr; err != nil {
		t.Fatalf("x/crypto server: %v", err)
	}
	cc.Close()

	rc.mu.Lock()
	c2s := parseSSHStream(t, rc.sent.Bytes())
	s2c := parseSSHStream(t, rc.received.Bytes())
	rc.mu.Unlock()

	ic, is := c2s.payload(t, 20), s2c.payload(t, 20)
	initMsg, ok := parseStrings(c2s.payload(t, 30)[1:], 1)
	if !ok {
		t.Fatal("bad SSH_MSG_KEX_ECDH_INIT")
	}
	qc := initMsg[0]
	replyMsg, ok := parseStrings(s2c.payload(t, 31)[1:], 3)
	if !ok {
		t.Fatal("bad SSH_MSG_KEX_ECDH_REPLY")
	}
	ks, qs, sigBlob := replyMsg[0], replyMsg[1], replyMsg[2]
	if len(qc) != mlkem768x25519.ClientInitSize || len(qs) != mlkem768x25519.ServerReplySize {
		t.Fatalf("x/crypto sent C_INIT of %d and S_REPLY of %d bytes", len(qc), len(qs))
	}
	if !bytes.Equal(ks, signer.PublicKey().Marshal()) {
		t.Fatal("K_S is not the host key")
	}

	// The x/crypto client's secrets: a 32-byte read (X25519) directly
	// followed by a 64-byte read (ML-KEM seed). Padding reads are shorter.
	var priv, seed []byte
	for i := 0; i+1 < len(clientRand.calls); i++ {
		if len(clientRand.calls[i]) == 32 && len(clientRand.calls[i+1]) == 64 {
			if priv != nil {
				t.Fatal("two candidate key generations in the client's random reads")
			}
			priv, seed = clientRand.calls[i], clientRand.calls[i+1]
		}
	}
	if priv == nil {
		t.Fatal("the x/crypto client's key generation was not found in its random reads")
	}

	// 1. Our client from the same secrets sends the same C_INIT.
	ours, err := withKeys(&hybrid.MLKEM768X25519, seed, priv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours.Init(), qc) {
		t.Fatal("our C_INIT differs from the x/crypto client's for the same secrets")
	}
	// In OpenSSH's order, as read from Config.Rand by mlkem768x25519.NewClient.
	viaRand, err := mlkem768x25519.NewClient(bytes.NewReader(append(bytes.Clone(seed), priv...)))
	if err != nil || !bytes.Equal(viaRand.Init(), qc) {
		t.Fatalf("NewClient(seed || priv) does not give x/crypto's C_INIT (%v)", err)
	}

	// 2. Our client on x/crypto's S_REPLY; H verifies under the server's
	// signature.
	k, err := ours.Finish(qs)
	if err != nil {
		t.Fatal(err)
	}
	H := kexhash.ExchangeHash(crypto.SHA256, []byte(c2s.version), []byte(s2c.version), ic, is, ks, qc, qs, k)
	sig, ok := parseStrings(sigBlob, 2)
	if !ok {
		t.Fatal("bad signature blob")
	}
	if err := signer.PublicKey().Verify(H, &ssh.Signature{Format: string(sig[0]), Blob: sig[1]}); err != nil {
		t.Fatalf("x/crypto server's signature does not verify over our H: %v", err)
	}

	// 3. Session keys (session_id = H): decrypt the first encrypted packet
	// in each direction. With strict KEX (both sides of x/crypto offer it)
	// sequence numbers restart at 0 after NEWKEYS.
	strict := bytes.Contains(ic, []byte("kex-strict-c-v00@openssh.com")) && bytes.Contains(is, []byte("kex-strict-s-v00@openssh.com"))
	seqC2S, seqS2C := uint32(len(c2s.payloads)), uint32(len(s2c.payloads))
	if strict {
		seqC2S, seqS2C = 0, 0
	}
	p := decryptFirst(t, c2s.encrypted, k, H, sshwire.ClientToServer, seqC2S)
	if p[0] != 5 || !bytes.Contains(p, []byte("ssh-userauth")) { // SSH_MSG_SERVICE_REQUEST
		t.Errorf("client's first encrypted packet is %x", p)
	}
	p = decryptFirst(t, s2c.encrypted, k, H, sshwire.ServerToClient, seqS2C)
	t.Logf("first encrypted packets: client message %d, server message %d", 5, p[0])
	if p[0] != 6 && p[0] != 7 { // SERVICE_ACCEPT or EXT_INFO
		t.Errorf("server's first encrypted packet is %x", p)
	}

	// The x/crypto server's X25519 key is its one 32-byte random read.
	var srvPriv []byte
	for _, c := range serverRand.calls {
		if len(c) == 32 {
			srvPriv = c
		}
	}
	if srvPriv == nil || !bytes.Equal(ecdhPublic(t, srvPriv), qs[mlkem768x25519.ServerReplySize-32:]) {
		t.Error("the x/crypto server's X25519 key was not found in its random reads")
	}

	// 4. Our server on x/crypto's real C_INIT; the x/crypto client code
	// path gets the same K from our S_REPLY.
	reply, kS, err := mlkem768x25519.Respond(nil, qc)
	if err != nil || len(reply) != mlkem768x25519.ServerReplySize {
		t.Fatalf("our server on x/crypto's C_INIT: %v", err)
	}
	kX, err := xcryptoClient(t, priv, seed).Finish(reply)
	if err != nil || !bytes.Equal(kX, kS) {
		t.Fatalf("x/crypto client code path on our S_REPLY: K differs (%v)", err)
	}
	again, _ := withKeys(&hybrid.MLKEM768X25519, seed, priv)
	if kC, err := again.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		t.Fatal("our client on our S_REPLY: K differs")
	}
	t.Logf("x/crypto handshake replayed: %s / %s, strict KEX %v, C_INIT and K identical, signature over H verified, first packets decrypted both ways", c2s.version, s2c.version, strict)
}
