package conformance

// Simulated peers for the verdict properties (verdict_test.go): an SSH
// server and client of the hybrid methods, written here from the SSH
// transport pieces the checks use (conn, sshwire's packet ciphers, the
// KEM and ECDH halves), honest by default and with the defects that a
// review used to fool pqkex check switched on one at a time. They run on
// loopback TCP, so that the checks' deadlines apply as with a real peer.

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"io"
	"math/big"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/ssh"
)

// defect is one way a simulated peer departs from the specifications
// (or, for the honest variants, one way it may behave that they allow).
type defect string

const (
	honestPeer defect = ""

	// Servers.
	srvMpint      defect = "server: K hashed as an mpint"
	srvMpintGrind defect = "server: K hashed as an mpint, keys drawn until its encodings agree"
	srvNoDecrypt  defect = "server: answers SSH_MSG_SERVICE_REQUEST without authenticating it"
	srvCompress   defect = "server: compressed NIST points, sent and taken (allowed)"
	srvNonStrict  defect = "server: no strict key exchange (allowed)"
	srvLateNewKey defect = "server: SSH_MSG_NEWKEYS only after the client's (allowed)"
	srvDeferred   defect = "server: strict key exchange violations answered, then refused at SSH_MSG_NEWKEYS (allowed)"
	srvSilent     defect = "server: negotiates the method, then never answers C_INIT (tailscale#20047)"
	srvNoNewKeys  defect = "server: sends KEX_ECDH_REPLY, never SSH_MSG_NEWKEYS"

	// Clients.
	cliMpint       defect = "client: K hashed as an mpint"
	cliPublicS2C   defect = "client: server-to-client keys from public data"
	cliNoMAC       defect = "client: takes packets whose MAC does not verify"
	cliSkipLength  defect = "client: S_REPLY at any length (zero-extended or truncated)"
	cliSkipZero    defect = "client: no all-zero check of the X25519 secret"
	cliNewKeysEarl defect = "client: SSH_MSG_NEWKEYS before it checks the signature, then aborts (allowed)"
	cliPipeline    defect = "client: SSH_MSG_USERAUTH_REQUEST without waiting for the accept (allowed)"
	cliPipeNoMAC   defect = "client: SSH_MSG_USERAUTH_REQUEST without waiting, and takes packets whose MAC does not verify"
	cliMACDiscon   defect = "client: waits for the accept, and answers a forged one with SSH_MSG_DISCONNECT under its keys (allowed)"
	cliSilentInit  defect = "client: negotiates the method, then never sends C_INIT"
	cliNoNewKeys   defect = "client: checks the reply, never sends SSH_MSG_NEWKEYS"
)

func (d defect) server() bool { return bytes.HasPrefix([]byte(d), []byte("server")) }

// simHostKey is a simulated server's host key, fresh on every call.
func simHostKey() ssh.AlgorithmSigner {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		panic(err)
	}
	return s.(ssh.AlgorithmSigner)
}

// simKexInit sends our KEXINIT and reads the peer's: the payloads and the
// peer's, parsed.
func simKexInit(c *conn, ki *sshwire.KexInit) (ours, theirs []byte, peer *sshwire.KexInit, ok bool) {
	ours = sshwire.AppendKexInit(nil, ki)
	if c.write(ours) != nil {
		return nil, nil, nil, false
	}
	ev := c.next(false)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexInit {
		return nil, nil, nil, false
	}
	peer, err := sshwire.ParseKexInit(ev.payload)
	return ours, ev.payload, peer, err == nil
}

// kAgrees reports whether string(d) and mpint(d) are the same bytes,
// from mpintOf (math/big), not the code under test.
func kAgrees(k []byte) bool { return bytes.Equal(mpintOf(k[4:]), k) }

// simServe runs one connection of a simulated server with defect d.
func simServe(nc net.Conn, d defect, key ssh.AlgorithmSigner) {
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	c := newConn(nc)
	if c.writeVersion("SSH-2.0-sim_server") != nil {
		return
	}
	vc, err := c.readVersion()
	if err != nil {
		return
	}
	kex := Methods()
	if d != srvNonStrict {
		kex = append(kex, strictServer)
	}
	ki := newKexInit(kex, []string{ssh.KeyAlgoED25519})
	ours, theirs, ci, ok := simKexInit(c, ki)
	if !ok {
		return
	}
	algs, err := negotiate(ci, ki)
	if err != nil {
		c.write(disconnectMsg(3, "no common algorithm"))
		return
	}
	m := lookupMethod(algs.kex)
	if d == srvSilent {
		io.Copy(io.Discard, nc) // whatever comes, until the checker gives up
		return
	}
	if ci.FirstKexFollows && (ci.KexAlgos[0] != algs.kex || ci.HostKeyAlgos[0] != algs.hostKey) {
		if c.next(algs.strict).kind != evPacket { // the wrong guess, ignored
			return
		}
	}
	tainted := false
	var qc []byte
	var ev event
	for qc == nil {
		ev = c.next(algs.strict)
		if ev.kind != evPacket {
			return
		}
		switch {
		case ev.payload[0] == sshwire.MsgKexECDHInit:
			if qc, err = sshwire.ParseKexECDHInit(ev.payload); err != nil {
				c.write(disconnectMsg(2, "bad SSH_MSG_KEX_ECDH_INIT"))
				return
			}
		case algs.strict && d == srvDeferred && ev.payload[0] == msgIgnore:
			tainted = true // answered anyway, refused at SSH_MSG_NEWKEYS (libssh's server)
		case algs.strict:
			return // strict key exchange: fatal
		default:
			c.write(binaryAppendSeq([]byte{msgUnimplemented}, c.readSeq-1))
		}
	}
	var h *serverHalf
	var k []byte
	for {
		if h, err = m.answer(qc); err != nil {
			c.write(disconnectMsg(3, "bad C_INIT"))
			return
		}
		k = m.combine(h.kPQ, h.kCL)
		if d != srvMpintGrind || kAgrees(k) {
			break
		}
	}
	defer h.wipe()
	if d == srvMpint || d == srvMpintGrind {
		k = mpintOf(k[4:])
	}
	qs := h.reply()
	if d == srvCompress && m.curve != "X25519" {
		n := (len(h.pub) - 1) / 2
		x, y := new(big.Int).SetBytes(h.pub[1:1+n]), new(big.Int).SetBytes(h.pub[1+n:])
		qs = append(append([]byte(nil), h.ct...), elliptic.MarshalCompressed(m.ellipticCurve(), x, y)...)
	}
	ks := key.PublicKey().Marshal()
	H := kexhash.ExchangeHash(m.hash, []byte(vc), []byte("SSH-2.0-sim_server"), theirs, ours, ks, qc, qs, k)
	sig, err := key.SignWithAlgorithm(rand.Reader, H, algs.hostKey)
	if err != nil {
		return
	}
	if c.write(sshwire.AppendKexECDHReply(nil, ks, qs, ssh.Marshal(sig))) != nil {
		return
	}
	if d == srvNoNewKeys {
		io.Copy(io.Discard, nc)
		return
	}
	sendNewKeys := func() bool { return simNewKeys(c, algs, m.hash, k, H, sshwire.ServerToClient) }
	if d != srvLateNewKey && !sendNewKeys() {
		return
	}
	if ev = c.next(algs.strict); ev.kind != evPacket || ev.payload[0] != msgNewKeys || tainted {
		return // a second SSH_MSG_KEX_ECDH_INIT under strict key exchange, or a tainted exchange
	}
	if d == srvLateNewKey && !sendNewKeys() {
		return
	}
	if algs.strict {
		c.readSeq = 0
	}
	if c.in, err = sshwire.NewPacketCipher(algs.cipherCS, algs.macCS, m.hash, k, H, H, sshwire.ClientToServer); err != nil {
		return
	}
	for {
		ev = c.next(false)
		switch {
		case ev.kind == evPacket && ev.payload[0] == msgServiceRequest,
			ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth) && d == srvNoDecrypt:
			if c.write(serviceAcceptMsg) != nil {
				return
			}
		case ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth):
			c.write(disconnectMsg(5, "MAC error"))
			return
		default:
			return
		}
	}
}

// binaryAppendSeq is SSH_MSG_UNIMPLEMENTED's body: the rejected packet's
// sequence number.
func binaryAppendSeq(p []byte, seq uint32) []byte {
	return append(p, byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq))
}

// simConnect runs one connection of a simulated client with defect d,
// offering kex.
func simConnect(nc net.Conn, d defect, kex []string, ident string) {
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	c := newConn(nc)
	if c.writeVersion(ident) != nil {
		return
	}
	vs, err := c.readVersion()
	if err != nil {
		return
	}
	ki := newKexInit(append(slices.Clone(kex), strictClient), clientHostKeyAlgos)
	ours, theirs, si, ok := simKexInit(c, ki)
	if !ok {
		return
	}
	algs, err := negotiate(ki, si)
	if err != nil {
		return
	}
	m := lookupMethod(algs.kex)
	if d == cliSilentInit {
		io.Copy(io.Discard, nc)
		return
	}
	ch, err := m.newClientHalf()
	if err != nil {
		return
	}
	qc := ch.init()
	if c.write(sshwire.AppendKexECDHInit(nil, qc)) != nil {
		return
	}
	ev := c.next(algs.strict)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHReply {
		return
	}
	hostKey, qs, sigBlob, err := sshwire.ParseKexECDHReply(ev.payload)
	if err != nil {
		return
	}
	want := m.ctSize + m.pointSize()
	use := qs
	switch {
	case d == cliSkipLength && len(qs) < want:
		use = append(slices.Clone(qs), make([]byte, want-len(qs))...)
	case d == cliSkipLength && len(qs) > want:
		use = qs[:want]
	case len(qs) != want:
		c.write(disconnectMsg(3, "bad S_REPLY length"))
		return
	}
	var kPQ, kCL []byte
	if d == cliSkipZero && m.x25519() {
		kCL, err = curve25519.X25519(ch.priv.Bytes(), use[m.ctSize:])
		if err != nil { // low order: what a client without the check computes
			kCL = make([]byte, 32)
		}
		if kPQ, err = ch.decaps(use[:m.ctSize]); err != nil {
			return
		}
	} else if kPQ, kCL, err = ch.finish(use); err != nil {
		c.write(disconnectMsg(3, "bad S_REPLY"))
		return
	}
	k := m.combine(kPQ, kCL)
	if d == cliMpint {
		k = mpintOf(k[4:])
	}
	H := kexhash.ExchangeHash(m.hash, []byte(ident), []byte(vs), ours, theirs, hostKey, qc, qs, k)
	newKeys := func() bool { return simNewKeys(c, algs, m.hash, k, H, sshwire.ClientToServer) }
	if d == cliNewKeysEarl && !newKeys() {
		return
	}
	if verifyHostSignature(algs.hostKey, hostKey, sigBlob, H) != nil {
		c.write(disconnectMsg(3, "bad signature")) // under the new keys if SSH_MSG_NEWKEYS went first
		return
	}
	if d == cliNoNewKeys {
		io.Copy(io.Discard, nc)
		return
	}
	if d != cliNewKeysEarl && !newKeys() {
		return
	}
	if ev = c.next(algs.strict); ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		return
	}
	if algs.strict {
		c.readSeq = 0
	}
	inK := k
	if d == cliPublicS2C {
		inK = kexhash.String(H) // public: H is known to anyone who saw the transcript
	}
	if c.in, err = sshwire.NewPacketCipher(algs.cipherSC, algs.macSC, m.hash, inK, H, H, sshwire.ServerToClient); err != nil {
		return
	}
	if c.write(serviceRequestMsg) != nil {
		return
	}
	auth := sshwire.AppendString([]byte{msgUserAuthRequest}, []byte("sim"))
	auth = sshwire.AppendString(auth, []byte("ssh-connection"))
	auth = sshwire.AppendString(auth, []byte("none"))
	pipeline := d == cliPipeline || d == cliPipeNoMAC
	if pipeline && c.write(auth) != nil {
		return
	}
	ev = c.next(false)
	forged := ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth)
	if forged && d == cliMACDiscon {
		// The disconnect goes under the new keys (RFC 4253 §7.3),
		// with reason MAC_ERROR (RFC 4253 §11.1).
		c.write(disconnectMsg(5, "MAC error"))
		return
	}
	accepted := ev.kind == evPacket && ev.payload[0] == msgServiceAccept || (d == cliNoMAC || d == cliPipeNoMAC) && forged
	if !accepted {
		return
	}
	if !pipeline && c.write(auth) != nil {
		return
	}
	for c.next(false).kind == evPacket {
	}
}

// simServer listens on loopback and serves every connection with defect
// d until the test ends; it returns the address.
func simServer(t testing.TB, d defect) string {
	ln, err := listenSim(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// listenSim listens on loopback and serves every connection with defect
// d until the listener is closed.
func listenSim(d defect) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	key := simHostKey()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go simServe(nc, d, key)
		}
	}()
	return ln, nil
}

// simIdent is the simulated client's identification line.
const simIdent = "SSH-2.0-sim_client"

// simClients connects simulated clients with defect d, offering kex and
// identifying as ident, to addr one after the other until stop is closed,
// waiting pause between a connection's end and the next one's start.
func simClients(addr string, d defect, kex []string, ident string, pause time.Duration, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		simConnect(nc, d, kex, ident)
		if pause > 0 {
			select {
			case <-stop:
				return
			case <-time.After(pause):
			}
		}
	}
}

// simNewKeys sends SSH_MSG_NEWKEYS on c and switches its output to the
// keys of direction dir from k and H (the sequence number restarting under
// strict key exchange), as both simulated peers do; false if either fails.
func simNewKeys(c *conn, algs algorithms, h crypto.Hash, k, H []byte, dir sshwire.Direction) bool {
	if c.write([]byte{msgNewKeys}) != nil {
		return false
	}
	if algs.strict {
		c.writeSeq = 0
	}
	cipher, mac := algs.cipherSC, algs.macSC
	if dir == sshwire.ClientToServer {
		cipher, mac = algs.cipherCS, algs.macCS
	}
	var err error
	c.out, err = sshwire.NewPacketCipher(cipher, mac, h, k, H, H, dir)
	return err == nil
}
