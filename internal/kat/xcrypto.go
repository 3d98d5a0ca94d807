package kat

import (
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"

	"golang.org/x/crypto/curve25519"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// XCrypto is what golang.org/x/crypto/ssh v0.59.0 does for
// mlkem768x25519-sha256 (ssh/mlkem.go), written out: crypto/mlkem and
// x/crypto/curve25519.X25519, whose every call also recomputes the public
// key of its scalar; the client draws its X25519 key first, then the
// ML-KEM seed (OpenSSH reads them in the other order), the server
// encapsulates with crypto/rand. Readers passed to it are ignored. Its
// explicit-key constructor takes the seed and the X25519 key as
// NewClientWithKeys does; it has no RespondWithKeys. It is the baseline
// of "pqkex bench" and of the methods' benchmarks, and the oracle of this
// package's x/crypto tests (which check it against OpenSSH's exchanges).
func XCrypto() Exchange {
	ex := Exchange{Label: "xcrypto", Name: "mlkem768x25519-sha256", Method: &hybrid.MLKEM768X25519}
	ex.NewClientWithKeys = func(seed, priv []byte) (Client, error) {
		pub, err := curve25519.X25519(priv, curve25519.Basepoint)
		if err != nil {
			return nil, err
		}
		dk, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			return nil, err
		}
		return &xcClient{priv, dk, append(dk.EncapsulationKey().Bytes(), pub...)}, nil
	}
	ex.NewClient = func(io.Reader) (Client, error) {
		priv, seed := make([]byte, 32), make([]byte, mlkem.SeedSize)
		rand.Read(priv)
		rand.Read(seed)
		return ex.NewClientWithKeys(seed, priv)
	}
	ex.Respond = func(_ io.Reader, init []byte) ([]byte, []byte, error) {
		const ekSize = mlkem.EncapsulationKeySize768
		if len(init) != ekSize+32 {
			return nil, nil, errors.New("ssh: peer's ML-KEM768/curve25519 public value has wrong length")
		}
		ek, err := mlkem.NewEncapsulationKey768(init[:ekSize])
		if err != nil {
			return nil, nil, err
		}
		kPQ, ct := ek.Encapsulate()
		priv := make([]byte, 32)
		rand.Read(priv)
		pub, err := curve25519.X25519(priv, curve25519.Basepoint)
		if err != nil {
			return nil, nil, err
		}
		kCL, err := curve25519.X25519(priv, init[ekSize:])
		if err != nil {
			return nil, nil, err
		}
		return append(ct, pub...), xcSecret(kPQ, kCL), nil
	}
	return ex
}

type xcClient struct {
	priv []byte
	dk   *mlkem.DecapsulationKey768
	init []byte
}

func (c *xcClient) Init() []byte { return c.init }

// Finish is x/crypto's client after reading the REPLY, up to K.
func (c *xcClient) Finish(reply []byte) ([]byte, error) {
	if len(reply) != mlkem.CiphertextSize768+32 {
		return nil, errors.New("ssh: peer's mlkem768x25519 public value has wrong length")
	}
	kPQ, err := c.dk.Decapsulate(reply[:mlkem.CiphertextSize768])
	if err != nil {
		return nil, err
	}
	kCL, err := curve25519.X25519(c.priv, reply[mlkem.CiphertextSize768:])
	if err != nil {
		return nil, err
	}
	return xcSecret(kPQ, kCL), nil
}

// xcSecret is x/crypto's K: string(SHA-256(K_PQ || K_CL)).
func xcSecret(kPQ, kCL []byte) []byte {
	h := sha256.New()
	h.Write(kPQ)
	h.Write(kCL)
	return h.Sum(binary.BigEndian.AppendUint32(nil, sha256.Size))
}
