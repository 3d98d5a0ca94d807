package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"io"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// benchCase is one row of bench: a key exchange's crypto as a
// kat.Exchange (NewClient, Init, Finish; Respond), who implements it
// ("pqkex", "x/crypto", "baseline") and the variant ("" or "batch").
type benchCase struct {
	ex            kat.Exchange
	impl, variant string
}

// client is a new client of the case, from crypto/rand.
func (c benchCase) client() kat.Client {
	cl, err := c.ex.NewClient(nil)
	if err != nil {
		panic(err) // crypto/rand never fails
	}
	return cl
}

// server is the case's S_REPLY to cInit.
func (c benchCase) server(cInit []byte) []byte {
	r, _, err := c.ex.Respond(nil, cInit)
	if err != nil {
		panic(err) // crypto/rand never fails; the inputs are our own
	}
	return r
}

// pqkexCases are every pqkex row, each method's public API as
// kat.Public runs it, sntrup761x25519 also with its keys from batches,
// and each NIST-curve hybrid's standard-library baseline.
func pqkexCases() []benchCase {
	sntrup := kat.Public(sntrup761x25519.Name, sntrup761x25519.NewClient, sntrup761x25519.Respond)
	batched := sntrup
	batches := new(keyBatches)
	batched.NewClient = func(r io.Reader) (kat.Client, error) {
		dk, err := batches.get()
		if err != nil {
			return nil, err
		}
		return sntrup761x25519.NewClientWithKey(dk, r)
	}
	return []benchCase{
		{kat.Public(mlkem768x25519.Name, mlkem768x25519.NewClient, mlkem768x25519.Respond), "pqkex", ""},
		{sntrup, "pqkex", ""},
		{batched, "pqkex", "batch"},
		{kat.Public(mlkem768nistp256.Name, mlkem768nistp256.NewClient, mlkem768nistp256.Respond), "pqkex", ""},
		{kat.Baseline(mlkem768nistp256.Name), "baseline", ""},
		{kat.Public(mlkem1024nistp384.Name, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond), "pqkex", ""},
		{kat.Baseline(mlkem1024nistp384.Name), "baseline", ""},
	}
}

// keyBatches hands out keys from batches of sntrup761.GenerateKeys made in
// the calling goroutine, so that the "batch" row's client µs includes the
// amortized generation cost. A KeyPool generates in its own goroutine,
// which on a second core would take that cost out of the measured time.
type keyBatches struct{ keys []*sntrup761.DecapsulationKey }

func (k *keyBatches) get() (*sntrup761.DecapsulationKey, error) {
	if len(k.keys) == 0 {
		keys, err := sntrup761.GenerateKeys(batchSize)
		if err != nil {
			return nil, err
		}
		k.keys = keys
	}
	dk := k.keys[0]
	k.keys = k.keys[1:]
	return dk, nil
}

// xcryptoCases are the crypto of x/crypto/ssh v0.59.0's own key
// exchanges, done the way its kex.go and mlkem.go do them (crypto/mlkem,
// x/crypto/curve25519, which computes two scalar multiplications per
// call, and crypto/ecdsa key generation with elliptic scalar
// multiplication), for comparison with pqkex's.
func xcryptoCases() []benchCase {
	return []benchCase{
		{kat.XCrypto(), "x/crypto", ""},
		{classical(ssh.KeyExchangeCurve25519, x25519Pair, func(priv, peer []byte) { must(curve25519.X25519(priv, peer)) }), "x/crypto", ""},
		{classical(ssh.KeyExchangeECDHP256, p256Pair, p256Shared), "x/crypto", ""},
	}
}

// classical is a classical key exchange as a kat.Exchange: each side makes
// a key pair, sends its public key and computes the shared secret (whose
// value the benchmark does not need).
func classical(name string, pair func() (priv, pub []byte), shared func(priv, peer []byte)) kat.Exchange {
	return kat.Exchange{Label: "x/crypto", Name: name,
		NewClient: func(io.Reader) (kat.Client, error) {
			priv, pub := pair()
			return &classicalClient{priv, pub, shared}, nil
		},
		Respond: func(_ io.Reader, init []byte) ([]byte, []byte, error) {
			priv, pub := pair()
			shared(priv, init)
			return pub, nil, nil
		},
	}
}

type classicalClient struct {
	priv, pub []byte
	shared    func(priv, peer []byte)
}

func (c *classicalClient) Init() []byte { return c.pub }

func (c *classicalClient) Finish(reply []byte) ([]byte, error) {
	c.shared(c.priv, reply)
	return nil, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err) // crypto/rand never fails; the inputs are our own
	}
	return v
}

func x25519Pair() (priv, pub []byte) {
	priv = make([]byte, 32)
	rand.Read(priv)
	return priv, must(curve25519.X25519(priv, curve25519.Basepoint))
}

// p256Pair is x/crypto's ecdh-sha2-nistp256 key pair: crypto/ecdsa key
// generation, the public key marshalled by crypto/elliptic; the private
// key is its scalar.
func p256Pair() (priv, pub []byte) {
	k := must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	//lint:ignore SA1019 x/crypto/ssh's ecdh kex uses the elliptic API; this mirrors it
	return k.D.Bytes(), elliptic.Marshal(elliptic.P256(), k.PublicKey.X, k.PublicKey.Y)
}

func p256Shared(priv, peer []byte) {
	//lint:ignore SA1019 as above
	x, y := elliptic.Unmarshal(elliptic.P256(), peer)
	//lint:ignore SA1019 as above
	elliptic.P256().ScalarMult(x, y, priv)
}
