package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"io"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/ssh"
)

// xcryptoCases are the crypto of x/crypto/ssh v0.59.0's own key
// exchanges, done the way its kex.go and mlkem.go do them (crypto/mlkem,
// x/crypto/curve25519, which computes two scalar multiplications per
// call, and crypto/ecdsa key generation with elliptic scalar
// multiplication), for comparison with pqkex's.
func xcryptoCases() []kexCase {
	return []kexCase{
		{method: ssh.KeyExchangeMLKEM768X25519, impl: "x/crypto", client: xcMLKEMClient, server: xcMLKEMServer},
		{method: ssh.KeyExchangeCurve25519, impl: "x/crypto", client: xcX25519Client, server: xcX25519Server},
		{method: ssh.KeyExchangeECDHP256, impl: "x/crypto", client: xcP256Client, server: xcP256Server},
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err) // crypto/rand never fails; the inputs are our own
	}
	return v
}

func x25519Pair() (priv, pub []byte) {
	priv = make([]byte, 32)
	io.ReadFull(rand.Reader, priv)
	return priv, must(curve25519.X25519(priv, curve25519.Basepoint))
}

func xcMLKEMClient() (func([]byte), []byte) {
	priv, pub := x25519Pair()
	seed := make([]byte, mlkem.SeedSize)
	io.ReadFull(rand.Reader, seed)
	dk := must(mlkem.NewDecapsulationKey768(seed))
	init := append(dk.EncapsulationKey().Bytes(), pub...)
	return func(reply []byte) {
		ss := must(dk.Decapsulate(reply[:mlkem.CiphertextSize768]))
		cs := must(curve25519.X25519(priv, reply[mlkem.CiphertextSize768:]))
		h := sha256.New()
		h.Write(ss)
		h.Write(cs)
		h.Sum(nil)
	}, init
}

func xcMLKEMServer(init []byte) []byte {
	ek := must(mlkem.NewEncapsulationKey768(init[:mlkem.EncapsulationKeySize768]))
	ss, ct := ek.Encapsulate()
	priv, pub := x25519Pair()
	cs := must(curve25519.X25519(priv, init[mlkem.EncapsulationKeySize768:]))
	h := sha256.New()
	h.Write(ss)
	h.Write(cs)
	h.Sum(nil)
	return append(ct, pub...)
}

func xcX25519Client() (func([]byte), []byte) {
	priv, pub := x25519Pair()
	return func(reply []byte) { must(curve25519.X25519(priv, reply)) }, pub
}

func xcX25519Server(init []byte) []byte {
	priv, pub := x25519Pair()
	must(curve25519.X25519(priv, init))
	return pub
}

func p256Pair() (*ecdsa.PrivateKey, []byte) {
	k := must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	//lint:ignore SA1019 x/crypto/ssh's ecdh kex uses the elliptic API; this mirrors it
	return k, elliptic.Marshal(elliptic.P256(), k.PublicKey.X, k.PublicKey.Y)
}

func p256Shared(k *ecdsa.PrivateKey, peer []byte) {
	//lint:ignore SA1019 as above
	x, y := elliptic.Unmarshal(elliptic.P256(), peer)
	//lint:ignore SA1019 as above
	elliptic.P256().ScalarMult(x, y, k.D.Bytes())
}

func xcP256Client() (func([]byte), []byte) {
	k, pub := p256Pair()
	return func(reply []byte) { p256Shared(k, reply) }, pub
}

func xcP256Server(init []byte) []byte {
	k, pub := p256Pair()
	p256Shared(k, init)
	return pub
}
