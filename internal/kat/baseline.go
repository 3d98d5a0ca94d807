package kat

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Baseline is what a straightforward Go implementation of a NIST-curve
// hybrid (name: mlkem768nistp256-sha256 or mlkem1024nistp384-sha384)
// would do with the standard library only: crypto/mlkem's GenerateKey /
// Encapsulate / Decapsulate, crypto/ecdh's GenerateKey / NewPublicKey /
// ECDH, and HASH(K_PQ || K_CL) through hash.Hash. It takes its randomness
// from the module (rand is ignored) and has no explicit-key constructors;
// its Method is the method's description, for its sizes and hash. "pqkex
// bench" and the methods' benchmarks compare against it; fuzz.TestMethods'
// Baseline sub-tests keep it honest (it must interoperate with them).
func Baseline(name string) Exchange {
	m := engine(name)
	if m == nil {
		panic(fmt.Sprintf("kat: Baseline: %q is not a pqkex method", name))
	}
	cu, ok := map[string]ecdh.Curve{"P-256": ecdh.P256(), "P-384": ecdh.P384()}[m.Curve.Name()]
	if !ok {
		panic("kat: Baseline: no curve " + m.Curve.Name())
	}
	h, ekSize := m.Hash, m.ClientInitSize()-m.Curve.PublicKeySize()
	ex := Exchange{Label: "baseline", Name: name, Method: m}
	k := func(kPQ, kCL []byte) []byte {
		d := h.New()
		d.Write(kPQ)
		d.Write(kCL)
		s := d.Sum(nil)
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
	}
	ex.NewClient = func(io.Reader) (Client, error) {
		priv, err := cu.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		c := &baselineClient{priv: priv, cu: cu, k: k}
		if ekSize == mlkem.EncapsulationKeySize768 {
			dk, err := mlkem.GenerateKey768()
			if err != nil {
				return nil, err
			}
			c.decaps, c.ctSize = dk.Decapsulate, mlkem.CiphertextSize768
			c.init = append(dk.EncapsulationKey().Bytes(), priv.PublicKey().Bytes()...)
		} else {
			dk, err := mlkem.GenerateKey1024()
			if err != nil {
				return nil, err
			}
			c.decaps, c.ctSize = dk.Decapsulate, mlkem.CiphertextSize1024
			c.init = append(dk.EncapsulationKey().Bytes(), priv.PublicKey().Bytes()...)
		}
		return c, nil
	}
	ex.Respond = func(_ io.Reader, init []byte) ([]byte, []byte, error) {
		if len(init) <= ekSize {
			return nil, nil, errors.New("short C_INIT")
		}
		peer, err := cu.NewPublicKey(init[ekSize:])
		if err != nil {
			return nil, nil, err
		}
		var kPQ, ct []byte
		if ekSize == mlkem.EncapsulationKeySize768 {
			ek, err := mlkem.NewEncapsulationKey768(init[:ekSize])
			if err != nil {
				return nil, nil, err
			}
			kPQ, ct = ek.Encapsulate()
		} else {
			ek, err := mlkem.NewEncapsulationKey1024(init[:ekSize])
			if err != nil {
				return nil, nil, err
			}
			kPQ, ct = ek.Encapsulate()
		}
		priv, err := cu.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		kCL, err := priv.ECDH(peer)
		if err != nil {
			return nil, nil, err
		}
		return append(ct, priv.PublicKey().Bytes()...), k(kPQ, kCL), nil
	}
	return ex
}

type baselineClient struct {
	priv   *ecdh.PrivateKey
	cu     ecdh.Curve
	decaps func([]byte) ([]byte, error)
	ctSize int
	init   []byte
	k      func(kPQ, kCL []byte) []byte
}

func (c *baselineClient) Init() []byte { return c.init }

func (c *baselineClient) Finish(reply []byte) ([]byte, error) {
	if len(reply) <= c.ctSize {
		return nil, errors.New("short S_REPLY")
	}
	peer, err := c.cu.NewPublicKey(reply[c.ctSize:])
	if err != nil {
		return nil, err
	}
	kCL, err := c.priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	kPQ, err := c.decaps(reply[:c.ctSize])
	if err != nil {
		return nil, err
	}
	return c.k(kPQ, kCL), nil
}
