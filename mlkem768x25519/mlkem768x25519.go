// Package mlkem768x25519 implements the cryptography of the SSH key
// exchange method mlkem768x25519-sha256 (RFC 10042, published from
// draft-ietf-sshm-mlkem-hybrid-kex-10; the section numbers below are the
// draft's), which combines ML-KEM-768 (FIPS 203) with X25519 (RFC 7748).
// It is byte-compatible with OpenSSH 9.9 and later and with
// golang.org/x/crypto/ssh.
//
// The package does no I/O and knows nothing of SSH packets: it turns
// secrets into the method's two messages and the shared secret K. Package
// kexhash turns K into the exchange hash and session keys, and package
// sshkex plugs the method into golang.org/x/crypto/ssh.
//
// # The exchange
//
//	client                                      server
//	c, _ := NewClient(rand)
//	C_INIT = c.Init()          ──── 1216 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1120 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT (Q_C) is the client's ML-KEM-768 encapsulation key (1184 bytes)
// followed by its X25519 public key (32 bytes); S_REPLY (Q_S) is the
// ML-KEM-768 ciphertext (1088 bytes) followed by the server's X25519
// public key (32 bytes): the KEM part always comes first. Both sides
// compute
//
//	K = string(SHA-256(K_PQ || K_CL))
//
// where K_PQ is the 32-byte ML-KEM shared key and K_CL the 32-byte X25519
// output exactly as produced (draft section 2.4). K is returned in that
// SSH string encoding: the 4-byte length 00 00 00 20 followed by the
// 32-byte digest, 36 bytes in all. This is the form that goes into the
// exchange hash and key derivation unchanged; it is not an mpint, and
// re-encoding it as one is the classic interoperability bug of these
// methods. K must be kept secret.
//
// # Validation
//
// Peer input is rejected in exactly these cases, each a key exchange
// failure:
//
//   - C_INIT is not exactly 1216 bytes or S_REPLY not exactly 1120 bytes
//     (draft section 2.1);
//   - the client's ML-KEM-768 encapsulation key fails the modulus check of
//     FIPS 203 section 7.2 (a 12-bit coefficient not below q = 3329);
//   - the X25519 result is all zero, that is, the peer's X25519 public key
//     is a point of small order (RFC 7748 section 6.1, RFC 8731 section 3).
//
// Nothing else is checked. A ciphertext that was tampered with is not
// detected here: ML-KEM decapsulation uses implicit rejection (FIPS 203
// section 6.3), so the client derives a K that differs from the server's
// and the handshake fails when the server's signature over the exchange
// hash does not verify. X25519 public keys are used as RFC 7748 section 5
// says: bit 255 is ignored and non-canonical values are reduced modulo
// 2²⁵⁵−19. OpenSSH's own X25519 differs here: it does not clear bit 255,
// so for a public key with that bit set (which no honest peer sends)
// OpenSSH and this package compute different K and the handshake fails.
//
// Errors name whose value was bad and never contain key material.
//
// # Secrets and randomness
//
// Every secret is ephemeral: a Client is good for one key exchange and
// Respond draws fresh values on every call (draft section 6 requires this).
// Finish and Respond overwrite the secrets this package holds once they
// are no longer needed. This is best effort: Go may have copied them, and
// the ML-KEM decapsulation key inside the circl library can only be
// released to the garbage collector, not overwritten.
//
// NewClient and Respond take an io.Reader; nil means crypto/rand. Given a
// reader, they read from it exactly what OpenSSH reads from its random
// source, in the same order, so a given byte stream gives OpenSSH's keys
// and messages: the client reads the 64-byte ML-KEM seed d || z (FIPS 203
// ML-KEM.KeyGen_internal) and then its 32-byte X25519 private key; the
// server reads the 32-byte ML-KEM encapsulation randomness m
// (ML-KEM.Encaps_internal) and then its 32-byte X25519 private key.
//
// # Implementation
//
// The exchange is the one shared with mlkem768nistp256 and
// mlkem1024nistp384 (internal/hybrid). ML-KEM-768 is
// github.com/cloudflare/circl/kem/mlkem/mlkem768 and X25519 is
// github.com/cloudflare/circl/dh/x25519: both were measured faster than
// the standard library's crypto/mlkem and crypto/ecdh, which the tests
// use as independent oracles (see the vectors package). In FIPS 140-3
// mode (crypto/fips140.Enabled) ML-KEM-768 is crypto/mlkem instead; X25519
// is not an approved algorithm, so this method is not approved in that
// mode either. Both are constant time in the secrets. circl uses assembly
// on amd64 (and arm64 for ML-KEM); the purego build tag selects its
// portable Go code, which passes the same tests.
package mlkem768x25519

import (
	"crypto"
	"crypto/mlkem"
	"crypto/sha256"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
)

const (
	// Name is the SSH name of the method (RFC 10042).
	Name = "mlkem768x25519-sha256"

	// Hash is the hash function of the method: it hashes K_PQ || K_CL into
	// K and is the HASH of the exchange hash and key derivation.
	Hash = crypto.SHA256

	// ClientInitSize is the size of C_INIT: an ML-KEM-768 encapsulation
	// key (1184 bytes) and an X25519 public key (32 bytes).
	ClientInitSize = mlkem.EncapsulationKeySize768 + x25519Size

	// ServerReplySize is the size of S_REPLY: an ML-KEM-768 ciphertext
	// (1088 bytes) and an X25519 public key (32 bytes).
	ServerReplySize = mlkem.CiphertextSize768 + x25519Size

	// SharedSecretSize is the size of K as returned by Finish and Respond:
	// a 4-byte length and a SHA-256 digest.
	SharedSecretSize = 4 + sha256.Size
)

const x25519Size = 32

// method is the exchange on the shared engine (internal/hybrid).
var method = hybrid.MLKEM768X25519

// Client holds the client's ephemeral secrets between sending C_INIT and
// receiving S_REPLY. Its secrets must be kept secret. A Client is good
// for one key exchange and is not safe for concurrent use. The zero value
// is not usable: create Clients with NewClient.
type Client struct {
	c hybrid.Client
}

// NewClient generates the client's ephemeral ML-KEM-768 and X25519 keys.
// It reads 64 bytes, the ML-KEM seed d || z, and then 32 bytes, the X25519
// private key, from rand, or from crypto/rand if rand is nil. It returns
// an error only if reading from rand fails.
func NewClient(rand io.Reader) (*Client, error) {
	c := new(Client)
	if err := method.NewClient(&c.c, rand); err != nil {
		return nil, err
	}
	return c, nil
}

// Init returns C_INIT, the client's message: its ML-KEM-768 encapsulation
// key followed by its X25519 public key, ClientInitSize bytes in all. The
// result is a new slice; it is public. Init panics if c was not created by
// NewClient.
func (c *Client) Init() []byte { return method.Init(&c.c) }

// Finish processes S_REPLY, the server's message, and returns K in its SSH
// string encoding (SharedSecretSize bytes). It returns an error if
// serverReply is not ServerReplySize bytes long or if the server's X25519
// public key gives an all-zero shared secret; a modified ciphertext is
// not an error (see the package documentation). K must be kept secret.
//
// Finish may be called only once: it clears the client's secrets whether
// or not it succeeds, and later calls return an error.
func (c *Client) Finish(serverReply []byte) (k []byte, err error) {
	return method.Finish(&c.c, serverReply)
}

// Respond is the server side: it processes C_INIT, the client's message,
// and returns S_REPLY, the server's message (ServerReplySize bytes), and K
// in its SSH string encoding (SharedSecretSize bytes).
//
// It reads 32 bytes, the ML-KEM encapsulation randomness m, and then 32
// bytes, the server's ephemeral X25519 private key, from rand, or from
// crypto/rand if rand is nil.
//
// Respond returns an error if clientInit is not ClientInitSize bytes long,
// if the client's ML-KEM-768 encapsulation key fails the FIPS 203 section
// 7.2 check, if the client's X25519 public key gives an all-zero shared
// secret, or if reading from rand fails. K must be kept secret. Respond is
// safe for concurrent use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
