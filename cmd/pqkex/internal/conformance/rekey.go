package conformance

// Key re-exchange (RFC 4253 §9): after a first exchange with the method
// under test, a second one with the same method, and proof, both ways,
// that the peer derived the second keys with the first exchange's H as
// session identifier (RFC 4253 §7.2: "The exchange hash H from the first
// key exchange is additionally used as the session identifier ... Once
// computed, the session identifier is not changed, even if keys are
// later re-exchanged"; §9: "Re-exchange is processed identically to the
// initial key exchange, except for the session identifier that will
// remain unchanged"): the next packet each way authenticates under them.
// When the peer's does not, it is tried under the keys a peer may have
// derived instead (the new H as session identifier, the other
// convention of sequence numbers), so that the detail can name the
// mistake.
//
// Sequence numbers: strict key exchange (OpenSSH's PROTOCOL §1.10) has
// two rules. a), "During initial KEX, terminate the connection if
// out-of-sequence packet or any message that is not strictly required
// by KEX is received", is for the first exchange only: in a re-exchange
// SSH_MSG_IGNORE and SSH_MSG_DEBUG are skipped as at any other time, and
// packets in flight are taken (RFC 4253 §7.1: "each party MUST be
// prepared to process an arbitrary number of messages that may be
// in-flight before receiving a SSH_MSG_KEXINIT message from the other
// party"). b), "After sending or receiving a SSH2_MSG_NEWKEYS message,
// reset the packet sequence number to zero. This behaviour persists for
// the duration of the connection (i.e. not just the first
// SSH2_MSG_NEWKEYS)", holds at the re-exchange's SSH_MSG_NEWKEYS too: so
// the numbers restart at 0 there when strict key exchange was negotiated
// in the first exchange, and run on otherwise (RFC 4253 §6.4). The
// strict key exchange markers are not sent again ("only valid in the
// initial SSH2_MSG_KEXINIT").

import (
	"bytes"
	"crypto"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
)

// rekeyClause is where the cases of a re-exchange rest.
const rekeyClause = "RFC 4253 §7.2, §9"

// maxInFlight bounds the packets taken while waiting for a message in a
// re-exchange (the deadline bounds the time).
const maxInFlight = 16

// keying is one direction's packet protection after a re-exchange, as
// RFC 4253 §7.2 derives it or as a peer may have derived it instead.
type keying struct {
	what    string // how it was derived, for details ("" for the right one)
	finding string // the finding of a peer that keyed so
	cipher  sshwire.PacketCipher
	seq     uint32 // the sequence number of the first packet under it
}

// rekeyedIn returns the protection of the packets c receives in
// direction dir after a re-exchange that gave k and H, the first
// exchange's H being sessionID, and the wrong ones a peer may have used;
// strict says whether strict key exchange was negotiated first, so that
// the sequence number restarts at 0. c.readSeq is set to it.
func rekeyedIn(c *conn, algs algorithms, h crypto.Hash, k, H, sessionID []byte, dir sshwire.Direction, strict bool) ([]keying, error) {
	cipher, mac := algs.cipherSC, algs.macSC
	if dir == sshwire.ClientToServer {
		cipher, mac = algs.cipherCS, algs.macCS
	}
	right, other := c.readSeq, uint32(0)
	otherWhat := "sequence numbers reset to 0, which only strict key exchange does (it was not negotiated)"
	if strict {
		right, other = 0, c.readSeq
		otherWhat = fmt.Sprintf("sequence numbers not reset (%d), though strict key exchange resets them at every SSH_MSG_NEWKEYS (OpenSSH PROTOCOL §1.10 b)", c.readSeq)
	}
	pc, err := c.cipher(algs, h, k, H, sessionID, dir) // recorded in a transcript
	if err != nil {
		return nil, err
	}
	ks := []keying{{cipher: pc, seq: right}}
	for _, v := range []struct {
		what, finding string
		sid           []byte
		seq           uint32
	}{
		{"keys derived with the re-exchange's H as session identifier", "rekey-session-id", H, right},
		{otherWhat, "rekey", sessionID, other},
		{"keys derived with the re-exchange's H as session identifier, and " + otherWhat, "rekey-session-id", H, other},
	} {
		pc, err := sshwire.NewPacketCipher(cipher, mac, h, k, H, v.sid, dir)
		if err != nil {
			return nil, err
		}
		ks = append(ks, keying{what: v.what, finding: v.finding, cipher: pc, seq: v.seq})
	}
	c.readSeq = right
	c.in = ks[0].cipher
	return ks, nil
}

// rekeyedOut switches c's output to direction dir's protection after a
// re-exchange (the sequence number restarting under strict key
// exchange).
func rekeyedOut(c *conn, algs algorithms, h crypto.Hash, k, H, sessionID []byte, dir sshwire.Direction, strict bool) error {
	pc, err := c.cipher(algs, h, k, H, sessionID, dir)
	if err != nil {
		return err
	}
	if strict {
		c.writeSeq = 0
	}
	c.out = pc
	return nil
}

// nextRekeyed is c.next(false) for the first packet after a re-exchange,
// whose protections are ks (ks[0] installed). When that packet does not
// open, it is opened under the others, on the same bytes; the keying
// that opens it is returned with what it carried (nil: none did, or it
// opened under the right one).
func nextRekeyed(c *conn, ks []keying) (event, *keying) {
	keep := c.src.keep
	c.src.keep = true // the bytes of a packet that does not open, to open again
	defer func() { c.src.keep = keep }()
	seq := c.readSeq
	ev := c.next(false)
	if ev.kind != evMalformed || c.readSeq != seq+1 || c.torn != nil {
		return ev, nil // decided, or not on the first packet
	}
	seen := slices.Clone(c.src.kept)
	for i := range ks[1:] {
		k := &ks[1+i]
		c.src.reset()
		p, err := k.cipher.Open(io.MultiReader(bytes.NewReader(seen), &c.src), k.seq)
		seen = append(seen, c.src.kept...)
		if err != nil || len(p) == 0 {
			continue
		}
		if c.rec != nil {
			c.rec.packet('<', k.seq, true, p, ", opened under "+k.what)
		}
		if p[0] == msgDisconnect {
			if reason, text, err := parseDisconnect(p); err == nil {
				return event{kind: evDisconnect, reason: reason, text: text}, k
			}
		}
		return event{kind: evPacket, payload: p}, k
	}
	return ev, nil
}

// rekeyFailure records in r that the first packet after a re-exchange
// (what: whose, which) did not open under the right keys but under k's,
// naming the mistake and its finding; with k nil, it says what came.
func rekeyFailure(r *Result, what string, ev event, k *keying) {
	r.Verdict = Failed
	if k == nil {
		r.Detail = what + " was " + describe(ev)
		return
	}
	r.Finding = k.finding
	r.Detail = fmt.Sprintf("%s (%s) does not authenticate under the keys RFC 4253 §7.2 derives (the first exchange's H as session identifier), "+
		"but under %s", what, describe(ev), k.what)
}

// --- pqkex check as the client: the case rekey of a server.

// runRekey runs an honest exchange, then starts a second one with the
// same method: our SSH_MSG_KEXINIT under the first keys, the server's in
// answer (RFC 4253 §9: "a party MUST respond with its own SSH_MSG_KEXINIT
// message"), an honest exchange whose reply's host key signature must
// verify over the second H, both SSH_MSG_NEWKEYS, then a packet under
// the second keys that the server must answer under them: it decrypted
// and authenticated ours under the client-to-server keys, and its answer
// authenticates under the server-to-client ones.
//
// With an identity (ServerOptions.Identity), check first authenticates
// (userauth.go) and re-exchanges after user authentication, where every
// server must take a re-exchange; the packet is SSH_MSG_GLOBAL_REQUEST
// keepalive@openssh.com with want reply (RFC 4254 §4), answered by
// SSH_MSG_REQUEST_SUCCESS or _FAILURE (or SSH_MSG_UNIMPLEMENTED naming
// it, RFC 4253 §11.4, from a server that takes no global request).
// Without one it starts the re-exchange right after both SSH_MSG_NEWKEYS,
// and the packet is SSH_MSG_SERVICE_REQUEST, answered by
// SSH_MSG_SERVICE_ACCEPT; a server that takes no re-exchange before user
// authentication is the finding rekey-preauth.
func runRekey(ss *session, m *method, r *Result) {
	k1, ok := honestKex(ss, m, r)
	if !ok {
		if r.Finding != silentFinding { // silence is this case's finding too
			r.Verdict, r.Detail = NotRun, "the first exchange did not complete (see the honest case): "+r.Detail
		}
		return
	}
	clear(k1)
	authed, how := ss.identity != nil, ""
	if authed {
		if how, ok = authenticate(ss, r); !ok {
			return
		}
	}
	sessionID := ss.sessionID
	strict := ss.algs.strict
	ki := newKexInit([]string{m.name}, clientHostKeyAlgos)
	ours := sshwire.AppendKexInit(nil, ki)
	if !send(ss, r, ours) {
		return
	}
	// The server's SSH_MSG_KEXINIT, past what it may have sent before it:
	// SSH_MSG_EXT_INFO after its SSH_MSG_NEWKEYS (RFC 8308 §2.4) and,
	// once we are authenticated, global requests such as OpenSSH's
	// hostkeys-00@openssh.com (RFC 4253 §7.1: messages in flight). One
	// that wants a reply is answered after our SSH_MSG_NEWKEYS (§7.1
	// allows us only transport and key exchange messages until then).
	var ev event
	wantReplies := 0
	for range maxInFlight {
		ev = ss.c.next(false)
		if ev.kind != evPacket {
			break
		}
		if ev.payload[0] == msgGlobalRequest && authed {
			if globalRequestWantsReply(ev.payload) {
				wantReplies++
			}
			continue
		}
		if ev.payload[0] != msgExtInfo {
			break
		}
	}
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexInit {
		decide(r, ev, 0)
		if authed {
			r.Detail = "after user authentication, our SSH_MSG_KEXINIT got " + r.Detail + ", not the server's SSH_MSG_KEXINIT " +
				"(RFC 4253 §9: \"When this message is received, a party MUST respond with its own SSH_MSG_KEXINIT message\")"
			return
		}
		// OpenSSH, libssh and tinysshd take no SSH_MSG_KEXINIT during
		// user authentication, which check cannot get past without an
		// identity: a finding of its own, which leaves the session
		// identifier of a re-exchange unchecked.
		if r.Verdict != Malformed {
			r.Finding = "rekey-preauth"
		}
		r.Detail = "our SSH_MSG_KEXINIT, sent after a first exchange and before user authentication, got " + r.Detail +
			", not the server's SSH_MSG_KEXINIT (RFC 4253 §9: \"When this message is received, a party MUST respond with its own " +
			"SSH_MSG_KEXINIT message\"): whether the server keeps the first H as session identifier could not be checked " +
			"(with a user and identity the server accepts, -user and -identity, check re-exchanges after user authentication)"
		return
	}
	ks, algs, ok := clientReexchange(ss, m, r, ki, ours, ev.payload, sessionID, strict)
	if !ok {
		return
	}
	if authed {
		proveAfterAuth(ss, m, r, ks, algs, wantReplies, how)
	} else {
		proveBeforeAuth(ss, m, r, ks, algs)
	}
}

// proveBeforeAuth decides rekey without an identity, after the
// re-exchange (ks): SSH_MSG_SERVICE_REQUEST under the second keys must be
// answered with SSH_MSG_SERVICE_ACCEPT under them.
func proveBeforeAuth(ss *session, m *method, r *Result, ks []keying, algs algorithms) {
	ss.c.write(serviceRequestMsg) // if it fails, the server has closed already: the read tells
	ev, wrong := nextRekeyed(ss.c, ks)
	switch {
	case wrong != nil:
		rekeyFailure(r, "the server's answer to our SSH_MSG_SERVICE_REQUEST after the re-exchange", ev, wrong)
		return
	case ev.kind == evPacket && ev.payload[0] == msgServiceAccept:
	default:
		rekeyFailure(r, "after the re-exchange, the answer to our SSH_MSG_SERVICE_REQUEST under the second keys (client-to-server keys from K, H and "+
			"the first exchange's H as session identifier)", ev, nil)
		return
	}
	ss.c.write(disconnectMsg(11, "pqkex check: case complete"))
	r.Verdict = Completed
	r.Detail = fmt.Sprintf("a second exchange with %s after the first, before user authentication: the %s signature verifies over the second H; "+
		"SSH_MSG_NEWKEYS both ways, then SSH_MSG_SERVICE_REQUEST answered by SSH_MSG_SERVICE_ACCEPT, both under keys from the second K and H "+
		"with the first H as session identifier (%s)", m.name, algs.hostKey, seqWords(ss.algs.strict))
}

// proveAfterAuth decides rekey with an identity (how says how check
// logged in), after the re-exchange (ks): the server's global requests
// that wanted a reply during it answered (wantReplies, with
// SSH_MSG_REQUEST_FAILURE, in order, RFC 4254 §4), then our
// SSH_MSG_GLOBAL_REQUEST keepalive@openssh.com under the second keys
// must be answered under them (keepaliveAnswer), past other packets of
// the server's; when nothing has come after rekeyNudge, SSH_MSG_IGNORE
// follows it.
func proveAfterAuth(ss *session, m *method, r *Result, ks []keying, algs algorithms, wantReplies int, how string) {
	for range wantReplies {
		ss.c.write([]byte{msgRequestFailure})
	}
	seq := ss.c.writeSeq
	ss.c.write(keepaliveRequest) // if it fails, the server has closed already: the read tells
	nudged := ""
	if wait := min(rekeyNudge, time.Until(ss.c.deadline)/2); !ss.c.waitData(wait) {
		ss.c.write(ignoreMsg)
		nudged = fmt.Sprintf("; the answer came only after we sent SSH_MSG_IGNORE, %v after the request (tinysshd, for one, "+
			"answers a packet read together with the re-exchange's SSH_MSG_NEWKEYS only once another comes)", wait)
	}
	ev, wrong := nextRekeyed(ss.c, ks)
	answer := ""
	for i := 0; wrong == nil && ev.kind == evPacket && i < maxInFlight; i++ {
		if answer = keepaliveAnswer(ev.payload, seq); answer != "" {
			break
		}
		if ev.payload[0] == msgGlobalRequest && globalRequestWantsReply(ev.payload) {
			ss.c.write([]byte{msgRequestFailure})
		}
		ev = ss.c.next(false)
	}
	switch {
	case wrong != nil:
		rekeyFailure(r, "the server's first packet after the re-exchange", ev, wrong)
		return
	case answer == "":
		rekeyFailure(r, "after the re-exchange, the answer to our SSH_MSG_GLOBAL_REQUEST keepalive@openssh.com (want reply) under the second keys "+
			"(client-to-server keys from K, H and the first exchange's H as session identifier)", ev, nil)
		return
	}
	ss.c.write(disconnectMsg(11, "pqkex check: case complete"))
	r.Verdict = Completed
	r.Detail = fmt.Sprintf("after publickey user authentication %s, a second exchange with %s: the %s signature verifies over the second H; "+
		"SSH_MSG_NEWKEYS both ways, then SSH_MSG_GLOBAL_REQUEST keepalive@openssh.com answered by %s, both under keys from the second K and H "+
		"with the first H as session identifier (%s)%s", how, m.name, algs.hostKey, answer, seqWords(ss.algs.strict), nudged)
}

// rekeyNudge is how long rekey waits for the answer to its request after
// the re-exchange before it sends SSH_MSG_IGNORE, which every
// implementation takes at any time (RFC 4253 §11.2). tinysshd 20250501
// reads the client's SSH_MSG_NEWKEYS with whatever follows it into its
// buffer (packet_get.c, packet_getall(), through packet_recv()), and its
// main loop (main_tinysshd.c) processes buffered packets only after
// poll() reports more input, or after its 60 s poll timeout: a request sent right
// after SSH_MSG_NEWKEYS waits for the next packet. Whether it was read
// with SSH_MSG_NEWKEYS is a race, and the keys are what the case checks,
// not how soon a server answers; the detail says when the answer needed
// the nudge.
const rekeyNudge = time.Second

// ignoreMsg is SSH_MSG_IGNORE with an empty string (RFC 4253 §11.2).
var ignoreMsg = sshwire.AppendString([]byte{msgIgnore}, nil)

// keepaliveAnswer names p if it answers our SSH_MSG_GLOBAL_REQUEST, sent
// with sequence number seq: SSH_MSG_REQUEST_SUCCESS or _FAILURE (RFC 4254
// §4), or SSH_MSG_UNIMPLEMENTED (RFC 4253 §11.4, from a server that
// takes no global request); "" otherwise. The number SSH_MSG_UNIMPLEMENTED
// names should be seq ("uint32 packet sequence number of rejected
// message"); tinysshd 20250501 names the next one (packet_unimplemented.c
// sends packet.receivepacketid, which packet_get.c has already
// incremented), so another number is said in the detail, not refused:
// whatever number it names, the answer shows the server read our
// request, whose MAC (or AEAD tag) verifies only under the second keys
// and its sequence number.
func keepaliveAnswer(p []byte, seq uint32) string {
	switch {
	case p[0] == msgRequestSuccess:
		return "SSH_MSG_REQUEST_SUCCESS"
	case p[0] == msgRequestFailure:
		return "SSH_MSG_REQUEST_FAILURE"
	case p[0] == msgUnimplemented && len(p) == 5:
		named := binary.BigEndian.Uint32(p[1:])
		if named == seq {
			return fmt.Sprintf("SSH_MSG_UNIMPLEMENTED naming its sequence number, %d", seq)
		}
		return fmt.Sprintf("SSH_MSG_UNIMPLEMENTED naming sequence number %d, not the request's, %d (RFC 4253 §11.4 names the rejected packet's)", named, seq)
	}
	return ""
}

// clientReexchange runs the re-exchange on ss as the client, our
// SSH_MSG_KEXINIT (ki, sent as ours) answered by the server's, serverKI:
// an honest C_INIT, the reply's signature verified over the second H,
// SSH_MSG_NEWKEYS both ways and the second keys installed both ways with
// sessionID, the first H, as session identifier. It returns the
// receiving direction's keyings (nextRekeyed) and the algorithms
// negotiated, or records in r what went wrong.
func clientReexchange(ss *session, m *method, r *Result, ki *sshwire.KexInit, ours, serverKI, sessionID []byte, strict bool) ([]keying, algorithms, bool) {
	serverInit, err := sshwire.ParseKexInit(serverKI)
	if err != nil {
		r.Verdict, r.Detail = Malformed, "the server's second SSH_MSG_KEXINIT: "+err.Error()
		return nil, algorithms{}, false
	}
	algs, err := negotiate(ki, serverInit)
	if err != nil || algs.kex != m.name {
		r.Verdict, r.Detail = NotRun, fmt.Sprintf("the re-exchange negotiated %q (%v), not %s", algs.kex, err, m.name)
		return nil, algs, false
	}
	second := *ss // the first exchange's identification lines, this one's KEXINITs and algorithms
	second.ours, second.theirs, second.serverInit, second.algs = ours, serverKI, serverInit, algs
	second.client, second.observe = nil, nil
	ss.c.note("a re-exchange: the second exchange's values follow")
	client := newClient(ss, m, r)
	if client == nil {
		return nil, algs, false
	}
	qc := client.init()
	if !send(ss, r, sshwire.AppendKexECDHInit(nil, qc)) {
		return nil, algs, false
	}
	probe := Result{Method: m.name} // readReply notes silence (silentIf) in it
	k, H, ok := readReply(&second, m, client, qc, &probe)
	if !ok {
		r.Verdict, r.Detail, r.Finding = Failed, "the re-exchange's "+probe.Detail, probe.Finding
		if probe.Verdict == NotRun || probe.Verdict == Malformed || probe.Verdict == Hung {
			r.Verdict = probe.Verdict
		}
		return nil, algs, false
	}
	defer clear(k)
	if !send(ss, r, []byte{msgNewKeys}) {
		return nil, algs, false
	}
	if err := rekeyedOut(ss.c, algs, m.hash, k, H, sessionID, sshwire.ClientToServer, strict); err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil, algs, false
	}
	if ev := ss.c.next(false); ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		r.Verdict, r.Detail = Failed, "after the re-exchange's verified KEX_ECDH_REPLY the server sent "+describe(ev)+", not SSH_MSG_NEWKEYS"
		return nil, algs, false
	}
	ks, err := rekeyedIn(ss.c, algs, m.hash, k, H, sessionID, sshwire.ServerToClient, strict)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil, algs, false
	}
	return ks, algs, true
}

// seqWords says how the sequence numbers went on after the re-exchange.
func seqWords(strict bool) string {
	if strict {
		return "sequence numbers reset to 0, strict key exchange having been negotiated"
	}
	return "sequence numbers running on"
}

// --- pqkex check as the server: the cases rekey and rekey-by-client.

// reexchange is what a case that continues a client's connection past
// its first exchange needs of it.
type reexchange struct {
	c         *conn
	algs      algorithms // the first exchange's
	t         *transcript
	sessionID []byte
}

// serveRekey runs a re-exchange as the server on x.c: with clientInit
// nil we start it, sending our SSH_MSG_KEXINIT and reading the client's
// past the packets in flight (each given to inFlight); else clientInit
// is the client's, which started it (packets in flight before the
// client's SSH_MSG_KEXINIT are skipped). It answers the client's
// SSH_MSG_KEX_ECDH_INIT honestly, signs the second H, and installs the
// second keys both ways, with the first H as session identifier. It
// returns the receiving direction's keyings (nextRekeyed), or records in
// r what went wrong.
func serveRekey(x *reexchange, clientInit []byte, r *Result) ([]keying, bool) {
	m, c := x.t.m, x.c
	// left records a client under a re-exchange we started that ends the
	// connection before its SSH_MSG_NEWKEYS (see clientLeft).
	started := clientInit == nil
	left := func(ev event, where string) bool {
		if !started || !clientLeft(ev) {
			return false
		}
		r.Verdict, r.Detail = NotRun, "after its user authentication was let through, the client ended the connection ("+describe(ev)+") "+where+
			", before its SSH_MSG_NEWKEYS, as a client that is done with the connection may: the re-exchange could not be checked "+
			"(run a client that keeps the connection until check ends it)"
		return true
	}
	ki := newKexInit([]string{m.name}, []string{x.t.algo})
	ours := sshwire.AppendKexInit(nil, ki)
	if err := c.write(ours); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_KEXINIT: "+err.Error()
		return nil, false
	}
	for range maxInFlight {
		if clientInit != nil {
			break
		}
		ev := c.next(false)
		if left(ev, "where its SSH_MSG_KEXINIT was due") {
			return nil, false
		}
		if ev.kind != evPacket {
			r.Verdict, r.Detail = Failed, "after a first exchange, our SSH_MSG_KEXINIT under its keys got "+describe(ev)+
				", not the client's SSH_MSG_KEXINIT (RFC 4253 §9: \"a party MUST respond with its own SSH_MSG_KEXINIT message\")"
			return nil, false
		}
		if ev.payload[0] == sshwire.MsgKexInit {
			clientInit = ev.payload
		}
	}
	if clientInit == nil {
		r.Verdict, r.Detail = Failed, fmt.Sprintf("after our SSH_MSG_KEXINIT, %d packets came but not the client's SSH_MSG_KEXINIT", maxInFlight)
		return nil, false
	}
	ci, err := sshwire.ParseKexInit(clientInit)
	if err != nil {
		r.Verdict, r.Detail = Malformed, "the client's second SSH_MSG_KEXINIT: "+err.Error()
		return nil, false
	}
	algs, err := negotiate(ci, ki)
	if err != nil || algs.kex != m.name {
		r.Verdict, r.Detail = NotRun, fmt.Sprintf("the re-exchange negotiated %q (%v), not %s", algs.kex, err, m.name)
		return nil, false
	}
	if ci.FirstKexFollows && (ci.KexAlgos[0] != algs.kex || ci.HostKeyAlgos[0] != algs.hostKey) {
		c.next(false) // a wrongly guessed packet, ignored (RFC 4253 §7)
	}
	ev := c.next(false)
	if left(ev, "after its SSH_MSG_KEXINIT, where its SSH_MSG_KEX_ECDH_INIT was due") {
		return nil, false
	}
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHInit {
		r.Verdict, r.Detail = Failed, "in the re-exchange the client sent "+describe(ev)+" instead of SSH_MSG_KEX_ECDH_INIT"
		return nil, false
	}
	qc, err := sshwire.ParseKexECDHInit(ev.payload)
	if err != nil {
		r.Verdict, r.Detail = Malformed, "the client's second SSH_MSG_KEX_ECDH_INIT: "+err.Error()
		return nil, false
	}
	t := *x.t // the first exchange's identification lines and host key, this one's KEXINITs
	t.theirs, t.ours, t.qc, t.algo, t.kSigned = clientInit, ours, qc, algs.hostKey, nil
	h, err := m.answer(qc)
	if err != nil {
		r.Verdict, r.Detail = Failed, "the client's second C_INIT is invalid: "+err.Error()
		return nil, false
	}
	defer h.wipe()
	c.note("a re-exchange: the second exchange's values follow")
	t.c, t.half = c, h
	k := m.combine(h.kPQ, h.kCL)
	defer clear(k)
	H, err := t.sign(h.reply(), k)
	defer clear(t.kSigned)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil, false
	}
	strict := x.algs.strict
	if err := c.write(t.replyMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_KEX_ECDH_REPLY: "+err.Error()
		return nil, false
	}
	if err := c.write([]byte{msgNewKeys}); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_NEWKEYS: "+err.Error()
		return nil, false
	}
	if err := rekeyedOut(c, algs, m.hash, k, H, x.sessionID, sshwire.ServerToClient, strict); err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil, false
	}
	if ev = c.next(false); left(ev, "after our KEX_ECDH_REPLY") {
		return nil, false
	}
	if ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		r.Verdict, r.Detail = Failed, "after the re-exchange's KEX_ECDH_REPLY the client sent "+describe(ev)+", not SSH_MSG_NEWKEYS"
		return nil, false
	}
	ks, err := rekeyedIn(c, algs, m.hash, k, H, x.sessionID, sshwire.ClientToServer, strict)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil, false
	}
	return ks, true
}

// clientLeft reports whether ev is a client ending the connection as one
// that is done with it does: a close, or SSH_MSG_DISCONNECT with reason
// 11 (BY_APPLICATION). In a re-exchange that check starts once it has let
// the client's user authentication through, a client that leaves so
// before its SSH_MSG_NEWKEYS has used no key of the re-exchange: no
// clause forbids ending a connection (RFC 4253 §11.1), and a client that
// dials, authenticates and closes (x/crypto's ssh.Dial then Close) would
// otherwise read as failing the re-exchange. The case did not run. After
// its SSH_MSG_NEWKEYS, the client's keys are what the case checks, and an
// end of the connection there is a failure (proveRekeyed).
func clientLeft(ev event) bool {
	return ev.kind == evClosed || ev.kind == evDisconnect && ev.reason == 11
}

// proveRekeyed shows, after serveRekey, that the client derived the
// second keys both ways: our SSH_MSG_KEXINIT under the second
// server-to-client keys must be answered by the client's under the
// second client-to-server keys (RFC 4253 §9), past what it sends first
// (each under those keys too). It decides r.
func proveRekeyed(x *reexchange, ks []keying, strict bool, r *Result, what string) {
	c := x.c
	if err := c.write(sshwire.AppendKexInit(nil, newKexInit([]string{x.t.m.name}, []string{x.t.algo}))); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_KEXINIT: "+err.Error()
		return
	}
	ev, wrong := nextRekeyed(c, ks)
	for i := 0; wrong == nil && ev.kind == evPacket && ev.payload[0] != sshwire.MsgKexInit && i < maxInFlight; i++ {
		ev = c.next(false)
	}
	switch {
	case wrong != nil:
		rekeyFailure(r, "the client's first packet after the re-exchange", ev, wrong)
	case ev.kind == evPacket && ev.payload[0] == sshwire.MsgKexInit:
		r.Verdict = Completed
		r.Detail = fmt.Sprintf("%s: our KEX_ECDH_REPLY signed over the second H taken, SSH_MSG_NEWKEYS both ways, and our next SSH_MSG_KEXINIT, under "+
			"keys from the second K and H with the first H as session identifier, answered by the client's under its keys so derived (%s)", what, seqWords(strict))
	default:
		rekeyFailure(r, "after the re-exchange, the answer to our SSH_MSG_KEXINIT under the second keys (server-to-client keys from K, H and "+
			"the first exchange's H as session identifier)", ev, nil)
	}
}

// rekeySession is the case rekey after the first exchange: the client's
// SSH_MSG_SERVICE_REQUEST is accepted and its first
// SSH_MSG_USERAUTH_REQUEST answered with SSH_MSG_USERAUTH_SUCCESS (RFC
// 4252 §5.1: check authenticates nobody, it lets the client through so
// that the re-exchange happens where clients do it, after user
// authentication: OpenSSH's client, as its server, takes no
// SSH_MSG_KEXINIT during it, sshconnect2.c resetting its dispatch table
// for user authentication), then we start a re-exchange;
// proveRekeyed decides.
func rekeySession(x *reexchange, r *Result) {
	if !readServiceRequest(x.c, r) {
		r.Verdict, r.Detail = NotRun, "the first exchange did not complete (see the honest case): "+r.Detail
		return
	}
	if err := x.c.write(serviceAcceptMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_SERVICE_ACCEPT: "+err.Error()
		return
	}
	ev := x.c.next(false)
	for i := 0; ev.kind == evPacket && ev.payload[0] != msgUserAuthRequest && i < maxInFlight; i++ {
		ev = x.c.next(false)
	}
	if ev.kind != evPacket || ev.payload[0] != msgUserAuthRequest {
		r.Verdict, r.Detail = NotRun, "the client sent "+describe(ev)+" where its SSH_MSG_USERAUTH_REQUEST was due (see the honest case)"
		return
	}
	if err := x.c.write([]byte{msgUserAuthSuccess}); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_USERAUTH_SUCCESS: "+err.Error()
		return
	}
	ks, ok := serveRekey(x, nil, r)
	if !ok {
		return
	}
	proveRekeyed(x, ks, x.algs.strict, r, "a re-exchange we started after the client's user authentication (answered with SSH_MSG_USERAUTH_SUCCESS)")
}

// userAuthFailureMsg is SSH_MSG_USERAUTH_FAILURE (RFC 4252 §5.1) listing
// publickey and password, no partial success.
var userAuthFailureMsg = append(sshwire.AppendString([]byte{51}, []byte("publickey,password")), 0)

// rekeyByClientSession is the case rekey-by-client after the first
// exchange: the client's requests are answered (SSH_MSG_SERVICE_ACCEPT,
// then SSH_MSG_USERAUTH_FAILURE to each SSH_MSG_USERAUTH_REQUEST, which
// keeps a client that rekeys after a number of bytes, as x/crypto's does
// after Config.RekeyThreshold, writing) until it starts a re-exchange
// with its SSH_MSG_KEXINIT, which we answer; proveRekeyed decides. A
// client that ends the connection, or sends maxInFlight packets, without
// starting one is not applicable: no clause makes a client start one.
func rekeyByClientSession(x *reexchange, r *Result) {
	c := x.c
	for i := 0; i < maxInFlight; i++ {
		ev := c.next(false)
		if ev.kind != evPacket {
			r.Verdict, r.Detail = NotApplicable, fmt.Sprintf("the client did not start a re-exchange: after %d packets under the first keys it sent %s "+
				"(no clause makes a client start one; x/crypto's client does after Config.RekeyThreshold bytes, OpenSSH's with RekeyLimit)", i, describe(ev))
			return
		}
		var answer []byte
		switch ev.payload[0] {
		case sshwire.MsgKexInit:
			ks, ok := serveRekey(x, ev.payload, r)
			if ok {
				proveRekeyed(x, ks, x.algs.strict, r, fmt.Sprintf("a re-exchange the client started after %d packets under the first keys, answered", i))
			}
			return
		case msgServiceRequest:
			answer = serviceAcceptMsg
		case msgUserAuthRequest:
			answer = userAuthFailureMsg
		default:
			continue
		}
		if err := c.write(answer); err != nil {
			r.Verdict, r.Detail = NotRun, "sending: "+err.Error()
			return
		}
	}
	r.Verdict, r.Detail = NotApplicable, fmt.Sprintf("the client did not start a re-exchange in %d packets under the first keys", maxInFlight)
}
