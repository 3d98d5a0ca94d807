package conformance

// The client's half of a hybrid key exchange, written out like the
// server's (serverhalf.go) from crypto/mlkem, crypto/ecdh and pqkex's
// sntrup761 KEM, not from the method packages' engine: checking pqkex's
// own server does not check the engine against itself, and a failed
// signature can be tried against the K of other combiners.

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/sntrup761"
)

// clientHalf is a client's ephemeral keys for one exchange. Its keys and
// every secret it returns must be kept secret.
type clientHalf struct {
	m      *method
	ek     []byte
	decaps func(ct []byte) ([]byte, error)
	dk     func() []byte // the decapsulation key's encoding, for a transcript
	priv   *ecdh.PrivateKey
}

// newClientHalf generates the client's KEM and classical keys.
func (m *method) newClientHalf() (*clientHalf, error) {
	c := &clientHalf{m: m}
	switch m.kem {
	case "ML-KEM-768":
		dk, err := mlkem.GenerateKey768()
		if err != nil {
			return nil, err
		}
		c.ek, c.decaps, c.dk = dk.EncapsulationKey().Bytes(), dk.Decapsulate, dk.Bytes
	case "ML-KEM-1024":
		dk, err := mlkem.GenerateKey1024()
		if err != nil {
			return nil, err
		}
		c.ek, c.decaps, c.dk = dk.EncapsulationKey().Bytes(), dk.Decapsulate, dk.Bytes
	case "sntrup761":
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			return nil, err
		}
		c.ek, c.decaps, c.dk = dk.EncapsulationKey().Bytes(), dk.Decapsulate, dk.Bytes
	default:
		return nil, errors.New("unknown KEM " + m.kem)
	}
	var err error
	if c.priv, err = m.ecdhCurve().GenerateKey(nil); err != nil {
		return nil, err
	}
	return c, nil
}

// record puts the half's private keys into cn's transcript, if it keeps
// one (ML-KEM's as the 64-byte seed d || z of FIPS 203, sntrup761's in
// its encoding).
func (c *clientHalf) record(cn *conn) {
	if cn.rec == nil {
		return
	}
	cn.derived("our "+c.m.kem+" decapsulation key", c.dk())
	cn.derived("our "+c.m.curve+" private key", c.priv.Bytes())
}

// init is C_INIT: the encapsulation key, then the public key (RFC 10042
// §2.1, RFC 9941 §3).
func (c *clientHalf) init() []byte {
	return append(append([]byte(nil), c.ek...), c.priv.PublicKey().Bytes()...)
}

// finish checks S_REPLY (exact length, the server's classical key) and
// returns K_PQ and K_CL.
func (c *clientHalf) finish(serverReply []byte) (kPQ, kCL []byte, err error) {
	m := c.m
	if len(serverReply) < m.ctSize || !m.pointLength(len(serverReply)-m.ctSize) {
		return nil, nil, fmt.Errorf("S_REPLY is %d bytes, want %s", len(serverReply), m.lengths(m.ctSize))
	}
	peer, err := m.ecdhCurve().NewPublicKey(m.uncompressed(serverReply[m.ctSize:]))
	if err != nil {
		return nil, nil, fmt.Errorf("the server's %s public key: %v", m.curve, err)
	}
	if kCL, err = c.priv.ECDH(peer); err != nil {
		return nil, nil, fmt.Errorf("the server's %s public key: %v", m.curve, err)
	}
	if kPQ, err = c.decaps(serverReply[:m.ctSize]); err != nil {
		clear(kCL)
		return nil, nil, fmt.Errorf("the server's %s ciphertext: %v", m.kem, err)
	}
	return kPQ, kCL, nil
}

// redrawClassical replaces c's classical key with one whose public key
// want accepts (keyWhosePublic).
func (c *clientHalf) redrawClassical(want func(pub []byte) bool) error {
	priv, err := c.m.keyWhosePublic(want)
	if err != nil {
		return err
	}
	c.priv = priv
	return nil
}
