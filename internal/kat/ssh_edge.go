package kat

import (
	"bytes"
	"crypto/mlkem"
	"encoding/hex"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The SSH vector files' invalid and edge cases (runEdge), judged by
// their strict result.

// edgeKind classifies an SSH edge case by what is wrong with the peer's
// input, from the input itself and crypto/mlkem (not pqkex's code):
// "length", "ek" (an ML-KEM encapsulation key crypto/mlkem rejects) or
// "point".
func edgeKind(m *hybrid.Method, role string, qc, qs []byte) string {
	switch {
	case role == "server" && len(qc) != m.ClientInitSize(), role == "client" && len(qs) != m.ServerReplySize():
		return "length"
	case role == "server" && m.Backend().Name() == "ML-KEM-768":
		if _, err := mlkem.NewEncapsulationKey768(qc[:mlkem.EncapsulationKeySize768]); err != nil {
			return "ek"
		}
	case role == "server" && m.Backend().Name() == "ML-KEM-1024":
		if _, err := mlkem.NewEncapsulationKey1024(qc[:mlkem.EncapsulationKeySize1024]); err != nil {
			return "ek"
		}
	}
	return "point"
}

// edgeError is what the error of a rejected edge case must say.
func edgeError(m *hybrid.Method, kem hybrid.KEM, role, kind string) string {
	peer := map[string]string{"server": "client's ", "client": "server's "}[role]
	switch kind {
	case "length":
		return peer + map[string]string{"server": "C_INIT has ", "client": "S_REPLY has "}[role]
	case "ek":
		return peer + kem.Name() + " encapsulation key is invalid"
	}
	if m.Curve.Name() == "X25519" {
		return peer + "X25519 public key is a low-order point"
	}
	return peer + m.Curve.Name() + " public key "
}

// edgeOutcome is what our side did with an edge case's bad input.
type edgeOutcome struct {
	k, reply, kemKey []byte
	err              error
}

// runEdge checks one edge case of an SSH vector file on ex: our side (the
// case's role) runs on the peer's input with the case's streams, and the
// outcome is judged by the case's strict result (edgeRejected,
// edgeAccepted).
func runEdge(t TB, ex Exchange, f fields) {
	t.Helper()
	f.id = ex.Label + " " + tcID(f.m) + " (" + f.str("comment") + ")"
	result, role := f.str("result"), f.str("role")
	if result != "accept" && result != "reject" {
		t.Fatalf("%s: result %q", f.id, result)
	}
	qc := f.hex("Q_C")
	var qs []byte
	if f.has("Q_S") {
		qs = f.hex("Q_S")
	}
	var o edgeOutcome
	switch role {
	case "server":
		o = edgeServer(f, ex, qc, qs)
	case "client":
		o = edgeClient(f, ex, qc, qs)
	default:
		t.Fatalf("%s: role %q", f.id, role)
	}
	if result == "reject" {
		edgeRejected(f, ex.Method, role, qc, qs, o.err)
		return
	}
	if o.err != nil {
		f.fail("rejected (%v), want accept", o.err)
		return
	}
	edgeAccepted(f, ex, role, qc, qs, o)
}

// edgeServer runs Respond on the client's C_INIT with the case's server
// stream (where Respond ignores its reader, RespondWithKeys gives S_REPLY
// and K on the stream, with the same verdict).
func edgeServer(f fields, ex Exchange, qc, qs []byte) (o edgeOutcome) {
	f.tb.Helper()
	m, kem := ex.Method, ex.Method.Backend()
	cf := curveField[m.Curve.Name()]
	o.reply, o.k, o.err = ex.Respond(shakeStream(f.str("server_stream")), qc)
	s := Stream(f.str("server_stream"), kem.RandomnessSize()+m.Curve.PrivateKeySize())
	if f.has("server_"+cf+"_private") && !bytes.Equal(s[kem.RandomnessSize():], f.hex("server_"+cf+"_private")) {
		f.fail("the server stream does not give the recorded private key")
	}
	if ex.IgnoresReader {
		// The verdict is the ignored-reader path's; S_REPLY and K come
		// from the explicit-key constructor on the stream.
		var err2 error
		o.reply, o.k, err2 = ex.RespondWithKeys(qc, s[:kem.RandomnessSize()], s[kem.RandomnessSize():])
		if (o.err == nil) != (err2 == nil) {
			f.fail("Respond and RespondWithKeys disagree: %v, %v", o.err, err2)
		}
	}
	if o.err == nil && qs != nil && !bytes.Equal(o.reply, qs) {
		f.fail("S_REPLY differs")
	}
	return o
}

// edgeClient runs Finish on the server's S_REPLY, with a client from the
// case's client stream and one from the recorded keys: both must send
// Q_C and come to the same outcome.
func edgeClient(f fields, ex Exchange, qc, qs []byte) (o edgeOutcome) {
	t := f.tb
	t.Helper()
	kem := ex.Method.Backend()
	cPriv := f.hex("client_" + curveField[ex.Method.Curve.Name()] + "_private")
	var err2 error
	if o.kemKey, err2 = explicitKEMKey(kem, shakeStream(f.str("client_stream"))); err2 != nil {
		t.Fatalf("%s: KEM key from the client stream: %v", f.id, err2)
	}
	c2, err2 := ex.NewClientWithKeys(o.kemKey, cPriv)
	if err2 != nil {
		t.Fatalf("%s: NewClientWithKeys: %v", f.id, err2)
	}
	c, err2 := ex.NewClient(shakeStream(f.str("client_stream")))
	if err2 != nil {
		t.Fatalf("%s: NewClient: %v", f.id, err2)
	}
	if !ex.IgnoresReader && !bytes.Equal(c.Init(), qc) || !bytes.Equal(c2.Init(), qc) {
		f.fail("C_INIT from the client stream or the recorded keys differs from Q_C")
	}
	o.k, o.err = c2.Finish(qs)
	if k2, err2 := c.Finish(qs); (o.err == nil) != (err2 == nil) || !ex.IgnoresReader && !bytes.Equal(o.k, k2) {
		f.fail("the stream's client and the recorded keys' give different outcomes: %v, %v", o.err, err2)
	}
	return o
}

// edgeRejected checks a case to reject: err must name the peer's side and
// what is wrong (edgeError of edgeKind) and hold no input bytes.
func edgeRejected(f fields, m *hybrid.Method, role string, qc, qs []byte, err error) {
	f.tb.Helper()
	if err == nil {
		f.fail("accepted, want reject")
		return
	}
	msg := err.Error()
	if want := edgeError(m, m.Backend(), role, edgeKind(m, role, qc, qs)); !strings.Contains(msg, want) {
		f.fail("rejected with %q, want it to say %q", msg, want)
	}
	if HoldsInput(msg, qc, qs) {
		f.fail("error %q contains input bytes", msg)
	}
}

// edgeAccepted checks a case to accept: K must be the listed one and
// string(HASH(K_PQ || K_CL)) of the listed K_PQ and a K_CL that
// crypto/ecdh gives (for a modified ciphertext, the KEM alone decapsulates
// it to the listed K_PQ; for an X25519 key with bit 255 set, the RFC 7748
// value, which OpenSSH does not give); on the server side, the honest
// client agrees with our server.
func edgeAccepted(f fields, ex Exchange, role string, qc, qs []byte, o edgeOutcome) {
	t := f.tb
	t.Helper()
	m, kem := ex.Method, ex.Method.Backend()
	cf := curveField[m.Curve.Name()]
	kpq, want := f.hex("kem_shared_secret"), f.hex("K_ssh_string")
	var kcl []byte
	if f.has(cf + "_shared_secret") {
		kcl = f.hex(cf + "_shared_secret")
	} else if role == "client" {
		// A modified ciphertext: the KEM alone decapsulates it (implicit
		// rejection) to the listed key, crypto/ecdh gives K_CL.
		dk, err := kem.NewDecapsulationKey(o.kemKey)
		if err != nil || len(qs) != m.ServerReplySize() {
			t.Fatalf("%s: KEM key (%v) or Q_S length", f.id, err)
		}
		got := make([]byte, 32)
		dk.Decapsulate(got, qs[:kem.CiphertextSize()])
		if !bytes.Equal(got, kpq) {
			f.fail("the KEM alone does not decapsulate to kem_shared_secret")
		}
		if kcl, err = oracleShared(m.Curve.Name(), f.hex("client_"+cf+"_private"), qs[kem.CiphertextSize():]); err != nil {
			f.fail("crypto/ecdh: %v", err)
		}
	}
	if f.has("K_ssh_string_if_bit255_masked") {
		// A peer X25519 key with bit 255 set: pqkex follows RFC 7748 (the
		// bit is ignored, as crypto/ecdh does), OpenSSH does not.
		kcl, want = f.hex("x25519_shared_secret_if_bit255_masked"), f.hex("K_ssh_string_if_bit255_masked")
		peer, priv := qs[len(qs)-32:], f.hex("client_x25519_private")
		if role == "server" {
			peer, priv = qc[len(qc)-32:], Stream(f.str("server_stream"), kem.RandomnessSize()+32)[kem.RandomnessSize():]
		}
		if peer[31]&0x80 == 0 || bytes.Equal(want, f.hex("K_ssh_string")) {
			f.fail("the vector does not show a bit-255 difference")
		}
		if err := oracleECDH("X25519", priv, peer, kcl); err != nil {
			f.fail("%v", err)
		}
	}
	if !bytes.Equal(o.k, want) || !bytes.Equal(kexK(m.Hash, kpq, kcl), o.k) {
		f.fail("K differs, or is not string(HASH(K_PQ || K_CL)) of the listed values")
	}
	if role == "server" && f.has("client_kem_private_key") && !ex.IgnoresReader {
		// The client whose share was altered, finishing with its honest
		// key, agrees with our server.
		if c, err := ex.NewClientWithKeys(f.hex("client_kem_private_key"), f.hex("client_"+cf+"_private")); err != nil {
			f.fail("honest client: %v", err)
		} else if kc, err := c.Finish(o.reply); err != nil || !bytes.Equal(kc, o.k) {
			f.fail("honest client's K differs (%v)", err)
		}
	}
}

// HoldsInput reports whether text holds input: an 8-byte run (at an
// offset divisible by 8) of any of values, raw or in lower-case hex. Error
// messages about a peer's bytes must not: they would echo the input, or a
// secret, into logs.
func HoldsInput(text string, values ...[]byte) bool {
	for _, v := range values {
		for i := 0; i+8 <= len(v); i += 8 {
			if strings.Contains(text, hex.EncodeToString(v[i:i+8])) || strings.Contains(text, string(v[i:i+8])) {
				return true
			}
		}
	}
	return false
}
