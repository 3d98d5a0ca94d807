package conformance

// The cases a server under test goes through, and how each runs.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"

	"github.com/pqkex/pqkex/internal/sshwire"
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

// serverCases returns the cases for method m, in order: the honest
// exchange, C_INIT's length, the KEM half, the classical half, protocol.
func serverCases(m *method) []serverCase {
	honestClause := "RFC 10042 §2.4-2.5; RFC 4253 §7.2, §8"
	if m.kem == "sntrup761" {
		honestClause = "RFC 9941 §3; RFC 4253 §7.2, §8"
	}
	cases := []serverCase{
		{"honest", honestClause, ExpectComplete, runHonest},
		badInit("c-init-short", lengthClause(m), "C_INIT one byte short", func(ci []byte) []byte { return ci[:len(ci)-1] }),
		badInit("c-init-long", lengthClause(m), "C_INIT one byte long", func(ci []byte) []byte { return append(ci, 0) }),
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
		badInitPacket("init-truncated-string", "RFC 4251 §5; RFC 5656 §4",
			"SSH_MSG_KEX_ECDH_INIT whose C_INIT length is one more than the bytes that follow", truncatedInit),
		serverCase{"second-init", "RFC 5656 §4; OpenSSH PROTOCOL §1.10", ExpectAbort, inSession(runSecondInit)},
		serverCase{"ignore-in-strict-kex", "OpenSSH PROTOCOL §1.10", ExpectAbort, inSession(runIgnoreInStrictKex)},
		serverCase{"newkeys-before-init", "RFC 4253 §7.3", ExpectAbort, inSession(runNewKeysFirst)},
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
		client := newClient(m, r)
		if client == nil {
			return
		}
		sendThenDecide(ss, r, what, sshwire.MsgKexECDHReply, build(client.init()))
	})}
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

// newClient is m's client half, or nil with r marked as not run.
func newClient(m *method, r *Result) *clientHalf {
	client, err := m.newClientHalf()
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil
	}
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
}

// runSecondInit sends the honest SSH_MSG_KEX_ECDH_INIT twice: the server
// may answer the first (it then switches to the new keys), and must then
// end the connection instead of answering the second.
func runSecondInit(ss *session, m *method, r *Result) {
	client := newClient(m, r)
	if client == nil {
		return
	}
	qc := client.init()
	init := sshwire.AppendKexECDHInit(nil, qc)
	if !send(ss, r, init, init) {
		return
	}
	var probe Result
	k, H, ok := readReply(ss, m, client, qc, &probe)
	if !ok {
		// No verified reply to the first: what the server did instead
		// decides (an abort conforms).
		ev := event{kind: evClosed}
		switch probe.Verdict {
		case Hung:
			ev.kind = evTimeout
		case Malformed, Failed:
			ev.kind = evMalformed
			ev.err = errors.New(probe.Detail)
		}
		decide(r, ev, sshwire.MsgKexECDHReply)
		if probe.DisconnectReason != 0 || probe.DisconnectMessage != "" {
			r.Verdict, r.DisconnectReason, r.DisconnectMessage = Rejected, probe.DisconnectReason, probe.DisconnectMessage
		}
		r.Detail = "sent two SSH_MSG_KEX_ECDH_INIT; to the first: " + probe.Detail
		return
	}
	defer clear(k)
	if !readNewKeys(ss, m, k, H, &probe) {
		r.Verdict, r.Detail = Malformed, "sent two SSH_MSG_KEX_ECDH_INIT; after the reply to the first: "+probe.Detail
		return
	}
	decide(r, ss.c.next(ss.algs.strict), sshwire.MsgKexECDHReply)
	r.Detail = "sent two SSH_MSG_KEX_ECDH_INIT; after the reply to the first and SSH_MSG_NEWKEYS, got (under the new keys) " + r.Detail
}

// runIgnoreInStrictKex sends SSH_MSG_IGNORE before SSH_MSG_KEX_ECDH_INIT:
// under strict key exchange the server must end the connection.
func runIgnoreInStrictKex(ss *session, m *method, r *Result) {
	if !ss.algs.strict {
		r.Verdict, r.Detail = NotApplicable, "the server does not offer strict key exchange ("+strictServer+")"
		return
	}
	client := newClient(m, r)
	if client == nil {
		return
	}
	ignore := sshwire.AppendString([]byte{msgIgnore}, []byte("pqkex check"))
	sendThenDecide(ss, r, "SSH_MSG_IGNORE, then an honest SSH_MSG_KEX_ECDH_INIT, under strict key exchange",
		sshwire.MsgKexECDHReply, ignore, sshwire.AppendKexECDHInit(nil, client.init()))
}

// runNewKeysFirst sends SSH_MSG_NEWKEYS instead of SSH_MSG_KEX_ECDH_INIT.
func runNewKeysFirst(ss *session, m *method, r *Result) {
	sendThenDecide(ss, r, "SSH_MSG_NEWKEYS instead of SSH_MSG_KEX_ECDH_INIT", msgNewKeys, []byte{msgNewKeys})
	if r.Verdict == Accepted {
		r.Verdict = Replied
	}
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
