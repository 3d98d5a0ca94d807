package conformance

// The cases a client under test goes through: one KEX_ECDH_REPLY each.

import (
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// clientCase is one check of a client.
type clientCase struct {
	id, clause string
	expect     Expectation
	what       string // what the reply is, for details
	// reply builds the KEX_ECDH_REPLY into t (t.sign) from an honest
	// answer and returns the honest K (string-encoded, secret) and the H
	// it signed. other is a host key of the negotiated type other than the
	// one shown.
	reply func(t *transcript, other ssh.AlgorithmSigner) (k, H []byte, err error)
	// session, if set, makes the case one whose key exchange must
	// complete: it runs after both SSH_MSG_NEWKEYS, with the keys from K
	// and H installed both ways, and decides the verdict. Without it the
	// case's reply is one the client must refuse (judgeRejection).
	session func(c *conn, algs algorithms, r *Result)
	// resume, instead of session, continues the connection with what a
	// re-exchange needs of the first one (rekey.go).
	resume func(x *reexchange, r *Result)
}

// maxRespond bounds the answers drawn until K's string and mpint
// encodings differ (each does with probability 0.502, see maxHonest).
const maxRespond = 4096

// respond answers the client's C_INIT honestly; with differ set, it
// draws again until K's string and mpint encodings differ, so that a
// client hashing K as an mpint computes another H.
func respond(t *transcript, differ bool) (*serverHalf, []byte, error) {
	return respondWhere(t, func(h *serverHalf, k []byte) bool { return !differ || kEncodingsDiffer(k) },
		"K's string and mpint encodings differ")
}

// respondWhere answers the client's C_INIT honestly, drawing new answers
// until ok holds of one (at most maxRespond).
func respondWhere(t *transcript, ok func(h *serverHalf, k []byte) bool, what string) (*serverHalf, []byte, error) {
	for range maxRespond {
		h, err := t.m.answer(t.qc)
		if err != nil {
			return nil, nil, errors.New("the client's C_INIT is invalid: " + err.Error())
		}
		k := t.m.combine(h.kPQ, h.kCL)
		if ok(h, k) {
			t.half = h
			return h, k, nil
		}
		clear(k)
		h.wipe()
	}
	return nil, nil, fmt.Errorf("no answer in %d in which %s", maxRespond, what)
}

// The wrong-length S_REPLY cases are signed for each reading a client
// that skips the length check may make of the value, so that taking it
// shows as accepted rather than as a failed signature (a client reads
// the value one way to compute K, and hashes into H either what was sent
// or what it used):
//
//   - one byte short, its last byte (00) left off: a client that
//     zero-extends it, or reads the key's last byte past S_REPLY (the
//     first byte of the signature's uint32 length, 00 for any signature
//     shorter than 16 MiB), uses the whole key and computes the honest
//     K; H over the short value sent (s-reply-short) or over the whole
//     one it used (s-reply-short-hash-used);
//   - one byte long (00 appended): a client that reads the key's length
//     from the start and cuts the rest computes the honest K; H over the
//     long value sent (s-reply-long) or over what it kept
//     (s-reply-long-hash-kept).
//
// Readings that split S_REPLY from its end (the classical key its last
// bytes, the ciphertext whatever is before) cannot be signed for: the
// ciphertext is then a byte short or long, whose K_PQ check cannot know
// (ML-KEM's implicit rejection derives it from the client's secret z),
// and the classical key is shifted by a byte, a point whose discrete
// logarithm check does not know.

// shortReply is the case s-reply-short, or with hashUsed
// s-reply-short-hash-used: S_REPLY without its last byte, from an answer
// whose public key ends in 00, signed with the honest K over H of the
// short value sent or of the whole one a client that zero-extends or
// reads past computes with.
func shortReply(m *method, hashUsed bool) clientCase {
	id, hashed := "s-reply-short", "the short S_REPLY sent"
	if hashUsed {
		id, hashed = "s-reply-short-hash-used", "the whole S_REPLY that such a client uses"
	}
	return clientCase{id: id, clause: lengthClause(m), expect: ExpectAbort,
		what: "S_REPLY one byte short (its last byte, 00, left off; signed with the K of the whole key, which a client that zero-extends or reads past S_REPLY computes, over H of " + hashed + ")",
		reply: func(t *transcript, _ ssh.AlgorithmSigner) ([]byte, []byte, error) {
			h, _, err := respond(t, false)
			if err != nil {
				return nil, nil, err
			}
			defer h.wipe()
			// Only the classical key is drawn again (the KEM's answer
			// stays): about 128 X25519 or 256 NIST key pairs.
			if h.pub[len(h.pub)-1] != 0 {
				if err := h.redrawClassical(t.m, t.qc, func(pub []byte) bool { return pub[len(pub)-1] == 0 }); err != nil {
					return nil, nil, err
				}
			}
			k := t.m.combine(h.kPQ, h.kCL)
			qs := h.reply()
			hashedQS := qs[:len(qs)-1]
			if hashUsed {
				hashedQS = qs
			}
			H, err := t.signAs(qs[:len(qs)-1], hashedQS, k)
			return k, H, err
		}}
}

// longReply is the case s-reply-long, or with hashKept
// s-reply-long-hash-kept: S_REPLY with a 00 appended, signed with the
// honest K over H of the long value sent or of the honest one a client
// that cuts it to length keeps.
func longReply(m *method, hashKept bool) clientCase {
	id, hashed := "s-reply-long", "the long S_REPLY sent"
	if hashKept {
		id, hashed = "s-reply-long-hash-kept", "the S_REPLY cut to its length, which such a client keeps"
	}
	return clientCase{id: id, clause: lengthClause(m), expect: ExpectAbort,
		what: "S_REPLY one byte long (00 appended; signed with the honest K, which a client that reads only the key's length computes, over H of " + hashed + ")",
		reply: func(t *transcript, _ ssh.AlgorithmSigner) ([]byte, []byte, error) {
			h, k, err := respond(t, false)
			if err != nil {
				return nil, nil, err
			}
			defer h.wipe()
			qs := h.reply()
			long := append(qs[:len(qs):len(qs)], 0)
			hashedQS := long
			if hashKept {
				hashedQS = qs
			}
			H, err := t.signAs(long, hashedQS, k)
			return k, H, err
		}}
}

// zeroCase is an honest exchange whose K_PQ or K_CL starts with the zero
// bytes z asks for (zeros.go), which a client must complete: one that
// drops them computes another K and fails the signature.
func zeroCase(m *method, id string, z zerosWant) clientCase {
	return clientCase{id: id, clause: zeroClause(m, z), expect: ExpectComplete, what: "an honest KEX_ECDH_REPLY in which " + z.String(),
		reply: func(t *transcript, _ ssh.AlgorithmSigner) ([]byte, []byte, error) {
			h, err := t.m.answerZeros(t.qc, z)
			if err != nil {
				if errors.Is(err, errCannotRun) {
					return nil, nil, err
				}
				return nil, nil, errors.New("the client's C_INIT is invalid: " + err.Error())
			}
			defer h.wipe()
			t.half = h
			k := t.m.combine(h.kPQ, h.kCL)
			H, err := t.sign(h.reply(), k)
			return k, H, err
		},
		session: func(c *conn, algs algorithms, r *Result) {
			honestSession(c, algs, r)
			if r.Verdict == Completed {
				r.Detail = "with " + z.String() + ": " + r.Detail
			}
		}}
}

// zeroClause is where the length of the part z makes start with zero
// bytes is fixed for m: RFC 10042 §2.4 (K_PQ and K_CL "encoded as
// fixed-length byte arrays, not as integers"; K_CL "a fixed-size (32
// bytes for Curve25519 and secp256r1 or 48 bytes for secp384r1) byte
// array") with the part's own definition: ML-KEM's 32-byte shared key
// (FIPS 203 §7.2), X25519's "32- or 56-byte point" (RFC 8731 §3.1), the
// NIST x-coordinate as a field element of fixed length (SEC 1 §2.3.5);
// RFC 9941 §3 for sntrup761's 32-byte key and X25519 result.
func zeroClause(m *method, z zerosWant) string {
	base := "RFC 10042 §2.4"
	if m.kem == "sntrup761" {
		base = "RFC 9941 §3"
	}
	switch {
	case z.pq > 0 && m.kem != "sntrup761":
		return base + "; FIPS 203 §7.2"
	case z.pq > 0:
		return base
	case m.x25519():
		return base + "; RFC 8731 §3.1"
	}
	return base + "; RFC 5656 §4; SEC 1 §2.3.5"
}

// signed is a case that sends S_REPLY as build makes it from an honest
// answer, signed over the H of what is sent with K as build says.
func signed(id, clause, what string, differ bool, build func(m *method, h *serverHalf, k []byte) (qs, kHashed []byte)) clientCase {
	return clientCase{id: id, clause: clause, expect: ExpectAbort, what: what, reply: func(t *transcript, _ ssh.AlgorithmSigner) ([]byte, []byte, error) {
		h, k, err := respond(t, differ)
		if err != nil {
			return nil, nil, err
		}
		defer h.wipe()
		qs, kHashed := build(t.m, h, k)
		H, err := t.sign(qs, kHashed)
		return k, H, err
	}}
}

// honestK is a build that signs with the honest K.
func honestK(mutate func(qs []byte) []byte) func(*method, *serverHalf, []byte) ([]byte, []byte) {
	return func(_ *method, h *serverHalf, k []byte) ([]byte, []byte) { return mutate(h.reply()), k }
}

// clientCases returns the cases for method m, in order.
func clientCases(m *method) []clientCase {
	kClause := "RFC 10042 §2.5"
	if m.kem == "sntrup761" {
		kClause = "RFC 9941 §3"
	}
	honest := signed("honest", honestClause(m), "an honest KEX_ECDH_REPLY", true, honestK(func(qs []byte) []byte { return qs }))
	honest.expect, honest.session = ExpectComplete, honestSession
	tampered := signed("packet-tampered", "RFC 4253 §6.4", "an honest KEX_ECDH_REPLY", false, honestK(func(qs []byte) []byte { return qs }))
	tampered.session = tamperedSession
	cases := []clientCase{
		honest,
		tampered,
		shortReply(m, false),
		shortReply(m, true),
		longReply(m, false),
		longReply(m, true),
		zeroCase(m, "k-pq-00", zerosWant{pq: 1}),
	}
	if m.mlkemK > 0 {
		// Two zero bytes cost 65 536 draws on average: SHA3-512 hashes
		// for ML-KEM, but encapsulations for sntrup761 and steps of a
		// walk (walk.go, with a long tail) for the classical parts,
		// in every run of every client check and simulated client, for
		// a defect the one zero byte shows already: those stop at one.
		cases = append(cases, zeroCase(m, "k-pq-0000", zerosWant{pq: 2}))
	}
	cases = append(cases, zeroCase(m, "k-cl-00", zerosWant{cl: 1}))
	rekey := signed("rekey", rekeyClause, "an honest KEX_ECDH_REPLY", false, honestK(func(qs []byte) []byte { return qs }))
	rekey.expect, rekey.resume = ExpectComplete, rekeySession
	byClient := signed("rekey-by-client", rekeyClause, "an honest KEX_ECDH_REPLY", false, honestK(func(qs []byte) []byte { return qs }))
	byClient.expect, byClient.resume = ExpectComplete, rekeyByClientSession
	cases = append(cases, rekey, byClient)
	for i, b := range m.badPoints(nil) {
		what := "a " + m.curve + " public key that is " + b.what
		switch b.lenient {
		case zeroSecret:
			what += ", signed with the K of an all-zero shared secret (what a client without the check computes)"
		case honestSecret:
			what += ", signed with the K of the point it encodes (what a client that decodes it computes)"
		default:
			what += " (a client that took it would fail on the signature instead: this case shows only that it aborted)"
		}
		c := signed(b.id, b.clauseFor(m), what, false, func(m *method, h *serverHalf, k []byte) ([]byte, []byte) {
			bad := m.badPoints(h.pub)[i]
			qs := append(h.ct[:len(h.ct):len(h.ct)], bad.value...)
			if bad.lenient == zeroSecret {
				return qs, m.combine(h.kPQ, make([]byte, len(h.kCL)))
			}
			return qs, k
		})
		c.expect = b.expectation()
		cases = append(cases, c)
	}
	return append(cases,
		signed("sig-k-mpint", kClause+"; RFC 4253 §8", "a reply signed over H computed with K as an mpint instead of a string", true,
			func(_ *method, h *serverHalf, k []byte) ([]byte, []byte) { return h.reply(), kexhash.Mpint(k[4:]) }),
		signed("ct-tampered", "FIPS 203 §6.3 / NTRU Prime §2.3.8 (implicit rejection); RFC 4253 §8",
			"S_REPLY with one bit of the KEM ciphertext flipped, signed over it with the K of the untampered one", false,
			honestK(func(qs []byte) []byte { qs[0] ^= 1; return qs })),
		clientCase{id: "host-key-mismatch", clause: "RFC 4253 §8", expect: ExpectAbort, what: "a reply whose signature is made with another key than the host key it shows",
			reply: func(t *transcript, other ssh.AlgorithmSigner) ([]byte, []byte, error) {
				h, k, err := respond(t, false)
				if err != nil {
					return nil, nil, err
				}
				defer h.wipe()
				t.signer = other
				H, err := t.sign(h.reply(), k)
				return k, H, err
			}},
	)
}
