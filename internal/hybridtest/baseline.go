package hybridtest

import (
	"crypto"
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// Baseline is what a straightforward Go implementation of a NIST-curve
// hybrid would do with the standard library only: crypto/mlkem's
// GenerateKey / Encapsulate / Decapsulate, crypto/ecdh's GenerateKey /
// NewPublicKey / ECDH, and HASH(K_PQ || K_CL) through hash.Hash. It takes
// its randomness from the module (rand is ignored) and has no test-only
// constructors. Benchmarks compare the methods against it; TestBaseline
// keeps it honest (it must interoperate).
func Baseline(name string, h crypto.Hash, curveName string, ekSize int) Exchange {
	cu := oracleCurve(curveName)
	ex := Exchange{Label: "baseline", Name: name, Hash: h}
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

// CheckInterop runs a against b in both directions.
func CheckInterop(t *testing.T, a, b Exchange) {
	t.Helper()
	for _, p := range [][2]Exchange{{a, b}, {b, a}} {
		c, err := p[0].NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := p[1].Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || string(kC) != string(kS) {
			t.Fatalf("%s client, %s server: %v", p[0].Label, p[1].Label, err)
		}
	}
}

//lint:ignore U1000 storing results keeps the benchmarked calls from being optimized away
var sink []byte

// Bench runs the exchange's steps as sub-benchmarks named impl=<label>:
// ClientInit (NewClient + Init), Respond, Finish and Exchange (all three).
// Compare implementations with benchstat -col /impl.
func Bench(b *testing.B, exs ...Exchange) {
	for _, step := range []string{"ClientInit", "Respond", "Finish", "Exchange"} {
		b.Run(step, func(b *testing.B) {
			for _, ex := range exs {
				b.Run("impl="+ex.Label, func(b *testing.B) { benchStep(b, ex, step) })
			}
		})
	}
}

func benchStep(b *testing.B, ex Exchange, step string) {
	c0, err := ex.NewClient(nil)
	if err != nil {
		b.Fatal(err)
	}
	init := c0.Init()
	for b.Loop() {
		switch step {
		case "ClientInit":
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			sink = c.Init()
		case "Respond":
			_, k, err := ex.Respond(nil, init)
			if err != nil {
				b.Fatal(err)
			}
			sink = k
		case "Finish":
			b.StopTimer()
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := ex.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if sink, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		case "Exchange":
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := ex.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			if sink, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	}
}
