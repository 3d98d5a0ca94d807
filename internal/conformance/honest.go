package conformance

// The honest exchange: everything a server sends in a correct key
// exchange is checked, up to its first encrypted packet.

import (
	"context"
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// maxHonest bounds the honest exchanges run until K's string and mpint
// encodings differ, which each does with probability 129/256: a server
// that hashes K as an mpint is caught only then.
const maxHonest = 16

// runHonest repeats the honest exchange, each on a new connection, until
// one completes with a K whose encodings differ, or one fails.
func runHonest(ctx context.Context, s *serverChecker, m *method, r *Result) {
	for {
		ss := s.open(ctx, m, r, false)
		if ss == nil {
			return
		}
		differs, err := honestExchange(ss, m, r)
		ss.c.nc.Close()
		if err != nil {
			return
		}
		if differs {
			r.Detail += fmt.Sprintf("; K's string and mpint encodings differed on exchange %d", r.Attempts)
			return
		}
		if r.Attempts >= maxHonest {
			r.Verdict = NotRun
			r.Detail = fmt.Sprintf("%d honest exchanges completed, but in none did K's string and mpint encodings differ, so an mpint K could not be ruled out", r.Attempts)
			return
		}
	}
}

// kEncodingsDiffer reports whether K (a string) would hash differently as
// an mpint: when the digest's first byte is zero or has its top bit set.
func kEncodingsDiffer(k []byte) bool { return k[4] == 0 || k[4]&0x80 != 0 }

// honestExchange runs an honest key exchange on ss as the client and checks
// the server's part: its KEX_ECDH_REPLY (S_REPLY accepted by pqkex's
// client), its host key signature over the exchange hash pqkex computes,
// SSH_MSG_NEWKEYS, and one encrypted round trip (SSH_MSG_SERVICE_REQUEST,
// SSH_MSG_SERVICE_ACCEPT), which shows both directions' keys are derived
// from K and H (RFC 4253 §7.2). It sets r's verdict; err is non-nil when
// the exchange did not complete.
func honestExchange(ss *session, m *method, r *Result) (kDiffers bool, err error) {
	fail := func(v Verdict, format string, args ...any) (bool, error) {
		r.Verdict, r.Detail = v, fmt.Sprintf(format, args...)
		return false, errNotHonest
	}
	client, err := m.newClientHalf()
	if err != nil {
		return fail(NotRun, "%v", err)
	}
	qc := client.init()
	if err := ss.c.write(sshwire.AppendKexECDHInit(nil, qc)); err != nil {
		return fail(NotRun, "sending SSH_MSG_KEX_ECDH_INIT: %v", err)
	}
	k, H, ok := readReply(ss, m, client, qc, r)
	if !ok {
		return false, errNotHonest
	}
	defer clear(k)

	// SSH_MSG_NEWKEYS both ways (RFC 4253 §7.3).
	if err := ss.c.write([]byte{msgNewKeys}); err != nil {
		return fail(NotRun, "sending SSH_MSG_NEWKEYS: %v", err)
	}
	if ss.algs.strict {
		ss.c.writeSeq = 0
	}
	if ss.c.out, err = sshwire.NewPacketCipher(ss.algs.cipherCS, ss.algs.macCS, m.hash, k, H, H, sshwire.ClientToServer); err != nil {
		return fail(NotRun, "%v", err)
	}
	if !readNewKeys(ss, m, k, H, r) {
		return false, errNotHonest
	}

	req := sshwire.AppendString([]byte{msgServiceRequest}, []byte("ssh-userauth"))
	if err := ss.c.write(req); err != nil {
		return fail(NotRun, "sending SSH_MSG_SERVICE_REQUEST: %v", err)
	}
	var ev event
	for range 4 { // SSH_MSG_EXT_INFO may come first (RFC 8308 §2.4)
		ev = ss.c.next(false)
		if ev.kind == evPacket && ev.payload[0] == msgExtInfo {
			continue
		}
		break
	}
	switch {
	case ev.kind == evPacket && ev.payload[0] == msgServiceAccept:
	case ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth):
		return fail(Failed, "the server's first encrypted packet does not authenticate under the server-to-client keys derived from K and H (RFC 4253 §7.2)")
	case ev.kind == evDisconnect || ev.kind == evClosed:
		return fail(Failed, "after our first encrypted packet (SSH_MSG_SERVICE_REQUEST) the server ended the connection (%s): it did not derive the client-to-server keys from K and H as RFC 4253 §7.2 says", describe(ev))
	default:
		return fail(Failed, "to our encrypted SSH_MSG_SERVICE_REQUEST the server answered %s, not SSH_MSG_SERVICE_ACCEPT", describe(ev))
	}
	ss.c.write(disconnectMsg(11, "pqkex check: case complete"))
	algs := ss.algs.cipherCS
	if ss.algs.macCS != "" {
		algs += " + " + ss.algs.macCS
	}
	r.Verdict = Completed
	r.Detail = fmt.Sprintf("the %s signature verifies over H; SSH_MSG_NEWKEYS, then %s both ways with keys from K and H", ss.algs.hostKey, algs)
	return kEncodingsDiffer(k), nil
}

// readReply reads the server's answer to the honest C_INIT qc of client:
// a KEX_ECDH_REPLY whose S_REPLY pqkex's client accepts and whose host key
// signature verifies over the exchange hash H computed from the
// transcript. It returns K (secret) and H, or records the failure in r.
func readReply(ss *session, m *method, client *clientHalf, qc []byte, r *Result) (k, H []byte, ok bool) {
	ev := ss.c.next(ss.algs.strict)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHReply {
		decide(r, ev, 0)
		if r.Verdict == Rejected || r.Verdict == Closed || r.Verdict == Ignored {
			r.Verdict = Failed
		}
		r.Detail = "an honest C_INIT got " + r.Detail
		return nil, nil, false
	}
	hostKey, qs, sig, err := sshwire.ParseKexECDHReply(ev.payload)
	if err != nil {
		r.Verdict, r.Detail = Malformed, "SSH_MSG_KEX_ECDH_REPLY: "+err.Error()
		return nil, nil, false
	}
	kPQ, kCL, err := client.finish(qs)
	if err != nil {
		r.Verdict, r.Detail = Failed, "the server's S_REPLY: "+err.Error()
		return nil, nil, false
	}
	defer clear(kPQ)
	defer clear(kCL)
	k = m.combine(kPQ, kCL)
	H = kexhash.ExchangeHash(m.hash, []byte(version), []byte(ss.version), ss.ours, ss.theirs, hostKey, qc, qs, k)
	if err := verifyHostSignature(ss.algs.hostKey, hostKey, sig, H); err != nil {
		r.Verdict, r.Detail = Failed, err.Error()+diagnoseK(m, ss, hostKey, qc, qs, kPQ, kCL, sig)
		clear(k)
		return nil, nil, false
	}
	return k, H, true
}

// readNewKeys reads the server's SSH_MSG_NEWKEYS and installs the
// server-to-client keys from k and H, or records the failure in r.
func readNewKeys(ss *session, m *method, k, H []byte, r *Result) bool {
	in, err := sshwire.NewPacketCipher(ss.algs.cipherSC, ss.algs.macSC, m.hash, k, H, H, sshwire.ServerToClient)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return false
	}
	ev := ss.c.next(ss.algs.strict)
	if ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		r.Verdict, r.Detail = Failed, "after its KEX_ECDH_REPLY the server sent "+describe(ev)+", not SSH_MSG_NEWKEYS"
		return false
	}
	if ss.algs.strict {
		ss.c.readSeq = 0
	}
	ss.c.in = in
	return true
}

// keyType is the host key type of a host key algorithm (RFC 8332: the
// rsa-sha2 algorithms use ssh-rsa keys).
func keyType(algo string) string {
	if algo == ssh.KeyAlgoRSASHA256 || algo == ssh.KeyAlgoRSASHA512 {
		return ssh.KeyAlgoRSA
	}
	return algo
}

// verifyHostSignature checks the server's signature over H (RFC 4253 §8)
// with its host key, for the negotiated host key algorithm.
func verifyHostSignature(algo string, hostKey, sigBlob, H []byte) error {
	pub, err := ssh.ParsePublicKey(hostKey)
	if err != nil {
		return fmt.Errorf("the host key (K_S) does not parse: %s", sshwire.Printable(err.Error(), 200))
	}
	if pub.Type() != keyType(algo) {
		return fmt.Errorf("the host key is of type %s, the negotiated algorithm %s", sshwire.Printable(pub.Type(), 64), algo)
	}
	var sig ssh.Signature
	if err := ssh.Unmarshal(sigBlob, &sig); err != nil {
		return fmt.Errorf("the signature does not parse: %s", sshwire.Printable(err.Error(), 200))
	}
	if sig.Format != algo {
		return fmt.Errorf("the signature is of algorithm %s, the negotiated one %s", sshwire.Printable(sig.Format, 64), algo)
	}
	if err := pub.Verify(H, &sig); err != nil {
		return errors.New("the host key signature does not verify over the exchange hash H computed from the transcript")
	}
	return nil
}

// diagnoseK says which wrong K the server's signature verifies with, if
// one does: the mistakes seen in implementations of these methods (K as
// an mpint, K without its length, the halves in the other order).
func diagnoseK(m *method, ss *session, hostKey, qc, qs, kPQ, kCL, sig []byte) string {
	k := m.combine(kPQ, kCL)
	defer clear(k)
	reversed := m.combine(kCL, kPQ)
	defer clear(reversed)
	for _, alt := range []struct {
		what string
		k    []byte
	}{
		{"K hashed as an mpint instead of a string", kexhash.Mpint(k[4:])},
		{"K hashed without its length", k[4:]},
		{"K = HASH(K_CL || K_PQ), the halves in the wrong order", reversed},
	} {
		H := kexhash.ExchangeHash(m.hash, []byte(version), []byte(ss.version), ss.ours, ss.theirs, hostKey, qc, qs, alt.k)
		if verifyHostSignature(ss.algs.hostKey, hostKey, sig, H) == nil {
			return "; it verifies over H computed with " + alt.what
		}
	}
	return ""
}
