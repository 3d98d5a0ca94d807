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
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"io"
	"math/big"
	"net"
	"slices"
	"strings"
	"sync"
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
	srvLenSent    defect = "server: C_INIT at any length, zero-extended or truncated, and hashed as sent"
	srvLenUsed    defect = "server: C_INIT at any length, zero-extended or truncated, and hashed as it used it"
	srvRekeyNewH  defect = "server: a re-exchange's keys derived with its own H as session identifier"
	srvNoPreauth  defect = "server: SSH_MSG_KEXINIT before user authentication answered with SSH_MSG_UNIMPLEMENTED (OpenSSH's sshd)"
	srvReuseKey   defect = "server: one X25519 / ECDH key for every connection (not judged: no case checks that keys are ephemeral)"
	srvDropZeroCL defect = "server: one X25519 / ECDH key for every connection, and K_CL's leading zero bytes dropped before hashing"
	srvDropZeroPQ defect = "server: K_PQ's leading zero bytes dropped before hashing; its encapsulations drawn until K_PQ starts with 00"
	srvSilent     defect = "server: negotiates the method, then never answers C_INIT (tailscale#20047)"
	srvNoNewKeys  defect = "server: sends KEX_ECDH_REPLY, never SSH_MSG_NEWKEYS"

	// srvAuth*, as OpenSSH's sshd: SSH_MSG_EXT_INFO with server-sig-algs
	// after its SSH_MSG_NEWKEYS, no re-exchange before user
	// authentication, publickey authentication of simIdentities (RSA
	// with rsa-sha2-256 only, the one server-sig-algs lists) answered
	// past a banner, then hostkeys-00@openssh.com, and a re-exchange
	// after it.
	srvAuthRekey     defect = "server: no re-exchange before user authentication; publickey authentication, then a correct re-exchange"
	srvAuthRekeyNewH defect = "server: no re-exchange before user authentication; publickey authentication, then a re-exchange's keys derived with its own H"
	srvAuthRefused   defect = "server: no re-exchange before user authentication; check's identity is not authorized"
	srvAuthTiny      defect = "server: no re-exchange before user authentication; global requests answered with SSH_MSG_UNIMPLEMENTED naming the next number, the first after a re-exchange only once another packet comes (tinysshd)"
	srvMACDrop       defect = "server: drops a packet whose MAC does not verify, and neither answers nor ends the connection"

	// Clients.
	cliMpint       defect = "client: K hashed as an mpint"
	cliPublicS2C   defect = "client: server-to-client keys from public data"
	cliNoMAC       defect = "client: takes packets whose MAC does not verify"
	cliSkipLength  defect = "client: S_REPLY at any length (zero-extended or truncated)"
	cliSkipZero    defect = "client: no all-zero check of the X25519 secret"
	cliLenUsed     defect = "client: S_REPLY at any length, zero-extended or truncated, and hashed as it used it"
	cliDropZeroPQ  defect = "client: K_PQ's leading zero bytes dropped before hashing"
	cliDropZeroCL  defect = "client: K_CL's leading zero bytes dropped before hashing"
	cliRekeyNewH   defect = "client: a re-exchange's keys derived with its own H as session identifier"
	cliNewKeysEarl defect = "client: SSH_MSG_NEWKEYS before it checks the signature, then aborts (allowed)"
	cliPipeline    defect = "client: SSH_MSG_USERAUTH_REQUEST without waiting for the accept (allowed)"
	cliPipeNoMAC   defect = "client: SSH_MSG_USERAUTH_REQUEST without waiting, and takes packets whose MAC does not verify"
	cliMACDiscon   defect = "client: waits for the accept, and answers a forged one with SSH_MSG_DISCONNECT under its keys (allowed)"
	cliMACDrop     defect = "client: waits for the accept, drops a forged one and waits on, neither answering nor ending the connection"
	cliPipeMACDrop defect = "client: SSH_MSG_USERAUTH_REQUEST without waiting, drops a forged packet and waits on"
	cliSilentInit  defect = "client: negotiates the method, then never sends C_INIT"
	cliNoNewKeys   defect = "client: checks the reply, never sends SSH_MSG_NEWKEYS"
	cliLeaves      defect = "client: once authenticated, ends the connection with SSH_MSG_DISCONNECT 11, as a client that is done does"
)

func (d defect) server() bool { return bytes.HasPrefix([]byte(d), []byte("server")) }

// authFirst: a server that takes no re-exchange before user
// authentication and lets simIdentities in (but srvAuthRefused).
func (d defect) authFirst() bool {
	return d == srvAuthRekey || d == srvAuthRekeyNewH || d == srvAuthRefused || d == srvAuthTiny
}

// simIdentities are the identities the simulated servers let in (but
// srvAuthRefused), by key type: made once, for check to authenticate
// with in the case rekey.
var simIdentities = sync.OnceValue(func() map[string]ssh.Signer {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	ids := map[string]ssh.Signer{}
	for _, k := range []any{ed, rk} {
		s, err := ssh.NewSignerFromKey(k)
		if err != nil {
			panic(err)
		}
		ids[s.PublicKey().Type()] = s
	}
	return ids
})

// simUser is the user the simulated servers let in.
const simUser = "sim"

// simSigAlgs is the server-sig-algs of srvAuthRekey and the like (RSA
// with SHA-256 only, so that a client that signs rsa-sha2-512 without
// reading the list is refused).
var simSigAlgs = []string{ssh.KeyAlgoED25519, ssh.KeyAlgoRSASHA256}

// simExtInfo is SSH_MSG_EXT_INFO with server-sig-algs simSigAlgs (RFC
// 8308 §2.3), written out here.
func simExtInfo() []byte {
	p := []byte{msgExtInfo, 0, 0, 0, 1}
	p = sshwire.AppendString(p, []byte("server-sig-algs"))
	return sshwire.AppendString(p, []byte(strings.Join(simSigAlgs, ",")))
}

// simUserAuth checks the SSH_MSG_USERAUTH_REQUEST p as a server that
// lets simUser in with simIdentities does (RFC 4252 §7, read here from
// its fields, not the code under test): publickey, signed, a key of
// simIdentities (none with srvAuthRefused) with an algorithm of
// simSigAlgs for RSA, and the signature over the session identifier
// and the request verifying.
func simUserAuth(d defect, p, sessionID []byte) bool {
	var req struct {
		User, Service, Method string
		HasSig                bool
		Algo                  string
		Blob, Sig             []byte
	}
	rest := p[1:] // p[0] is 50, SSH_MSG_USERAUTH_REQUEST
	for _, f := range []*string{&req.User, &req.Service, &req.Method} {
		v, r, err := sshwire.ReadString(rest, "field")
		if err != nil {
			return false
		}
		*f, rest = string(v), r
	}
	if req.Method != "publickey" || len(rest) < 1 || rest[0] != 1 {
		return false
	}
	algo, rest, err := sshwire.ReadString(rest[1:], "algorithm")
	if err != nil {
		return false
	}
	req.Algo = string(algo)
	if req.Blob, rest, err = sshwire.ReadString(rest, "key"); err != nil {
		return false
	}
	if req.Sig, rest, err = sshwire.ReadString(rest, "signature"); err != nil || len(rest) != 0 {
		return false
	}
	known := false
	for _, id := range simIdentities() {
		known = known || bytes.Equal(id.PublicKey().Marshal(), req.Blob)
	}
	if !known || d == srvAuthRefused || req.User != simUser || req.Service != "ssh-connection" {
		return false
	}
	pub, err := ssh.ParsePublicKey(req.Blob)
	if err != nil || pub.Type() == ssh.KeyAlgoRSA && !slices.Contains(simSigAlgs, req.Algo) || pub.Type() != ssh.KeyAlgoRSA && req.Algo != pub.Type() {
		return false
	}
	var sig ssh.Signature
	if ssh.Unmarshal(req.Sig, &sig) != nil || sig.Format != req.Algo {
		return false
	}
	signed := sshwire.AppendString(nil, sessionID)
	signed = sshwire.AppendString(append(signed, msgUserAuthRequest), []byte(req.User))
	signed = sshwire.AppendString(signed, []byte(req.Service))
	signed = sshwire.AppendString(signed, []byte("publickey"))
	signed = sshwire.AppendString(append(signed, 1), []byte(req.Algo))
	signed = sshwire.AppendString(signed, req.Blob)
	return pub.Verify(signed, &sig) == nil
}

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
	use := qc // the C_INIT the server computes with
	if want := m.ekSize + m.pointSize(); (d == srvLenSent || d == srvLenUsed) && len(qc) != want {
		use = append(slices.Clone(qc), make([]byte, max(0, want-len(qc)))...)[:want]
	}
	var h *serverHalf
	var k []byte
	for {
		z := zerosWant{}
		if d == srvDropZeroPQ {
			z.pq = 1 // so that every exchange shows the defect (the soak's first)
		}
		if h, err = m.answerZeros(use, z); err != nil {
			c.write(disconnectMsg(3, "bad C_INIT"))
			return
		}
		if d == srvReuseKey || d == srvDropZeroCL {
			if !simReuse(h, m, use) {
				return
			}
		}
		k = m.combine(h.kPQ, h.kCL)
		switch d {
		case srvDropZeroPQ:
			k = m.combine(h.kPQ[leadingZeroCount(h.kPQ):], h.kCL)
		case srvDropZeroCL:
			k = m.combine(h.kPQ, h.kCL[leadingZeroCount(h.kCL):])
		}
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
	hashed := qc
	if d == srvLenUsed {
		hashed = use
	}
	H := kexhash.ExchangeHash(m.hash, []byte(vc), []byte("SSH-2.0-sim_server"), theirs, ours, ks, hashed, qs, k)
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
	if d.authFirst() && slices.Contains(ci.KexAlgos, "ext-info-c") && c.write(simExtInfo()) != nil {
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
	authed := false
	unimplemented := func() bool { return c.write(binaryAppendSeq([]byte{msgUnimplemented}, c.readSeq-1)) == nil }
	for {
		ev = c.next(false)
		switch {
		case ev.kind == evPacket && ev.payload[0] == sshwire.MsgKexInit && !authed && (d == srvNoPreauth || d.authFirst()):
			// Not before user authentication: as OpenSSH's
			// dispatch_protocol_error.
			if !unimplemented() {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == sshwire.MsgKexInit: // a re-exchange the client starts
			if !simRekeyServer(c, d, m, algs.strict, vc, key, ev.payload, H) {
				return
			}
			if d == srvAuthTiny && !simHoldFirst(c) {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == msgServiceRequest,
			ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth) && d == srvNoDecrypt:
			if c.write(serviceAcceptMsg) != nil {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == msgUserAuthRequest && !authed:
			if !simUserAuth(d, ev.payload, H) {
				if c.write(append(sshwire.AppendString([]byte{msgUserAuthFailure}, []byte("publickey")), 0)) != nil {
					return
				}
				continue
			}
			authed = true
			banner := sshwire.AppendString(sshwire.AppendString([]byte{msgUserAuthBanner}, []byte("sim\r\n")), nil)
			hostkeys := append(sshwire.AppendString([]byte{msgGlobalRequest}, []byte("hostkeys-00@openssh.com")), 0)
			hostkeys = sshwire.AppendString(hostkeys, key.PublicKey().Marshal())
			if c.write(banner) != nil || c.write([]byte{msgUserAuthSuccess}) != nil || c.write(hostkeys) != nil {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == msgGlobalRequest && d == srvAuthTiny:
			// As tinysshd's packet_unimplemented.c: the number named
			// is the next one, not the rejected packet's.
			if c.write(binaryAppendSeq([]byte{msgUnimplemented}, c.readSeq)) != nil {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == msgGlobalRequest:
			if globalRequestWantsReply(ev.payload) && c.write([]byte{msgRequestFailure}) != nil {
				return
			}
		case ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth) && d == srvMACDrop:
			// Dropped: no answer, no end of the connection.
		case ev.kind == evMalformed: // a MAC that fails, or a length that does not decrypt (OpenSSH says so too)
			c.write(disconnectMsg(5, "MAC error"))
			return
		default:
			return
		}
	}
}

// simReused are the simulated servers' classical keys that serve every
// connection (srvReuseKey, srvDropZeroCL), by curve.
var simReused sync.Map // curve name → *ecdh.PrivateKey

// simReuse replaces h's classical key with the curve's reused one, and
// its secret with the one that key gives with the client's C_INIT.
func simReuse(h *serverHalf, m *method, clientInit []byte) bool {
	fresh, err := m.ecdhCurve().GenerateKey(rand.Reader)
	if err != nil {
		return false
	}
	v, _ := simReused.LoadOrStore(m.curve, fresh)
	priv := v.(*ecdh.PrivateKey)
	peer, err := m.ecdhCurve().NewPublicKey(m.uncompressed(clientInit[m.ekSize:]))
	if err != nil {
		return false
	}
	kCL, err := priv.ECDH(peer)
	if err != nil {
		return false
	}
	clear(h.kCL)
	h.priv, h.kCL, h.pub = priv, kCL, priv.PublicKey().Bytes()
	return true
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
	case (d == cliSkipLength || d == cliLenUsed) && len(qs) < want:
		use = append(slices.Clone(qs), make([]byte, want-len(qs))...)
	case (d == cliSkipLength || d == cliLenUsed) && len(qs) > want:
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
	switch d {
	case cliDropZeroPQ: // as an mpint drops them (Erlang OTP 28.4-29.0 did so to K_CL)
		kPQ = kPQ[leadingZeroCount(kPQ):]
	case cliDropZeroCL:
		kCL = kCL[leadingZeroCount(kCL):]
	}
	if d == cliDropZeroPQ || d == cliDropZeroCL {
		k = m.combine(kPQ, kCL)
	}
	if d == cliMpint {
		k = mpintOf(k[4:])
	}
	hashed := qs
	if d == cliLenUsed {
		hashed = use
	}
	H := kexhash.ExchangeHash(m.hash, []byte(ident), []byte(vs), ours, theirs, hostKey, qc, hashed, k)
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
	pipeline := d == cliPipeline || d == cliPipeNoMAC || d == cliPipeMACDrop
	if pipeline && c.write(auth) != nil {
		return
	}
	// The server's answers: the accept (answered with the request unless
	// it went already), a re-exchange it starts (answered), a failed
	// authentication (answered by a re-exchange of ours, once, as
	// x/crypto's client starts one after Config.RekeyThreshold bytes,
	// then the request again); the connection's end ends it.
	sessionID, rekeyed := H, false
	for {
		ev = c.next(false)
		forged := ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth)
		switch {
		case d == cliLeaves && ev.kind == evPacket && ev.payload[0] == msgUserAuthSuccess:
			c.write(disconnectMsg(11, "disconnected by user"))
			return
		case forged && d == cliMACDiscon:
			// The disconnect goes under the new keys (RFC 4253 §7.3),
			// with reason MAC_ERROR (RFC 4253 §11.1).
			c.write(disconnectMsg(5, "MAC error"))
			return
		case ev.kind == evPacket && ev.payload[0] == msgServiceAccept, d == cliNoMAC && forged:
			if !pipeline && c.write(auth) != nil {
				return
			}
		case d == cliPipeNoMAC && forged:
			// Taken as what check forges for a client that did not wait
			// for the accept: a global request that wants a reply.
			if c.write([]byte{msgRequestFailure}) != nil {
				return
			}
		case forged && (d == cliMACDrop || d == cliPipeMACDrop):
			// Dropped: no answer, no end of the connection.
		case ev.kind == evPacket && ev.payload[0] == msgGlobalRequest:
			if globalRequestWantsReply(ev.payload) && c.write([]byte{msgRequestFailure}) != nil {
				return
			}
		case ev.kind == evPacket && ev.payload[0] == sshwire.MsgKexInit:
			if !simRekeyClient(c, d, m, algs.strict, ident, vs, ev.payload, sessionID) {
				return
			}
			rekeyed = true
		case ev.kind == evPacket && ev.payload[0] == msgUserAuthFailure:
			if !rekeyed && !simRekeyClient(c, d, m, algs.strict, ident, vs, nil, sessionID) {
				return
			}
			rekeyed = true
			if c.write(auth) != nil {
				return
			}
		case ev.kind == evPacket:
		case ev.kind == evMalformed && !forged: // a length that does not decrypt: other keys than ours
			c.write(disconnectMsg(2, "bad packet length"))
			return
		default:
			return
		}
	}
}

// simHoldFirst reads the first packet after a re-exchange and answers it
// only once another packet has come, as tinysshd answers a packet it
// read together with the client's SSH_MSG_NEWKEYS: a global request with
// SSH_MSG_UNIMPLEMENTED naming the next number (srvAuthTiny).
func simHoldFirst(c *conn) bool {
	p, err := c.read()
	if err != nil {
		return false
	}
	named := c.readSeq
	if _, err := c.read(); err != nil {
		return false
	}
	return p[0] != msgGlobalRequest || c.write(binaryAppendSeq([]byte{msgUnimplemented}, named)) == nil
}

// simRekeyServer runs a re-exchange the client started with its
// SSH_MSG_KEXINIT clientKI as a simulated server: its own KEXINIT, an
// honest reply signed over the second H, SSH_MSG_NEWKEYS both ways (the
// sequence numbers restarting under strict key exchange, OpenSSH
// PROTOCOL §1.10 b), and the second keys with sessionID as session
// identifier, or the second H with srvRekeyNewH.
func simRekeyServer(c *conn, d defect, m *method, strict bool, vc string, key ssh.AlgorithmSigner, clientKI, sessionID []byte) bool {
	ki := newKexInit([]string{m.name}, []string{ssh.KeyAlgoED25519})
	ours := sshwire.AppendKexInit(nil, ki)
	if c.write(ours) != nil {
		return false
	}
	ci, err := sshwire.ParseKexInit(clientKI)
	if err != nil {
		return false
	}
	algs, err := negotiate(ci, ki)
	if err != nil {
		return false
	}
	ev := c.next(false)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHInit {
		return false
	}
	qc, err := sshwire.ParseKexECDHInit(ev.payload)
	if err != nil {
		return false
	}
	h, err := m.answer(qc)
	if err != nil {
		return false
	}
	defer h.wipe()
	k := m.combine(h.kPQ, h.kCL)
	ks, qs := key.PublicKey().Marshal(), h.reply()
	H := kexhash.ExchangeHash(m.hash, []byte(vc), []byte("SSH-2.0-sim_server"), clientKI, ours, ks, qc, qs, k)
	sig, err := key.SignWithAlgorithm(rand.Reader, H, algs.hostKey)
	if err != nil || c.write(sshwire.AppendKexECDHReply(nil, ks, qs, ssh.Marshal(sig))) != nil {
		return false
	}
	if d == srvRekeyNewH || d == srvAuthRekeyNewH {
		sessionID = H
	}
	return simRekeyKeys(c, algs, m, strict, k, H, sessionID, sshwire.ServerToClient)
}

// simRekeyClient runs a re-exchange as a simulated client: its
// SSH_MSG_KEXINIT (in answer to the server's serverKI, or first, then
// the server's, past what is in flight), an honest exchange whose reply
// must verify over the second H, SSH_MSG_NEWKEYS both ways, and the
// second keys with sessionID as session identifier, or the second H with
// cliRekeyNewH.
func simRekeyClient(c *conn, d defect, m *method, strict bool, ident, vs string, serverKI, sessionID []byte) bool {
	ki := newKexInit([]string{m.name}, clientHostKeyAlgos)
	ours := sshwire.AppendKexInit(nil, ki)
	if c.write(ours) != nil {
		return false
	}
	for range 16 {
		if serverKI != nil {
			break
		}
		ev := c.next(false)
		if ev.kind != evPacket {
			return false
		}
		if ev.payload[0] == sshwire.MsgKexInit {
			serverKI = ev.payload
		}
	}
	si, err := sshwire.ParseKexInit(serverKI)
	if err != nil {
		return false
	}
	algs, err := negotiate(ki, si)
	if err != nil {
		return false
	}
	ch, err := m.newClientHalf()
	if err != nil {
		return false
	}
	qc := ch.init()
	if c.write(sshwire.AppendKexECDHInit(nil, qc)) != nil {
		return false
	}
	ev := c.next(false)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHReply {
		return false
	}
	hostKey, qs, sigBlob, err := sshwire.ParseKexECDHReply(ev.payload)
	if err != nil {
		return false
	}
	kPQ, kCL, err := ch.finish(qs)
	if err != nil {
		return false
	}
	k := m.combine(kPQ, kCL)
	H := kexhash.ExchangeHash(m.hash, []byte(ident), []byte(vs), ours, serverKI, hostKey, qc, qs, k)
	if verifyHostSignature(algs.hostKey, hostKey, sigBlob, H) != nil {
		c.write(disconnectMsg(3, "bad signature"))
		return false
	}
	if d == cliRekeyNewH {
		sessionID = H
	}
	return simRekeyKeys(c, algs, m, strict, k, H, sessionID, sshwire.ClientToServer)
}

// simRekeyKeys ends a simulated peer's re-exchange: its SSH_MSG_NEWKEYS
// (out being its own direction), the other's, and the keys of K, H and
// sessionID both ways, the sequence numbers restarting with strict.
func simRekeyKeys(c *conn, algs algorithms, m *method, strict bool, k, H, sessionID []byte, out sshwire.Direction) bool {
	in := sshwire.ClientToServer
	outCipher, outMAC, inCipher, inMAC := algs.cipherSC, algs.macSC, algs.cipherCS, algs.macCS
	if out == sshwire.ClientToServer {
		in = sshwire.ServerToClient
		outCipher, outMAC, inCipher, inMAC = inCipher, inMAC, outCipher, outMAC
	}
	if c.write([]byte{msgNewKeys}) != nil {
		return false
	}
	if strict {
		c.writeSeq = 0
	}
	var err error
	if c.out, err = sshwire.NewPacketCipher(outCipher, outMAC, m.hash, k, H, sessionID, out); err != nil {
		return false
	}
	if ev := c.next(false); ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		return false
	}
	if strict {
		c.readSeq = 0
	}
	c.in, err = sshwire.NewPacketCipher(inCipher, inMAC, m.hash, k, H, sessionID, in)
	return err == nil
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

// leadingZeroCount is the number of zero bytes b starts with, written
// here rather than taken from the code under test.
func leadingZeroCount(b []byte) int {
	n := 0
	for n < len(b) && b[n] == 0 {
		n++
	}
	return n
}
