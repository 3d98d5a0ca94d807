package conformance

// The honest exchange: everything a server sends in a correct key
// exchange is checked, up to its first encrypted packet.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// maxHonest bounds the honest exchanges run until K's string and mpint
// encodings differ. They agree exactly when the digest starts with a byte
// in 01-7f, or with 00 followed by a byte in 80-ff (see kEncodingsDiffer),
// which for an honest server's uniformly distributed digest happens with
// probability 127/256 + 128/65536 = 0.498; a server that hashes K as an
// mpint is caught only on an exchange where they differ. A server that
// draws its ephemeral keys until K's encodings agree (and so could hash K
// either way unnoticed) makes all maxHonest agree; an honest server does
// so with probability 0.498^32 < 2^-32, so that outcome is reported as
// not conforming rather than as a case that could not run.
const maxHonest = 32

// honestEvidence is the number of agreeing exchanges that is already
// evidence (0.498^20 < 2^-20) when the case's time runs out before
// maxHonest.
const honestEvidence = 20

// runHonest repeats the honest exchange, each on a new connection, until
// one completes with a K whose encodings differ, or one fails.
func runHonest(ctx context.Context, s *serverChecker, m *method, r *Result) {
	// However many exchanges it takes, the case takes at most
	// honestBudget connection timeouts in all (a slow server cannot
	// multiply them); if that ends it after enough exchanges whose K
	// encodings all agreed, that is itself the finding.
	s.caseEnd = time.Now().Add(honestBudget * s.opts.Timeout)
	defer func() { s.caseEnd = time.Time{} }()
	for {
		if r.Attempts >= honestEvidence && time.Now().After(s.caseEnd) {
			r.Verdict = Failed
			r.Detail = fmt.Sprintf("%d honest exchanges completed before the case's time ran out, and in none did K's string and mpint encodings differ: "+
				"a server that draws its keys at random does that with probability below 2^-20 (RFC 10042 §2.5 and RFC 9941 §3 fix K as a string)", r.Attempts)
			return
		}
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
			r.Verdict = Failed
			r.Detail = fmt.Sprintf("%d honest exchanges completed, but in none did K's string and mpint encodings differ: "+
				"a server that draws its keys at random does that with probability below 2^-32, one that chooses its keys so "+
				"that an mpint K goes unnoticed does it every time (RFC 10042 §2.5 and RFC 9941 §3 fix K as a string)", r.Attempts)
			return
		}
	}
}

// kEncodingsDiffer reports whether K, string(digest), would hash
// differently as mpint(digest) (RFC 4251 §5): the two encodings are
// compared as bytes. They differ when the digest's first byte has its top
// bit set (the mpint gains a 00) or when it is 00 followed by a byte
// below 80 (the mpint loses leading zeros); 00 followed by 80-ff encodes
// the same both ways. K is secret, but the result is public: both sides
// learn it from whether the signature over H verifies.
func kEncodingsDiffer(k []byte) bool { return !bytes.Equal(kexhash.Mpint(k[4:]), k) }

// honestExchange runs an honest key exchange on ss as the client and checks
// the server's part: its KEX_ECDH_REPLY (S_REPLY accepted by pqkex's
// client), its host key signature over the exchange hash pqkex computes,
// SSH_MSG_NEWKEYS, and one encrypted round trip (SSH_MSG_SERVICE_REQUEST,
// SSH_MSG_SERVICE_ACCEPT), which shows the server derives both
// directions' keys from K and H (RFC 4253 §7.2): its accept authenticates
// under the server-to-client keys. That it decrypted and authenticated
// our request rather than answering any packet is what the case
// packet-tampered shows, with the same request and one bit of its MAC
// flipped. It sets r's verdict; err is non-nil when the exchange did not
// complete.
func honestExchange(ss *session, m *method, r *Result) (kDiffers bool, err error) {
	k, ok := honestKex(ss, m, r)
	if !ok {
		return false, errNotHonest
	}
	defer clear(k)
	if err := ss.c.write(serviceRequestMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_SERVICE_REQUEST: "+err.Error()
		return false, errNotHonest
	}
	ev := nextAfterRequest(ss)
	switch {
	case ev.kind == evPacket && ev.payload[0] == msgServiceAccept:
	case ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth):
		r.Verdict, r.Detail = Failed, "the server's first encrypted packet does not authenticate under the server-to-client keys derived from K and H (RFC 4253 §7.2)"
		return false, errNotHonest
	case ev.kind == evDisconnect || ev.kind == evClosed:
		r.Verdict, r.Detail = Failed, fmt.Sprintf("after our first encrypted packet (SSH_MSG_SERVICE_REQUEST) the server ended the connection (%s): it did not derive the client-to-server keys from K and H as RFC 4253 §7.2 says", describe(ev))
		return false, errNotHonest
	default:
		r.Verdict, r.Detail = Failed, fmt.Sprintf("to our encrypted SSH_MSG_SERVICE_REQUEST the server answered %s, not SSH_MSG_SERVICE_ACCEPT", describe(ev))
		return false, errNotHonest
	}
	ss.c.write(disconnectMsg(11, "pqkex check: case complete"))
	algs := ss.algs.cipherCS
	if ss.algs.macCS != "" {
		algs += " + " + ss.algs.macCS
	}
	r.Verdict = Completed
	r.Detail = fmt.Sprintf("the %s signature verifies over H; SSH_MSG_NEWKEYS both ways, then SSH_MSG_SERVICE_REQUEST answered by "+
		"SSH_MSG_SERVICE_ACCEPT under the keys from K and H (%s); that the server checks the request's MAC is the case packet-tampered", ss.algs.hostKey, algs)
	return kEncodingsDiffer(k), nil
}

// serviceRequestMsg is SSH_MSG_SERVICE_REQUEST for ssh-userauth (RFC 4253 §10).
var serviceRequestMsg = sshwire.AppendString([]byte{msgServiceRequest}, []byte("ssh-userauth"))

// nextAfterRequest is the server's answer to SSH_MSG_SERVICE_REQUEST,
// past an SSH_MSG_EXT_INFO it may send first (RFC 8308 §2.4).
func nextAfterRequest(ss *session) event {
	var ev event
	for range 4 {
		ev = ss.c.next(false)
		if ev.kind != evPacket || ev.payload[0] != msgExtInfo {
			break
		}
	}
	return ev
}

// honestKex runs an honest key exchange on ss as the client up to both
// SSH_MSG_NEWKEYS, with the new keys installed both ways, and returns K
// (secret); or records in r what went wrong.
func honestKex(ss *session, m *method, r *Result) (k []byte, ok bool) {
	fail := func(v Verdict, format string, args ...any) ([]byte, bool) {
		r.Verdict, r.Detail = v, fmt.Sprintf(format, args...)
		return nil, false
	}
	client := ss.client
	if client == nil {
		if client = newClient(ss, m, r); client == nil {
			return nil, false
		}
	} else {
		client.record(ss.c)
	}
	qc := client.init()
	if err := ss.c.write(sshwire.AppendKexECDHInit(nil, qc)); err != nil {
		return fail(NotRun, "sending SSH_MSG_KEX_ECDH_INIT: %v", err)
	}
	k, H, ok := readReply(ss, m, client, qc, r)
	if !ok {
		if r.Verdict == Rejected || r.Verdict == Closed || r.Verdict == Ignored {
			r.Verdict = Failed // an honest exchange must complete
		}
		return nil, false
	}
	ss.sessionID = H
	// SSH_MSG_NEWKEYS both ways (RFC 4253 §7.3).
	if err := ss.c.write([]byte{msgNewKeys}); err != nil {
		clear(k)
		return fail(NotRun, "sending SSH_MSG_NEWKEYS: %v", err)
	}
	if ss.algs.strict {
		ss.c.writeSeq = 0
	}
	var err error
	if ss.c.out, err = ss.c.cipher(ss.algs, m.hash, k, H, H, sshwire.ClientToServer); err != nil {
		clear(k)
		return fail(NotRun, "%v", err)
	}
	if !readNewKeys(ss, m, k, H, r) {
		clear(k)
		return nil, false
	}
	return k, true
}

// honestInitGot starts the detail of a server that did not answer an
// honest C_INIT with a reply (a case that sent other packets around it
// says so itself, failedReply).
const honestInitGot = "an honest C_INIT got "

// readReply reads the server's answer to the honest C_INIT qc of client:
// a KEX_ECDH_REPLY whose S_REPLY pqkex's client accepts and whose host key
// signature verifies over the exchange hash H computed from the
// transcript. It returns K (secret) and H, or records in r what the
// server did instead (the verdict of an abort-expected case: a refusal is
// Rejected or Closed).
func readReply(ss *session, m *method, client *clientHalf, qc []byte, r *Result) (k, H []byte, ok bool) {
	ev := ss.c.next(ss.algs.strict)
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHReply {
		decide(r, ev, 0)
		r.Detail = honestInitGot + r.Detail
		silentIf(r, "SSH_MSG_KEX_ECDH_REPLY")
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
	if ss.observe != nil {
		ss.observe(kPQ, kCL, qs)
	}
	k = m.combine(kPQ, kCL)
	H = kexhash.ExchangeHash(m.hash, []byte(ss.ident), []byte(ss.version), ss.ours, ss.theirs, hostKey, qc, qs, k)
	ss.c.derived("K_PQ", kPQ)
	ss.c.derived("K_CL", kCL)
	ss.c.derived("K = string(HASH(K_PQ || K_CL))", k)
	ss.c.derived("H", H)
	if err := verifyHostSignature(ss.algs.hostKey, hostKey, sig, H); err != nil {
		diagnosis, finding := diagnoseK(m, ss, hostKey, qc, qs, kPQ, kCL, sig)
		r.Verdict, r.Detail, r.Finding = Failed, err.Error()+diagnosis, finding
		clear(k)
		return nil, nil, false
	}
	return k, H, true
}

// readNewKeys reads the server's SSH_MSG_NEWKEYS and installs the
// server-to-client keys from k and H, or records the failure in r.
func readNewKeys(ss *session, m *method, k, H []byte, r *Result) bool {
	in, err := ss.c.cipher(ss.algs, m.hash, k, H, H, sshwire.ServerToClient)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return false
	}
	ev := ss.c.next(ss.algs.strict)
	if ev.kind == evTimeout {
		r.Verdict, r.Detail = Hung, "after its KEX_ECDH_REPLY the server sent "+describe(ev)
		silentIf(r, "SSH_MSG_NEWKEYS")
		return false
	}
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
// one does, and the finding that names the mistake when it is more
// precise than the case's: the mistakes seen in implementations of
// these methods (K as an mpint, K without its length, the halves in the
// other order, and, when a part starts with zero bytes, that part
// without them: k-leading-zero). It branches on whether K_PQ and K_CL
// start with zero bytes: they are check's own secrets of an exchange
// that failed.
func diagnoseK(m *method, ss *session, hostKey, qc, qs, kPQ, kCL, sig []byte) (diagnosis, finding string) {
	k := m.combine(kPQ, kCL)
	defer clear(k)
	reversed := m.combine(kCL, kPQ)
	defer clear(reversed)
	type alt struct {
		what, finding string
		k             []byte
	}
	alts := []alt{
		{"K hashed as an mpint instead of a string", "", kexhash.Mpint(k[4:])},
		{"K hashed without its length", "", k[4:]},
		{"K = HASH(K_CL || K_PQ), the halves in the wrong order", "", reversed},
	}
	if n := leadingZeros(kPQ); n > 0 {
		alts = append(alts, alt{fmt.Sprintf("K_PQ without its %d leading zero byte(s) (it started with %s)", n, zeroBytes(n)), "k-leading-zero", m.combine(kPQ[n:], kCL)})
	}
	if n := leadingZeros(kCL); n > 0 {
		alts = append(alts, alt{fmt.Sprintf("K_CL without its %d leading zero byte(s) (it started with %s)", n, zeroBytes(n)), "k-leading-zero", m.combine(kPQ, kCL[n:])})
	}
	for _, a := range alts {
		H := kexhash.ExchangeHash(m.hash, []byte(ss.ident), []byte(ss.version), ss.ours, ss.theirs, hostKey, qc, qs, a.k)
		if verifyHostSignature(ss.algs.hostKey, hostKey, sig, H) == nil {
			return "; it verifies over H computed with " + a.what, a.finding
		}
	}
	return "", ""
}
