package conformance

// The cases a server under test goes through, and how each runs.

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
)

// serverCase is one check of a server.
type serverCase struct {
	id, clause string
	expect     Expectation
	run        func(ctx context.Context, s *serverChecker, m *method, r *Result)
}

// lengthClause is where a method's specification requires the exact
// lengths of C_INIT and S_REPLY.
func lengthClause(m *method) string {
	if m.kem == "sntrup761" {
		return "RFC 9941 §3"
	}
	return "RFC 10042 §2.1"
}

// honestClause is where an honest exchange of m rests: the soak's
// expectation and the honest cases' in both roles.
func honestClause(m *method) string {
	if m.kem == "sntrup761" {
		return "RFC 9941 §3; RFC 4253 §7.2, §8"
	}
	return "RFC 10042 §2.4-2.5; RFC 4253 §7.2, §8"
}

// serverCases returns the cases for method m, in order: the honest
// exchange, C_INIT's length, the KEM half, the classical half, protocol.
func serverCases(m *method) []serverCase {
	cases := []serverCase{
		{"honest", honestClause(m), ExpectComplete, runHonest},
		lengthInit(m, true),
		lengthInit(m, false),
	}
	if m.mlkemK > 0 {
		for _, mc := range modulusCases {
			cases = append(cases, badInit(mc.id, "FIPS 203 §7.2; RFC 10042 §2.1", "an encapsulation key with "+mc.what,
				func(ci []byte) []byte { mc.set(ci, m.mlkemK); return ci }))
		}
	}
	for i, b := range m.badPoints(nil) {
		c := badInit(b.id, b.clauseFor(m), "a "+m.curve+" public key that is "+b.what,
			func(ci []byte) []byte { return append(ci[:m.ekSize:m.ekSize], m.badPoints(ci[m.ekSize:])[i].value...) })
		c.expect = b.expectation()
		cases = append(cases, c)
	}
	return append(cases,
		badInitPacket("init-truncated-string", lengthClause(m)+"; RFC 4251 §5",
			"SSH_MSG_KEX_ECDH_INIT whose C_INIT length is one more than the bytes that follow", truncatedInit),
		serverCase{"second-init", "OpenSSH PROTOCOL §1.10 (strict key exchange)", ExpectAbort, inSession(strictOnly(runSecondInit))},
		serverCase{"ignore-in-strict-kex", "OpenSSH PROTOCOL §1.10 (strict key exchange)", ExpectAbort, inSession(strictOnly(runIgnoreInStrictKex))},
		serverCase{"newkeys-before-init", "OpenSSH PROTOCOL §1.10 (strict key exchange)", ExpectAbort, inSession(strictOnly(runNewKeysFirst))},
		serverCase{"packet-tampered", "RFC 4253 §6.4", ExpectAbort, inSession(runTamperedRequest)},
		serverCase{"rekey", rekeyClause, ExpectComplete, inSession(runRekey)},
		serverCase{"wrong-guess-ignored", "RFC 4253 §7", ExpectComplete, runWrongGuess},
	)
}

// badInit is a case that sends an honest client's C_INIT changed by
// mutate (which may change its argument) and expects an abort.
func badInit(id, clause, what string, mutate func(clientInit []byte) []byte) serverCase {
	return badInitPacket(id, clause, what, func(ci []byte) []byte { return sshwire.AppendKexECDHInit(nil, mutate(ci)) })
}

// badInitPacket is a case that sends, instead of the honest
// SSH_MSG_KEX_ECDH_INIT, the packet build makes of an honest client's
// C_INIT (what says what it is), and expects an abort.
func badInitPacket(id, clause, what string, build func(clientInit []byte) []byte) serverCase {
	return serverCase{id, clause, ExpectAbort, inSession(func(ss *session, m *method, r *Result) {
		client := newClient(ss, m, r)
		if client == nil {
			return
		}
		sendThenDecide(ss, r, what, sshwire.MsgKexECDHReply, build(client.init()))
	})}
}

// lengthInit is c-init-short (short set) or c-init-long: C_INIT one byte
// short, its last byte 00 left off (the client's classical key is drawn
// until it ends in 00, and the packet's padding is zeros), or one byte
// long, 00 appended. A server that skips the length check and
// zero-extends the short key, reads its last byte past C_INIT, or cuts
// the long one to length uses the honest key and computes the honest K;
// it may hash into H the C_INIT sent or the one it used. Whichever it
// did, its signature verifies over that H, and the detail says which (a
// server that splits C_INIT from its end computes a K check cannot know:
// its signature verifies under neither).
func lengthInit(m *method, short bool) serverCase {
	id, what := "c-init-long", "C_INIT one byte long (00 appended)"
	if short {
		id, what = "c-init-short", "C_INIT one byte short (its last byte, 00, left off)"
	}
	return serverCase{id, lengthClause(m), ExpectAbort, inSession(func(ss *session, m *method, r *Result) {
		client := newClient(ss, m, r)
		if client == nil {
			return
		}
		if short {
			if err := client.redrawClassical(func(pub []byte) bool { return pub[len(pub)-1] == 0 }); err != nil {
				r.Verdict, r.Detail = NotRun, err.Error()
				return
			}
			ss.c.derived("our "+m.curve+" private key, drawn again so that its public key ends in 00", client.priv.Bytes())
		}
		used := client.init()
		sent := append(used[:len(used):len(used)], 0)
		if short {
			sent = used[:len(used)-1]
		}
		p := sshwire.PlainPacket(sshwire.AppendKexECDHInit(nil, sent))
		clear(p[len(p)-int(p[4]):]) // zero padding: what a server that reads past C_INIT finds there
		if err := ss.c.writeRaw(p, "SSH_MSG_KEX_ECDH_INIT with "+what+", its padding zeros"); err != nil {
			r.Verdict, r.Detail = NotRun, "sending: "+err.Error()
			return
		}
		ev := ss.c.next(ss.algs.strict)
		decide(r, ev, sshwire.MsgKexECDHReply)
		r.Detail = "sent " + what + "; got " + r.Detail
		silentIf(r, "SSH_MSG_KEX_ECDH_REPLY")
		if r.Verdict == Replied {
			r.Detail += "; " + replyReading(ss, m, client, sent, used, ev.payload, short)
		}
	})}
}

// replyReading says over which reading of the wrong-length C_INIT sent
// (used: the honest one) the server's KEX_ECDH_REPLY is signed.
func replyReading(ss *session, m *method, client *clientHalf, sent, used, reply []byte, short bool) string {
	hostKey, qs, sig, err := sshwire.ParseKexECDHReply(reply)
	if err != nil {
		return "the reply does not parse: " + err.Error()
	}
	kPQ, kCL, err := client.finish(qs)
	if err != nil {
		return "its S_REPLY: " + err.Error()
	}
	k := m.combine(kPQ, kCL)
	clear(kPQ)
	clear(kCL)
	defer clear(k)
	usedWhat := "cut to its length"
	if short {
		usedWhat = "zero-extended (or read past its end)"
	}
	for _, reading := range []struct {
		what string
		qc   []byte
	}{
		{"the server hashed C_INIT as sent and computed K from the whole key", sent},
		{"the server hashed C_INIT as it used it, " + usedWhat, used},
	} {
		H := kexhash.ExchangeHash(m.hash, []byte(ss.ident), []byte(ss.version), ss.ours, ss.theirs, hostKey, reading.qc, qs, k)
		if verifyHostSignature(ss.algs.hostKey, hostKey, sig, H) == nil {
			return "its signature verifies over H with the honest K: " + reading.what
		}
	}
	return "its signature verifies under no reading check can compute (C_INIT as sent or " + usedWhat +
		", with the honest K): the server read C_INIT some other way, such as splitting it from its end"
}

// truncatedInit is SSH_MSG_KEX_ECDH_INIT whose C_INIT string claims one
// byte more than the message holds.
func truncatedInit(ci []byte) []byte {
	p := binary.BigEndian.AppendUint32([]byte{sshwire.MsgKexECDHInit}, uint32(len(ci)+1))
	return append(p, ci...)
}

// inSession runs a case on one connection to the server that negotiated
// m's key exchange, closed when run returns; if none could be opened, r
// says why the case did not run.
func inSession(run func(ss *session, m *method, r *Result)) func(ctx context.Context, s *serverChecker, m *method, r *Result) {
	return func(ctx context.Context, s *serverChecker, m *method, r *Result) {
		ss := s.open(ctx, m, r, false)
		if ss == nil {
			return
		}
		defer ss.c.nc.Close()
		run(ss, m, r)
	}
}

// newClient is m's client half for ss (its private keys recorded in
// ss's transcript), or nil with r marked as not run.
func newClient(ss *session, m *method, r *Result) *clientHalf {
	client, err := m.newClientHalf()
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil
	}
	client.record(ss.c)
	return client
}

// send writes packets in order; on a failure it marks r as not run.
func send(ss *session, r *Result, packets ...[]byte) bool {
	for _, p := range packets {
		if err := ss.c.write(p); err != nil {
			r.Verdict, r.Detail = NotRun, "sending: "+err.Error()
			return false
		}
	}
	return true
}

// sendThenDecide sends packets (what says what they are) and decides r
// by what the server does next, replyMsg being the answer that accepts
// them.
func sendThenDecide(ss *session, r *Result, what string, replyMsg byte, packets ...[]byte) {
	if !send(ss, r, packets...) {
		return
	}
	decide(r, ss.c.next(ss.algs.strict), replyMsg)
	r.Detail = "sent " + what + "; got " + r.Detail
	silentIf(r, "SSH_MSG_KEX_ECDH_REPLY")
}

// strictOnly makes a case not applicable unless strict key exchange was
// negotiated: only OpenSSH's PROTOCOL §1.10 makes an unexpected message
// during the initial key exchange fatal. Without it no clause of RFC 4253
// or RFC 5656 has the server refuse a second SSH_MSG_KEX_ECDH_INIT or an
// early SSH_MSG_NEWKEYS (RFC 4253 §7 restricts what a party sends during
// key exchange, not how the other answers; §11.4 has unrecognized
// messages answered with SSH_MSG_UNIMPLEMENTED, as OpenSSH before 9.6
// does).
func strictOnly(run func(ss *session, m *method, r *Result)) func(ss *session, m *method, r *Result) {
	return func(ss *session, m *method, r *Result) {
		if !ss.algs.strict {
			r.Verdict, r.Detail = NotApplicable, "strict key exchange was not negotiated (the server does not offer "+strictServer+
				"), and without it no clause requires the server to refuse this"
			return
		}
		run(ss, m, r)
	}
}

// failedReply decides r from probe, the failed reading of the server's
// answer to an honest SSH_MSG_KEX_ECDH_INIT: an end of the connection is
// an abort, which conforms.
func failedReply(r *Result, probe *Result) {
	*r = Result{Method: r.Method, Case: r.Case, Clause: r.Clause, Expected: r.Expected, Attempts: r.Attempts,
		Verdict: probe.Verdict, Detail: strings.TrimPrefix(probe.Detail, honestInitGot), DisconnectReason: probe.DisconnectReason, DisconnectMessage: probe.DisconnectMessage,
		Finding: probe.Finding}
	if r.Verdict == Failed { // a reply that is not a valid one
		r.Verdict = Malformed
	}
}

// afterReply decides r once the server has answered with a verified
// KEX_ECDH_REPLY (K and H) what it must refuse: it may still end the
// connection, before or at SSH_MSG_NEWKEYS, or on our first packet under
// the new keys (a deferred abort: no packet is ever taken under keys of a
// tainted exchange), which conforms; a server that answers that packet
// went on, and did not. RFC 4253 §7.3 fixes no order of the two
// SSH_MSG_NEWKEYS, so ours is sent first.
func afterReply(ss *session, m *method, k, H []byte, r *Result) {
	if err := ss.c.write([]byte{msgNewKeys}); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_NEWKEYS: "+err.Error()
		return
	}
	if ss.algs.strict {
		ss.c.writeSeq = 0
	}
	out, err := ss.c.cipher(ss.algs, m.hash, k, H, H, sshwire.ClientToServer)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return
	}
	ss.c.out = out
	in, err := ss.c.cipher(ss.algs, m.hash, k, H, H, sshwire.ServerToClient)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return
	}
	ev := ss.c.next(ss.algs.strict)
	if ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		decide(r, ev, sshwire.MsgKexECDHReply)
		r.Detail = "a verified KEX_ECDH_REPLY; then, where SSH_MSG_NEWKEYS would be, " + r.Detail
		r.Note = deferredNote(r)
		silentIf(r, "SSH_MSG_NEWKEYS")
		return
	}
	if ss.algs.strict {
		ss.c.readSeq = 0
	}
	ss.c.in = in
	ss.c.write(serviceRequestMsg) // if it fails, the server has closed already: the read tells
	decide(r, nextAfterRequest(ss), msgServiceAccept)
	if r.Verdict == Replied {
		r.Detail = "a verified KEX_ECDH_REPLY and SSH_MSG_NEWKEYS, then " + r.Detail + " to our SSH_MSG_SERVICE_REQUEST under the new keys: the server went on"
		return
	}
	r.Detail = "a verified KEX_ECDH_REPLY and SSH_MSG_NEWKEYS; then, to our SSH_MSG_SERVICE_REQUEST under the new keys, " + r.Detail
	r.Note = deferredNote(r)
}

// deferredNote is the note of a refusal that came after a reply.
func deferredNote(r *Result) string {
	if r.Verdict != Rejected && r.Verdict != Closed {
		return ""
	}
	return "a deferred abort: the server answered, then ended the connection before taking any packet under the new keys"
}

// runSecondInit sends the honest SSH_MSG_KEX_ECDH_INIT twice: the server
// may answer the first, and must then end the connection (deferred to
// SSH_MSG_NEWKEYS or the first packet under the new keys at the latest)
// instead of answering the second.
func runSecondInit(ss *session, m *method, r *Result) {
	replyThenDecide(ss, m, r, "two SSH_MSG_KEX_ECDH_INIT", func(init []byte) [][]byte { return [][]byte{init, init} })
}

// runIgnoreInStrictKex sends SSH_MSG_IGNORE before SSH_MSG_KEX_ECDH_INIT:
// under strict key exchange the server must end the connection (at the
// latest before it takes a packet under the new keys).
func runIgnoreInStrictKex(ss *session, m *method, r *Result) {
	ignore := sshwire.AppendString([]byte{msgIgnore}, []byte("pqkex check"))
	replyThenDecide(ss, m, r, "SSH_MSG_IGNORE, then an honest SSH_MSG_KEX_ECDH_INIT, under strict key exchange",
		func(init []byte) [][]byte { return [][]byte{ignore, init} })
}

// replyThenDecide sends the packets around an honest SSH_MSG_KEX_ECDH_INIT
// (what says what they are) that the server must not go on from, and
// decides r: by the server's answer if it is not a verified reply, else
// by afterReply.
func replyThenDecide(ss *session, m *method, r *Result, what string, packets func(init []byte) [][]byte) {
	client := newClient(ss, m, r)
	if client == nil {
		return
	}
	qc := client.init()
	if !send(ss, r, packets(sshwire.AppendKexECDHInit(nil, qc))...) {
		return
	}
	probe := Result{Method: m.name} // readReply notes silence (silentIf) in it
	k, H, ok := readReply(ss, m, client, qc, &probe)
	if !ok {
		failedReply(r, &probe)
	} else {
		defer clear(k)
		afterReply(ss, m, k, H, r)
	}
	r.Detail = "sent " + what + "; got " + r.Detail
}

// runNewKeysFirst sends SSH_MSG_NEWKEYS instead of SSH_MSG_KEX_ECDH_INIT.
func runNewKeysFirst(ss *session, m *method, r *Result) {
	sendThenDecide(ss, r, "SSH_MSG_NEWKEYS instead of SSH_MSG_KEX_ECDH_INIT", msgNewKeys, []byte{msgNewKeys})
	if r.Verdict == Accepted {
		r.Verdict = Replied
	}
}

// runTamperedRequest completes an honest key exchange, then sends
// SSH_MSG_SERVICE_REQUEST with the last bit of its MAC (or AEAD tag)
// flipped: the server must not take it. With the honest case, whose
// untampered request is answered, it shows the server decrypts and
// authenticates the client's packets rather than answering any bytes.
func runTamperedRequest(ss *session, m *method, r *Result) {
	k, ok := honestKex(ss, m, r)
	if !ok {
		if r.Finding != silentFinding { // silence is this case's finding too
			r.Verdict, r.Detail = NotRun, "the exchange before the tampered packet did not complete (see the honest case): "+r.Detail
		}
		return
	}
	clear(k)
	if err := ss.c.writeTampered(serviceRequestMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending the tampered SSH_MSG_SERVICE_REQUEST: "+err.Error()
		return
	}
	decide(r, nextAfterRequest(ss), msgServiceAccept)
	r.Detail = "after an honest key exchange, sent SSH_MSG_SERVICE_REQUEST with one bit of its MAC flipped (" + ss.algs.cipherCS + "); got " + r.Detail
	macSilent(r, "SSH_MSG_SERVICE_ACCEPT", "the same request with its MAC intact is answered (the honest case)")
}

// macSilent marks r, decided from what the peer did after the forged
// packet of packet-tampered, as the finding packet-mac-silent when the
// peer did nothing before the timeout: it sent no answer (answer), the
// one a peer that took the packet sends (why says what shows that), and
// did not end the connection either. The verdict stays Hung, which does
// not conform, but the finding is not packet-mac: nothing shows the
// packet was taken. No clause says what a receiver does when a MAC
// fails: RFC 4253 §6.4 has the MAC ("Data integrity is protected by
// including with each packet a MAC"), §11.1 only the reason code
// SSH_DISCONNECT_MAC_ERROR, and so the case reads the one safe course,
// ending the connection, as what conforms (docs/conformance.md, "Where
// each expectation comes from"). A peer that drops the packet and goes
// on lets an attacker delete a packet from the stream without the
// connection ending, and one that stalls leaves its peer waiting until
// its own timeout; check cannot tell the two apart, and neither shows
// a key or a packet taken wrongly: severity low.
func macSilent(r *Result, answer, why string) {
	if r.Verdict != Hung {
		return
	}
	r.Finding = macSilentFinding
	r.Detail += " (no " + answer + ", no SSH_MSG_DISCONNECT, no end of the connection: nothing shows the forged packet was taken, as " +
		why + ", but the connection was not ended either)"
}

// guessName is a key exchange no server has: a KEXINIT that lists it
// first guesses wrong.
const guessName = "pqkex-check-guess@pqkex.invalid"

// runWrongGuess sets first_kex_packet_follows with a wrong guess (our
// first key exchange is one the server does not have) and sends a bogus
// guessed packet, which the server must ignore (RFC 4253 §7), then the
// honest exchange, which must complete.
func runWrongGuess(ctx context.Context, s *serverChecker, m *method, r *Result) {
	ss := s.open(ctx, m, r, true, guessName)
	if ss == nil {
		return
	}
	defer ss.c.nc.Close()
	guess := sshwire.AppendKexECDHInit(nil, bytes.Repeat([]byte{0x5a}, 32))
	if !send(ss, r, guess) {
		return
	}
	if _, err := honestExchange(ss, m, r); err == nil {
		r.Detail = "sent a wrongly guessed SSH_MSG_KEX_ECDH_INIT (32 bytes of 0x5a), then the honest exchange: " + r.Detail
	}
}
