package conformance

// The server's half of a hybrid key exchange, written out from the
// standard library's ML-KEM and ECDH and pqkex's sntrup761 KEM (not the
// method packages' engine), so that checking a client, pqkex's included,
// does not check an implementation against itself, and so that a case can
// sign with the K a client that skips a check would compute.

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/kexhash"
)

// serverHalf is one honest server answer to a C_INIT. kPQ, priv and kCL
// are secret.
type serverHalf struct {
	kPQ, ct []byte
	priv    *ecdh.PrivateKey
	pub     []byte // the server's ephemeral public key, as sent
	kCL     []byte
}

func (m *method) ecdhCurve() ecdh.Curve {
	switch m.curve {
	case "P-256":
		return ecdh.P256()
	case "P-384":
		return ecdh.P384()
	}
	return ecdh.X25519()
}

func (m *method) ellipticCurve() elliptic.Curve {
	if m.curve == "P-384" {
		return elliptic.P384()
	}
	return elliptic.P256()
}

// pointClause is where the classical half's checks are specified.
func (m *method) pointClause() string {
	if m.x25519() {
		return "RFC 8731 §3; RFC 7748 §5"
	}
	return "RFC 10042 §2.1; RFC 5656 §4; SEC 1 §3.2.2"
}

// clauseFor is the clause of b for method m.
func (b badValue) clauseFor(m *method) string {
	if b.clause != "" {
		return b.clause
	}
	return m.pointClause()
}

// expectation is what a peer must do with b.
func (b badValue) expectation() Expectation {
	if b.expect != "" {
		return b.expect
	}
	return ExpectAbort
}

// badPoints returns the invalid classical public keys for m, the NIST
// ones re-encoding point (a valid uncompressed point; nil: a new one).
func (m *method) badPoints(point []byte) []badValue {
	if m.x25519() {
		return x25519LowOrder
	}
	if point == nil {
		priv, err := m.ecdhCurve().GenerateKey(nil)
		if err != nil {
			panic(err)
		}
		point = priv.PublicKey().Bytes()
	}
	return nistBad(m.ellipticCurve(), point)
}

// answer computes an honest server answer to the client's C_INIT: the
// checks of RFC 10042 §2.1 / RFC 9941 §3 (exact length, FIPS 203 §7.2,
// the peer's classical key), encapsulation, and a new classical key.
func (m *method) answer(clientInit []byte) (*serverHalf, error) {
	return m.answerZeros(clientInit, zerosWant{})
}

// answerZeros is answer with K_PQ and K_CL drawn until they start with
// the zero bytes z asks for (zeros.go); an error wrapping errCannotRun
// is check's own (the draws ran out), any other one is the C_INIT's.
func (m *method) answerZeros(clientInit []byte, z zerosWant) (*serverHalf, error) {
	if len(clientInit) < m.ekSize || !m.pointLength(len(clientInit)-m.ekSize) {
		return nil, fmt.Errorf("C_INIT is %d bytes, want %s", len(clientInit), m.lengths(m.ekSize))
	}
	ek, peer := clientInit[:m.ekSize], m.uncompressed(clientInit[m.ekSize:])
	curve := m.ecdhCurve()
	peerKey, err := curve.NewPublicKey(peer)
	if err != nil {
		return nil, fmt.Errorf("the client's %s public key: %v", m.curve, err)
	}
	h := &serverHalf{}
	if h.kPQ, h.ct, err = m.encapsulate(ek, z.pq); err != nil {
		return nil, err
	}
	if h.priv, h.kCL, err = classicalWith(curve, peerKey, z.cl); err != nil {
		clear(h.kPQ)
		if errors.Is(err, errCannotRun) {
			return nil, err
		}
		return nil, fmt.Errorf("the client's %s public key: %v", m.curve, err)
	}
	h.pub = h.priv.PublicKey().Bytes()
	return h, nil
}

// The length of C_INIT and S_REPLY is "the sum of the expected length of
// each public key" (RFC 10042 §2.1), and for P-256 and P-384 "point
// compression may be used" (§2.3.1-2.3.2, after RFC 5656 §4): a NIST
// point is 65 / 97 bytes uncompressed or 33 / 49 compressed (SEC 1
// §2.3.3), an X25519 key 32 bytes (RFC 8731 §3).

// compressedSize is the length of m's compressed point (0 for X25519).
func (m *method) compressedSize() int {
	if m.x25519() {
		return 0
	}
	return 1 + (m.pointSize()-1)/2
}

// pointLength reports whether n is a length m's public key may have.
func (m *method) pointLength(n int) bool {
	return n == m.pointSize() || n != 0 && n == m.compressedSize()
}

// lengths says which lengths a message of prefix bytes and m's public key
// may have.
func (m *method) lengths(prefix int) string {
	if m.x25519() {
		return fmt.Sprint(prefix + m.pointSize())
	}
	return fmt.Sprintf("%d (or %d with a compressed point)", prefix+m.pointSize(), prefix+m.compressedSize())
}

// uncompressed returns a compressed NIST point p as the uncompressed
// point it stands for, and anything else unchanged (to be validated by
// crypto/ecdh): a compressed encoding that is not a point stays as it is
// and fails there.
func (m *method) uncompressed(p []byte) []byte {
	if m.x25519() || len(p) != m.compressedSize() {
		return p
	}
	x, y := elliptic.UnmarshalCompressed(m.ellipticCurve(), p)
	if x == nil {
		return p
	}
	n := (m.pointSize() - 1) / 2
	return append(append([]byte{4}, x.FillBytes(make([]byte, n))...), y.FillBytes(make([]byte, n))...)
}

// redrawClassical replaces h's classical key pair and secret with a
// pair whose public key want accepts (keyWhosePublic) for the client's
// C_INIT (already checked by answer); the secret is computed for it.
func (h *serverHalf) redrawClassical(m *method, clientInit []byte, want func(pub []byte) bool) error {
	peerKey, err := m.ecdhCurve().NewPublicKey(m.uncompressed(clientInit[m.ekSize:]))
	if err != nil {
		return err
	}
	priv, err := m.keyWhosePublic(want)
	if err != nil {
		return err
	}
	kCL, err := priv.ECDH(peerKey)
	if err != nil {
		return err
	}
	clear(h.kCL)
	h.priv, h.kCL, h.pub = priv, kCL, priv.PublicKey().Bytes()
	return nil
}

// reply is S_REPLY: the ciphertext, then the public key (RFC 10042 §2.1,
// RFC 9941 §3).
func (h *serverHalf) reply() []byte { return append(append([]byte(nil), h.ct...), h.pub...) }

// combine is K = string(HASH(K_PQ || K_CL)): HASH(K_PQ || K_CL) is RFC
// 10042 §2.4, its encoding as a string §2.5; RFC 9941 §3 has both.
func (m *method) combine(kPQ, kCL []byte) []byte {
	d := m.hash.New()
	d.Write(kPQ)
	d.Write(kCL)
	return kexhash.String(d.Sum(nil))
}

func (h *serverHalf) wipe() {
	clear(h.kPQ)
	clear(h.kCL)
}
