package main

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"

	"github.com/cloudflare/circl/dh/x25519"
	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sshkex"
)

type primitive struct {
	name    string
	methods []string // the key exchanges it is part of; -methods filters on them
	per     float64  // operations per call of f
	f       func()
}

// primitives are the operations the measured key exchanges are made of:
// outside FIPS 140-3 mode those of pqkex's defaults (circl's ML-KEM), in
// FIPS mode (fips) those of the approved path the NIST-curve hybrids take
// there (crypto/mlkem's GenerateKey, randomized Encapsulate and
// Decapsulate; crypto/ecdh's GenerateKey, with its pairwise consistency
// test in that mode).
func primitives(fips bool) []primitive {
	p256a, _ := ecdh.P256().GenerateKey(rand.Reader)
	p256b, _ := ecdh.P256().GenerateKey(rand.Reader)
	p384a, _ := ecdh.P384().GenerateKey(rand.Reader)
	p384b, _ := ecdh.P384().GenerateKey(rand.Reader)
	p256 := []string{sshkex.KeyExchangeMLKEM768NISTP256}
	p384 := []string{sshkex.KeyExchangeMLKEM1024NISTP384}
	nist := []primitive{
		{"p256.GenerateKey", p256, 1, func() { ecdh.P256().GenerateKey(rand.Reader) }},
		{"p256.ECDH", p256, 1, func() { p256a.ECDH(p256b.PublicKey()) }},
		{"p384.GenerateKey", p384, 1, func() { ecdh.P384().GenerateKey(rand.Reader) }},
		{"p384.ECDH", p384, 1, func() { p384a.ECDH(p384b.PublicKey()) }},
	}
	if fips {
		return append(stdMLKEMPrimitives(p256, p384), nist...)
	}
	dk, _ := sntrup761.GenerateKey()
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	mpk, msk, _ := mlkem768.GenerateKeyPair(rand.Reader)
	mct := make([]byte, mlkem768.CiphertextSize)
	mss := make([]byte, mlkem768.SharedKeySize)
	mpk.EncapsulateTo(mct, mss, nil)
	bpk, bsk, _ := mlkem1024.GenerateKeyPair(rand.Reader)
	bct := make([]byte, mlkem1024.CiphertextSize)
	bpk.EncapsulateTo(bct, mss, nil)
	hybrid.ResetUpperState()
	var priv, pub, peer, shared x25519.Key
	rand.Read(priv[:])
	rand.Read(peer[:])
	x25519.KeyGen(&peer, &peer)
	sntrup := []string{sshkex.KeyExchangeSNTRUP761X25519}
	mlkem := []string{sshkex.KeyExchangeMLKEM768X25519}
	x := []string{sshkex.KeyExchangeMLKEM768X25519, sshkex.KeyExchangeSNTRUP761X25519} // x/crypto's curve25519-sha256 uses x/crypto/curve25519
	return append([]primitive{
		{"sntrup761.GenerateKey", sntrup, 1, func() { sntrup761.GenerateKey() }},
		{"sntrup761.Encapsulate", sntrup, 1, func() { ek.Encapsulate() }},
		{"sntrup761.Decapsulate", sntrup, 1, func() { dk.Decapsulate(ct) }},
		{"sntrup761.GenerateKeyBatch", sntrup, batchSize, func() { sntrup761.GenerateKeys(batchSize) }},
		// hybrid.ResetUpperState: as pqkex does after circl's AVX2 code.
		{"mlkem768.GenerateKey", mlkem, 1, func() { mlkem768.GenerateKeyPair(rand.Reader); hybrid.ResetUpperState() }},
		{"mlkem768.Encapsulate", mlkem, 1, func() { mpk.EncapsulateTo(mct, mss, nil); hybrid.ResetUpperState() }},
		{"mlkem768.Decapsulate", mlkem, 1, func() { msk.DecapsulateTo(mss, mct); hybrid.ResetUpperState() }},
		{"x25519.GenerateKey", x, 1, func() { rand.Read(priv[:]); x25519.KeyGen(&pub, &priv) }},
		{"x25519.ECDH", x, 1, func() { x25519.Shared(&shared, &priv, &peer) }},
		{"mlkem1024.GenerateKey", p384, 1, func() { mlkem1024.GenerateKeyPair(rand.Reader); hybrid.ResetUpperState() }},
		{"mlkem1024.Encapsulate", p384, 1, func() { bpk.EncapsulateTo(bct, mss, nil); hybrid.ResetUpperState() }},
		{"mlkem1024.Decapsulate", p384, 1, func() { bsk.DecapsulateTo(mss, bct); hybrid.ResetUpperState() }},
	}, nist...)
}

// stdMLKEMPrimitives are crypto/mlkem's operations, as the NIST-curve
// hybrids call them in FIPS 140-3 mode.
func stdMLKEMPrimitives(p256, p384 []string) []primitive {
	dk768, _ := mlkem.GenerateKey768()
	ek768 := dk768.EncapsulationKey()
	_, ct768 := ek768.Encapsulate()
	dk1024, _ := mlkem.GenerateKey1024()
	ek1024 := dk1024.EncapsulationKey()
	_, ct1024 := ek1024.Encapsulate()
	return []primitive{
		{"mlkem.GenerateKey768", p256, 1, func() { mlkem.GenerateKey768() }},
		{"mlkem.Encapsulate768", p256, 1, func() { ek768.Encapsulate() }},
		{"mlkem.Decapsulate768", p256, 1, func() { dk768.Decapsulate(ct768) }},
		{"mlkem.GenerateKey1024", p384, 1, func() { mlkem.GenerateKey1024() }},
		{"mlkem.Encapsulate1024", p384, 1, func() { ek1024.Encapsulate() }},
		{"mlkem.Decapsulate1024", p384, 1, func() { dk1024.Decapsulate(ct1024) }},
	}
}
