package fuzz

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/elliptic"
	"crypto/mlkem"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/internal/tool/badkeys"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// Method is one of the four hybrid methods as the shared suite
// (testMethod, benchMethod, fuzzRespond, fuzzFinish) sees it: what differs between them is
// data here, the literal values being the specifications'.
type Method struct {
	Name, Prefix string // SSH name; package name, which starts every error
	Hash         crypto.Hash
	KEM, Curve   string // as errors name them
	// Sizes are C_INIT, S_REPLY and K; Constants the package's
	// ClientInitSize, ServerReplySize and SharedSecretSize.
	Sizes, Constants [3]int
	EKSize, CTSize   int // the KEM's encapsulation key and ciphertext
	// KeyGen and Encaps are the bytes NewClient reads for the KEM key and
	// Respond for the encapsulation, each before the curve's private key.
	KeyGen, Encaps int
	// KEMKey turns KeyGen bytes into the explicit-key constructors' KEM
	// key: the ML-KEM seed itself, sntrup761's encoded key.
	KEMKey func(keyGen []byte) []byte
	// ChecksEK: the KEM refuses some encapsulation keys (ML-KEM's modulus
	// check); sntrup761 takes any.
	ChecksEK bool
	// Points are peer public keys to try, all to be refused but a NIST
	// curve's "generator", with the end of the error about them
	// (PointError; empty where the reasons vary).
	Points     map[string][]byte
	PointError string
	Backends   []hybrid.KEM           // the KEM implementations to run the engine on
	FIPS       bool                   // every algorithm is FIPS 140-3 approved
	Baseline   func(*Method) Exchange // for the benchmarks; nil if none
	Engine     *hybrid.Method
	api
	oracle kemOracle
	ecdh   ecdh.Curve
}

// api is a method package's exported API: Public as an Exchange (its
// explicit-key constructors are the engine's) and a zero Client.
type api struct {
	Public Exchange
	Zero   func() Client
}

var methods = []*Method{
	{Name: "mlkem768x25519-sha256", Prefix: "mlkem768x25519", Hash: crypto.SHA256, KEM: "ML-KEM-768", Curve: "X25519",
		Sizes: [3]int{1216, 1120, 36}, Constants: [3]int{mlkem768x25519.ClientInitSize, mlkem768x25519.ServerReplySize, mlkem768x25519.SharedSecretSize},
		EKSize: mlkem.EncapsulationKeySize768, CTSize: mlkem.CiphertextSize768, KeyGen: 64, Encaps: 32, KEMKey: seed, ChecksEK: true,
		Points: lowOrder, PointError: " is a low-order point", Backends: kems(hybrid.MLKEM768), Baseline: xcrypto, oracle: mlkem768Oracle, ecdh: ecdh.X25519(),
		Engine: &hybrid.MLKEM768X25519, api: api{kat.Public(mlkem768x25519.Name, mlkem768x25519.NewClient, mlkem768x25519.Respond), func() Client { return new(mlkem768x25519.Client) }}},
	{Name: "sntrup761x25519-sha512", Prefix: "sntrup761x25519", Hash: crypto.SHA512, KEM: "sntrup761", Curve: "X25519", KEMKey: sntrupKey,
		Sizes: [3]int{1190, 1071, 68}, Constants: [3]int{sntrup761x25519.ClientInitSize, sntrup761x25519.ServerReplySize, sntrup761x25519.SharedSecretSize},
		EKSize: sntrup761.EncapsulationKeySize, CTSize: sntrup761.CiphertextSize, KeyGen: 3044 + 3044 + 191, Encaps: 3044, oracle: sntrupOracle, ecdh: ecdh.X25519(),
		Points: lowOrder, PointError: " is a low-order point", Backends: []hybrid.KEM{hybrid.SNTRUP761()}, Engine: &hybrid.SNTRUP761X25519,
		api: api{kat.Public(sntrup761x25519.Name, sntrup761x25519.NewClient, sntrup761x25519.Respond), func() Client { return new(sntrup761x25519.Client) }}},
	{Name: "mlkem768nistp256-sha256", Prefix: "mlkem768nistp256", Hash: crypto.SHA256, KEM: "ML-KEM-768", Curve: "P-256", FIPS: true,
		Sizes: [3]int{1249, 1153, 36}, Constants: [3]int{mlkem768nistp256.ClientInitSize, mlkem768nistp256.ServerReplySize, mlkem768nistp256.SharedSecretSize},
		EKSize: mlkem.EncapsulationKeySize768, CTSize: mlkem.CiphertextSize768, KeyGen: 64, Encaps: 32, KEMKey: seed, ChecksEK: true,
		Points: nistBad(elliptic.P256(), ecdh.P256()), Backends: kems(hybrid.MLKEM768), Baseline: nistBaseline, oracle: mlkem768Oracle, ecdh: ecdh.P256(),
		Engine: &hybrid.MLKEM768NISTP256, api: api{kat.Public(mlkem768nistp256.Name, mlkem768nistp256.NewClient, mlkem768nistp256.Respond), func() Client { return new(mlkem768nistp256.Client) }}},
	{Name: "mlkem1024nistp384-sha384", Prefix: "mlkem1024nistp384", Hash: crypto.SHA384, KEM: "ML-KEM-1024", Curve: "P-384", FIPS: true,
		Sizes: [3]int{1665, 1665, 52}, Constants: [3]int{mlkem1024nistp384.ClientInitSize, mlkem1024nistp384.ServerReplySize, mlkem1024nistp384.SharedSecretSize},
		EKSize: mlkem.EncapsulationKeySize1024, CTSize: mlkem.CiphertextSize1024, KeyGen: 64, Encaps: 32, KEMKey: seed, ChecksEK: true,
		Points: nistBad(elliptic.P384(), ecdh.P384()), Backends: kems(hybrid.MLKEM1024), Baseline: nistBaseline, oracle: mlkem1024Oracle, ecdh: ecdh.P384(),
		Engine: &hybrid.MLKEM1024NISTP384, api: api{kat.Public(mlkem1024nistp384.Name, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond), func() Client { return new(mlkem1024nistp384.Client) }}},
}

func lookup(name string) *Method {
	for _, m := range methods {
		if m.Name == name {
			return m
		}
	}
	panic("fuzz: no method " + name)
}

func seed(s []byte) []byte { return s }

func sntrupKey(r []byte) []byte {
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(r))
	if err != nil {
		panic(err)
	}
	return dk.Bytes()
}

// nistBaseline is kat.Baseline: crypto/mlkem, crypto/ecdh and hash.Hash,
// what a straightforward Go implementation of a NIST-curve hybrid does.
func nistBaseline(m *Method) Exchange { return kat.Baseline(m.Name) }

// xcrypto is kat.XCrypto: what x/crypto/ssh itself does for
// mlkem768x25519-sha256.
func xcrypto(*Method) Exchange { return kat.XCrypto() }

// kems are both ML-KEM implementations of p: circl, crypto/mlkem.
func kems(p hybrid.Params) []hybrid.KEM { return []hybrid.KEM{hybrid.Circl(p), hybrid.Std(p)} }

// exchanges is the public API and the engine on each KEM implementation.
func (m *Method) exchanges() []Exchange {
	return append([]Exchange{m.Public}, kat.Backends(m.Name, *m.Engine)...)
}

// lowOrder are the X25519 public keys of small order, canonical and not,
// each also with bit 255 set (badkeys.X25519LowOrder).
var lowOrder = func() map[string][]byte {
	out := map[string][]byte{}
	for _, k := range badkeys.X25519LowOrder {
		out[k.ID] = k.Value
	}
	return out
}()

// nistBad returns the invalid encodings of badkeys.NIST made from the
// curve's generator (the public key of the scalar 1), and the generator
// itself.
func nistBad(c elliptic.Curve, e ecdh.Curve) map[string][]byte {
	one := make([]byte, (c.Params().BitSize+7)/8)
	one[len(one)-1] = 1
	k, err := e.NewPrivateKey(one)
	if err != nil {
		panic(err)
	}
	g := k.PublicKey().Bytes()
	out := map[string][]byte{"generator": g}
	for _, k := range badkeys.NIST(c, g) {
		out[k.ID] = k.Value
	}
	return out
}

// readerOf returns a reader of the parts in order: the known randomness of
// a method's public constructors (see each method's package
// documentation), which fixes their keys for known-answer style tests.
func readerOf(parts ...[]byte) io.Reader { return bytes.NewReader(bytes.Join(parts, nil)) }
