package fuzz

import (
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"testing"

	"golang.org/x/crypto/curve25519"

	"github.com/pqkex/pqkex/internal/hybrid"
)

//lint:ignore U1000 storing results keeps the benchmarked calls from being optimized away
var sink []byte

// BenchmarkMethods runs each method's steps (benchMethod): for example
//
//	go test ./fuzz -run '^$' -bench 'Methods/mlkem768nistp256' -count 6
func BenchmarkMethods(b *testing.B) {
	for _, m := range methods {
		b.Run(m.Name, func(b *testing.B) { benchMethod(b, m.Name) })
	}
}

// benchMethod runs the steps of the method named name as sub-benchmarks named
// impl=<label> (the public API, the engine on each KEM implementation, the
// baseline where there is one): ClientInit (NewClient and Init), Respond,
// Finish and Exchange (all three). Compare them with benchstat -col /impl.
func benchMethod(b *testing.B, name string) {
	m := lookup(name)
	exs := m.exchanges()
	if m.Baseline != nil {
		exs = append(exs, m.Baseline(m))
	}
	for _, step := range []string{"ClientInit", "Respond", "Finish", "Exchange"} {
		b.Run(step, func(b *testing.B) {
			for _, ex := range exs {
				b.Run("impl="+ex.Label, func(b *testing.B) { benchStep(b, ex, step) })
			}
		})
	}
}

func benchStep(b *testing.B, ex Exchange, step string) {
	check := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	c0, err := ex.NewClient(nil)
	check(err)
	init := c0.Init()
	for b.Loop() {
		if step == "Respond" {
			_, sink, err = ex.Respond(nil, init)
			check(err)
			continue
		}
		if step == "Finish" {
			b.StopTimer()
		}
		c, err := ex.NewClient(nil)
		check(err)
		if sink = c.Init(); step == "ClientInit" {
			continue
		}
		reply, _, err := ex.Respond(nil, sink)
		check(err)
		b.StartTimer()
		sink, err = c.Finish(reply)
		check(err)
	}
}

// xcrypto does what golang.org/x/crypto/ssh v0.59.0 does for
// mlkem768x25519-sha256 (ssh/mlkem.go): crypto/mlkem and
// x/crypto/curve25519.X25519, whose every call also recomputes the public
// key of its scalar; the X25519 key first, then the ML-KEM seed.
func xcrypto(*Method) Exchange {
	const ek = mlkem.EncapsulationKeySize768
	pair := func() (priv, pub []byte, err error) {
		priv = make([]byte, 32)
		rand.Read(priv)
		pub, err = curve25519.X25519(priv, curve25519.Basepoint)
		return priv, pub, err
	}
	ex := Exchange{Label: "xcrypto", Name: "mlkem768x25519-sha256", Method: &hybrid.MLKEM768X25519}
	ex.NewClient = func(io.Reader) (Client, error) {
		priv, pub, err := pair()
		seed := make([]byte, mlkem.SeedSize)
		rand.Read(seed)
		dk, err2 := mlkem.NewDecapsulationKey768(seed)
		if err = errors.Join(err, err2); err != nil {
			return nil, err
		}
		return &xcClient{priv, dk, append(dk.EncapsulationKey().Bytes(), pub...)}, nil
	}
	ex.Respond = func(_ io.Reader, init []byte) ([]byte, []byte, error) {
		if len(init) != ek+32 {
			return nil, nil, errors.New("wrong length")
		}
		e, err := mlkem.NewEncapsulationKey768(init[:ek])
		if err != nil {
			return nil, nil, err
		}
		kPQ, ct := e.Encapsulate()
		priv, pub, err := pair()
		kCL, err2 := curve25519.X25519(priv, init[ek:])
		if err = errors.Join(err, err2); err != nil {
			return nil, nil, err
		}
		return append(ct, pub...), xcK(kPQ, kCL), nil
	}
	return ex
}

type xcClient struct {
	priv []byte
	dk   *mlkem.DecapsulationKey768
	init []byte
}

func (c *xcClient) Init() []byte { return c.init }

func (c *xcClient) Finish(reply []byte) ([]byte, error) {
	if len(reply) != mlkem.CiphertextSize768+32 {
		return nil, errors.New("wrong length")
	}
	kPQ, err := c.dk.Decapsulate(reply[:mlkem.CiphertextSize768])
	kCL, err2 := curve25519.X25519(c.priv, reply[mlkem.CiphertextSize768:])
	if err = errors.Join(err, err2); err != nil {
		return nil, err
	}
	return xcK(kPQ, kCL), nil
}

func xcK(kPQ, kCL []byte) []byte {
	h := sha256.Sum256(append(kPQ, kCL...))
	return append([]byte{0, 0, 0, 32}, h[:]...)
}
