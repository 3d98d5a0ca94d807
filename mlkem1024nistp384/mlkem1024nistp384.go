// Package mlkem1024nistp384 implements the cryptography of the SSH key
// exchange method mlkem1024nistp384-sha384 (RFC 10042, published from
// draft-ietf-sshm-mlkem-hybrid-kex-10; the section numbers below are the
// draft's), which combines ML-KEM-1024 (FIPS 203) with ECDH on NIST P-384
// (FIPS 186-5, SP 800-56A; SEC1 encodings as in RFC 5656).
// It reproduces PuTTY 0.85's key exchange code byte for byte on its vectors
// (vectors/testdata). The method is offered by PuTTY 0.83 and later,
// libssh 0.12 and PKIX-SSH (OpenSSH does not implement it); it is the CNSA
// 2.0 choice.
//
// Every algorithm of this method is approved in FIPS 140-3, and in FIPS
// 140-3 mode (GODEBUG=fips140=on or only, crypto/fips140.Enabled) this
// package uses only the Go Cryptographic Module's approved services (see
// "Secrets and randomness"): crypto/mlkem, crypto/ecdh,
// crypto/sha512 and crypto/rand. pqkex itself is not a validated module.
//
// The package does no I/O and knows nothing of SSH packets: it turns
// secrets into the method's two messages and the shared secret K. Package
// kexhash turns K into the exchange hash and session keys.
//
// # The exchange
//
//	client                                      server
//	c, _ := NewClient(rand)
//	C_INIT = c.Init()          ──── 1665 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1665 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT (Q_C) is the client's ML-KEM-1024 encapsulation key (1568 bytes)
// followed by its ephemeral P-384 public key as an uncompressed SEC1
// point 04 || X || Y (97 bytes); S_REPLY (Q_S) is the ML-KEM-1024
// ciphertext (1568 bytes) followed by the server's ephemeral P-384 public
// key, uncompressed (97 bytes): the KEM part always comes first (draft
// sections 2.1 and 2.3). Both sides compute
//
//	K = string(SHA-384(K_PQ || K_CL))
//
// where K_PQ is the 32-byte ML-KEM shared key and K_CL the x-coordinate
// of the ECDH result as a fixed-length 48-byte big-endian string
// (draft section 2.4): leading zero bytes are kept, no sign byte is added.
// K is returned in that SSH string encoding: the 4-byte length followed by
// the digest, 52 bytes in all. This is the form that goes into the
// exchange hash and key derivation unchanged; it is not an mpint. K must
// be kept secret.
//
// # Validation
//
// Peer input is rejected in exactly these cases, each a key exchange
// failure:
//
//   - C_INIT is not exactly 1665 bytes or S_REPLY not exactly 1665
//     bytes (draft section 2.1 requires the exact length);
//   - the client's ML-KEM-1024 encapsulation key fails the modulus check of
//     FIPS 203 section 7.2 (a 12-bit coefficient not below q = 3329);
//   - the peer's P-384 public key is not an uncompressed point (first
//     byte not 04: compressed 02/03, hybrid 06/07 and the infinity
//     encoding 00 are refused, as OpenSSH refuses them), has a coordinate
//     not below p, or is not on the curve (SEC1 section 3.2.2.1 full
//     public key validation; the identity has no uncompressed encoding).
//
// Nothing else is checked. A ciphertext that was tampered with is not
// detected here: ML-KEM decapsulation uses implicit rejection (FIPS 203
// section 6.3), so the client derives a K that differs from the server's
// and the handshake fails when the server's signature over the exchange
// hash does not verify. PuTTY 0.85 is more lenient than this package: it
// also accepts compressed points, coordinates padded to a longer length
// and non-reduced coordinates; it always sends uncompressed points itself.
//
// Errors name whose value was bad and never contain key material.
//
// # Secrets and randomness
//
// Every secret is ephemeral: a Client is good for one key exchange and
// Respond draws fresh values on every call (draft section 6 requires this).
// Finish and Respond drop the secrets this package holds once they are no
// longer needed. This is best effort: crypto/ecdh and crypto/mlkem keys
// can only be released to the garbage collector, not overwritten.
//
// NewClient and Respond take an io.Reader. In FIPS 140-3 mode
// (crypto/fips140.Enabled, GODEBUG=fips140=on or only) they ignore it,
// whatever it is, and use only the Go Cryptographic Module's approved
// services: mlkem.GenerateKey1024 (with its pairwise consistency test), the
// randomized Encapsulate, and crypto/ecdh's P-384 GenerateKey.
// GODEBUG=fips140=only makes Go refuse anything else. Ignoring the reader
// is what crypto/ecdh does with its own reader arguments since Go 1.26.
//
// Outside FIPS mode, nil means crypto/rand's Reader, and they read from
// the reader in the order mlkem768nistp256 reads (OpenSSH's order, with OpenSSL's
// scalar sampling), which is also the convention of the published
// vectors, so a given byte stream reproduces them: the
// client reads the 64-byte ML-KEM seed d || z (FIPS 203
// ML-KEM.KeyGen_internal) and then 48-byte big-endian P-384 private key
// candidates until one lies in [1, n-1] (a candidate of 0 or not below the
// group order n is discarded; 64 rejections in a row are an error); the
// server reads the 32-byte ML-KEM encapsulation randomness m
// (ML-KEM.Encaps_internal) and then its P-384 candidates the same way.
// PuTTY draws in a different order and samples its scalars differently;
// that makes no difference on the wire.
//
// Reproducing known answers this way takes derandomized services
// (ML-KEM.Encaps_internal, keys from given seeds and scalars) that are not
// approved, hence not used in FIPS mode; there, the engine's explicit-key
// constructors (internal/hybrid) reproduce them (Go refuses their
// derandomized encapsulation under GODEBUG=fips140=only).
//
// # Implementation
//
// P-384 is crypto/ecdh (constant time). ML-KEM-1024 is chosen by
// measurement outside FIPS mode (see BenchmarkKEM in internal/hybrid
// and this package's benchmarks) and is always crypto/mlkem in FIPS mode;
// the two implementations are tested against each other on every vector
// and on random inputs.
package mlkem1024nistp384

import (
	"crypto"
	"crypto/mlkem"
	"crypto/sha512"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
)

const (
	// Name is the SSH name of the method (RFC 10042).
	Name = "mlkem1024nistp384-sha384"

	// Hash is the hash function of the method: it hashes K_PQ || K_CL into
	// K and is the HASH of the exchange hash and key derivation.
	Hash = crypto.SHA384

	// ClientInitSize is the size of C_INIT: a ML-KEM-1024 encapsulation
	// key (1568 bytes) and an uncompressed P-384 point (97 bytes).
	ClientInitSize = mlkem.EncapsulationKeySize1024 + pointSize

	// ServerReplySize is the size of S_REPLY: a ML-KEM-1024 ciphertext
	// (1568 bytes) and an uncompressed P-384 point (97 bytes).
	ServerReplySize = mlkem.CiphertextSize1024 + pointSize

	// SharedSecretSize is the size of K as returned by Finish and Respond:
	// a 4-byte length and a SHA-384 digest.
	SharedSecretSize = 4 + sha512.Size384
)

const pointSize = 1 + 2*48 // 04 || X || Y

// method is the exchange on the shared engine (internal/hybrid).
var method = hybrid.MLKEM1024NISTP384

// Client holds the client's ephemeral secrets between sending C_INIT and
// receiving S_REPLY. Its secrets must be kept secret. A Client is good
// for one key exchange and is not safe for concurrent use. The zero value
// is not usable: create Clients with NewClient.
type Client struct {
	c hybrid.Client
}

// NewClient generates the client's ephemeral ML-KEM-1024 and P-384 keys.
// Outside FIPS mode it reads 64 bytes from rand (crypto/rand if nil),
// the ML-KEM seed d || z, and then 48-byte P-384 private key
// candidates until one is valid; in FIPS 140-3 mode it ignores rand and
// the Go Cryptographic Module generates both keys (see the package
// documentation). It returns an error only if reading from rand fails (or
// yields 64 invalid candidates in a row), or if the module's key
// generation fails.
func NewClient(rand io.Reader) (*Client, error) {
	c := new(Client)
	if err := method.NewClient(&c.c, rand); err != nil {
		return nil, err
	}
	return c, nil
}

// Init returns C_INIT, the client's message: its ML-KEM-1024 encapsulation
// key followed by its uncompressed P-384 public key, ClientInitSize
// bytes in all. The result is a new slice; it is public. Init panics if c
// was not created by NewClient.
func (c *Client) Init() []byte { return method.Init(&c.c) }

// Finish processes S_REPLY, the server's message, and returns K in its SSH
// string encoding (SharedSecretSize bytes). It returns an error if
// serverReply is not ServerReplySize bytes long or if the server's
// P-384 public key is not a valid uncompressed point on the curve; a
// modified ciphertext is not an error (see the package documentation). K
// must be kept secret.
//
// Finish may be called only once: it drops the client's secrets whether
// or not it succeeds, and later calls return an error.
func (c *Client) Finish(serverReply []byte) (k []byte, err error) {
	return method.Finish(&c.c, serverReply)
}

// Respond is the server side: it processes C_INIT, the client's message,
// and returns S_REPLY, the server's message (ServerReplySize bytes), and K
// in its SSH string encoding (SharedSecretSize bytes).
//
// Outside FIPS mode it reads 32 bytes from rand (crypto/rand if nil),
// the ML-KEM encapsulation randomness m, and then the server's ephemeral
// P-384 private key candidates (48 bytes each); in FIPS 140-3 mode it
// ignores rand and the Go Cryptographic Module draws both itself.
//
// Respond returns an error if clientInit is not ClientInitSize bytes long,
// if the client's ML-KEM-1024 encapsulation key fails the FIPS 203 section
// 7.2 check, if the client's P-384 public key is not a valid uncompressed
// point on the curve, or if reading from rand fails. K must be kept
// secret. Respond is safe for concurrent use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
