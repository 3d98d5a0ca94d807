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
}

// maxRespond bounds the answers drawn until K's string and mpint
// encodings differ (each does with probability 0.502, see maxHonest), or
// until the server's public key ends in a zero byte (1/128 for X25519,
// 1/256 for the NIST curves).
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

// shortReply is the case s-reply-short: S_REPLY without its last byte,
// from an answer whose public key ends in 00 and signed with the honest
// K. A client that skips the length check and zero-extends the short
// key, or reads the key's last byte past S_REPLY (the first byte of the
// signature's uint32 length, 00 for any signature shorter than 16 MiB),
// computes exactly that K and would take the reply: so it shows as
// accepted instead of failing on the signature. (A client that splits
// S_REPLY from its end, taking a one byte short ciphertext, computes a K
// that cannot be known here.)
func shortReply(m *method) clientCase {
	return clientCase{id: "s-reply-short", clause: lengthClause(m), expect: ExpectAbort,
		what: "S_REPLY one byte short (its last byte, 00, left off; signed with the K of the whole key, which a client that zero-extends or reads past S_REPLY computes)",
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
			H, err := t.sign(qs[:len(qs)-1], k)
			return k, H, err
		}}
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
	honestClause, kClause := "RFC 10042 §2.4-2.5; RFC 4253 §7.2, §8", "RFC 10042 §2.5"
	if m.kem == "sntrup761" {
		honestClause, kClause = "RFC 9941 §3; RFC 4253 §7.2, §8", "RFC 9941 §3"
	}
	honest := signed("honest", honestClause, "an honest KEX_ECDH_REPLY", true, honestK(func(qs []byte) []byte { return qs }))
	honest.expect, honest.session = ExpectComplete, honestSession
	tampered := signed("packet-tampered", "RFC 4253 §6.4", "an honest KEX_ECDH_REPLY", false, honestK(func(qs []byte) []byte { return qs }))
	tampered.session = tamperedSession
	cases := []clientCase{
		honest,
		tampered,
		shortReply(m),
		signed("s-reply-long", lengthClause(m), "S_REPLY one byte long (signed with the honest K, which a client that reads only the key's length computes)",
			false, honestK(func(qs []byte) []byte { return append(qs, 0) })),
	}
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
