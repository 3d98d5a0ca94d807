package mlkem768x25519_test

import (
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"golang.org/x/crypto/curve25519"

	"github.com/pqkex/pqkex/mlkem768x25519"
)

// The benchmarks run each step of the exchange twice: impl=pqkex is this
// package, impl=xcrypto does what golang.org/x/crypto/ssh v0.59.0 does in
// ssh/mlkem.go (crypto/mlkem and x/crypto/curve25519.X25519, whose every
// call also recomputes the public key of its scalar). Compare them with
//
//	go test ./mlkem768x25519 -run '^$' -bench . -count 6 > bench.txt
//	benchstat -col /impl bench.txt

var sinkK []byte

// xcClient is the state of x/crypto's mlkem768WithCurve25519sha256.Client.
type xcClient struct {
	priv, pub [32]byte
	dk        *mlkem.DecapsulationKey768
	init      []byte
}

// xcNewClient follows ssh/mlkem.go Client up to writing the INIT packet
// (curve25519KeyPair.generate, then the ML-KEM seed).
func xcNewClient(rand io.Reader) (*xcClient, error) {
	c := new(xcClient)
	if _, err := io.ReadFull(rand, c.priv[:]); err != nil {
		return nil, err
	}
	p, err := curve25519.X25519(c.priv[:], curve25519.Basepoint)
	if err != nil {
		return nil, err
	}
	copy(c.pub[:], p)
	seed := make([]byte, mlkem.SeedSize)
	if _, err := io.ReadFull(rand, seed); err != nil {
		return nil, err
	}
	if c.dk, err = mlkem.NewDecapsulationKey768(seed); err != nil {
		return nil, err
	}
	c.init = append(c.dk.EncapsulationKey().Bytes(), c.pub[:]...)
	return c, nil
}

func xcSecret(kPQ, kCL []byte) []byte {
	h := sha256.New()
	h.Write(kPQ)
	h.Write(kCL)
	secret := h.Sum(nil)
	k := make([]byte, 4+len(secret))
	binary.BigEndian.PutUint32(k, uint32(len(secret)))
	copy(k[4:], secret)
	return k
}

// xcFinish follows ssh/mlkem.go Client after reading the REPLY packet, up
// to K (the exchange hash is left out, as it is from this package).
func (c *xcClient) xcFinish(reply []byte) ([]byte, error) {
	if len(reply) != mlkem.CiphertextSize768+32 {
		return nil, errors.New("wrong length")
	}
	kPQ, err := c.dk.Decapsulate(reply[:mlkem.CiphertextSize768])
	if err != nil {
		return nil, err
	}
	kCL, err := curve25519.X25519(c.priv[:], reply[mlkem.CiphertextSize768:])
	if err != nil {
		return nil, err
	}
	return xcSecret(kPQ, kCL), nil
}

// xcRespond follows ssh/mlkem.go Server after reading the INIT packet, up
// to K. Its encapsulation randomness comes from crypto/rand, as there.
func xcRespond(rand io.Reader, init []byte) (reply, k []byte, err error) {
	if len(init) != mlkem.EncapsulationKeySize768+32 {
		return nil, nil, errors.New("wrong length")
	}
	ek, err := mlkem.NewEncapsulationKey768(init[:mlkem.EncapsulationKeySize768])
	if err != nil {
		return nil, nil, err
	}
	kPQ, ct := ek.Encapsulate()
	var priv [32]byte
	if _, err := io.ReadFull(rand, priv[:]); err != nil {
		return nil, nil, err
	}
	pub, err := curve25519.X25519(priv[:], curve25519.Basepoint)
	if err != nil {
		return nil, nil, err
	}
	kCL, err := curve25519.X25519(priv[:], init[mlkem.EncapsulationKeySize768:])
	if err != nil {
		return nil, nil, err
	}
	return append(ct, pub...), xcSecret(kPQ, kCL), nil
}

// TestBaselineAgrees keeps the benchmark baseline honest: it must
// interoperate with this package in both directions.
func TestBaselineAgrees(t *testing.T) {
	xc, err := xcNewClient(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	reply, kS, err := mlkem768x25519.Respond(nil, xc.init)
	if err != nil {
		t.Fatal(err)
	}
	kC, err := xc.xcFinish(reply)
	if err != nil || string(kC) != string(kS) {
		t.Fatalf("x/crypto-style client vs our server: %v, K equal %v", err, string(kC) == string(kS))
	}
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, kS, err = xcRespond(rand.Reader, c.Init())
	if err != nil {
		t.Fatal(err)
	}
	kC, err = c.Finish(reply)
	if err != nil || string(kC) != string(kS) {
		t.Fatalf("our client vs x/crypto-style server: %v, K equal %v", err, string(kC) == string(kS))
	}
}

func BenchmarkClientInit(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			c, err := mlkem768x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = c.Init()
		}
	})
	b.Run("impl=xcrypto", func(b *testing.B) {
		for b.Loop() {
			c, err := xcNewClient(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = c.init
		}
	})
}

func BenchmarkRespond(b *testing.B) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		b.Fatal(err)
	}
	init := c.Init()
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			_, k, err := mlkem768x25519.Respond(nil, init)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = k
		}
	})
	b.Run("impl=xcrypto", func(b *testing.B) {
		for b.Loop() {
			_, k, err := xcRespond(rand.Reader, init)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = k
		}
	})
}

func BenchmarkFinish(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			c, err := mlkem768x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := mlkem768x25519.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if sinkK, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=xcrypto", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			c, err := xcNewClient(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := xcRespond(rand.Reader, c.init)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if sinkK, err = c.xcFinish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExchange is the whole key exchange's cryptography: client key
// generation, server response, client finish.
func BenchmarkExchange(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			c, err := mlkem768x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := mlkem768x25519.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			if sinkK, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=xcrypto", func(b *testing.B) {
		for b.Loop() {
			c, err := xcNewClient(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := xcRespond(rand.Reader, c.init)
			if err != nil {
				b.Fatal(err)
			}
			if sinkK, err = c.xcFinish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}
