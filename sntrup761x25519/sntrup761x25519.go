// Package sntrup761x25519 implements the cryptography of the SSH key
// exchange method sntrup761x25519-sha512 (RFC 9941), also known by its
// original name sntrup761x25519-sha512@openssh.com, which combines the
// Streamlined NTRU Prime KEM sntrup761 with X25519 (RFC 7748). It is
// byte-compatible with OpenSSH 8.5 and later (the default method of
// OpenSSH 9.0 to 9.9) and with TinySSH.
//
// The package does no I/O and knows nothing of SSH packets: it turns
// secrets into the method's two messages and the shared secret K. Package
// kexhash turns K into the exchange hash and session keys, and package
// sshkex plugs the method into golang.org/x/crypto/ssh.
//
// # Names
//
// OpenSSH 8.5 to 9.8 know the method only as
// sntrup761x25519-sha512@openssh.com (AliasName); OpenSSH 9.9 and later
// and RFC 9941 also call it sntrup761x25519-sha512 (Name). Both names
// select exactly the same bytes. Offer both, Name first, or peers running
// OpenSSH 9.0 to 9.8 fall back to a classical key exchange.
//
// # The exchange
//
//	client                                      server
//	c, _ := NewClient(rand)
//	C_INIT = c.Init()          ──── 1190 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1071 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT (Q_C) is the client's sntrup761 public key (1158 bytes) followed
// by its X25519 public key (32 bytes); S_REPLY (Q_S) is the sntrup761
// ciphertext (1039 bytes) followed by the server's X25519 public key (32
// bytes): the KEM part always comes first. Both sides compute
//
//	K = string(SHA-512(K_PQ || K_CL))
//
// where K_PQ is the 32-byte sntrup761 shared key and K_CL the 32-byte
// X25519 output exactly as produced (RFC 9941 section 3). K is returned in
// that SSH string encoding: the 4-byte length 00 00 00 40 followed by the
// 64-byte digest, 68 bytes in all. This is the form that goes into the
// exchange hash and key derivation unchanged; it is not an mpint, and
// re-encoding it as one is the classic interoperability bug of these
// methods. K must be kept secret.
//
// # Validation
//
// Peer input is rejected in exactly these cases, each a key exchange
// failure:
//
//   - C_INIT is not exactly 1190 bytes or S_REPLY not exactly 1071 bytes
//     (RFC 9941 section 3);
//   - the X25519 result is all zero, that is, the peer's X25519 public key
//     is a point of small order (RFC 7748 section 6.1, RFC 8731 section 3).
//
// Nothing else is checked, as RFC 9941 section 3 says: the sntrup761
// decoders are total ("NTRU Prime: round 3", section 3.1), so every public
// key and ciphertext of the right length is valid input, exactly as in
// OpenSSH and the reference code. A ciphertext that was tampered with is
// not detected here: decapsulation uses implicit rejection (section
// 2.3.8), so the client derives a K that differs from the server's and
// the handshake fails when the server's signature over the exchange hash
// does not verify. X25519 public keys are used as RFC 7748 section 5
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
// Respond draws fresh values on every call. Finish and Respond overwrite
// the secrets this package holds once they are no longer needed, on every
// path (success, an error in the peer's message, a local error): the
// X25519 private keys, K_PQ, K_CL and the client's sntrup761
// decapsulation key, including one given to NewClientWithKey (for
// example from a sntrup761.KeyPool). A Client abandoned before Finish is
// cleared by calling Finish (with any reply, even nil). This is best
// effort: Go may have copied the values, and freed memory is not
// cleared.
//
// NewClient and Respond take an io.Reader; nil means crypto/rand. They
// read from it exactly what OpenSSH reads from its random source, in the
// same order (OpenSSH before 10.3 reads the same bytes in 4-byte pieces), so a given byte stream gives OpenSSH's keys
// and messages: the client reads sntrup761 key generation's 3044 bytes
// for g (again while g is not invertible), 3044 bytes for f and 191 bytes
// for rho, and then its 32-byte X25519 private key; the server reads 3044
// bytes for the sntrup761 encapsulation's r and then its 32-byte X25519
// private key. Each of these is one Read call.
//
// sntrup761 key generation dominates the cost of the exchange. A client
// that makes many connections can take its keys from a sntrup761.KeyPool,
// which generates them in batches much more cheaply, and pass each to
// NewClientWithKey, which then reads only the X25519 private key.
//
// # Implementation
//
// sntrup761 is this module's package sntrup761; X25519 is
// github.com/cloudflare/circl/dh/x25519, measured faster than the
// standard library's crypto/ecdh, which the tests use as an independent
// oracle (see the vectors package). Both are constant time in the
// secrets. circl uses assembly on amd64; the purego build tag selects its
// portable Go code, which passes the same tests.
package sntrup761x25519

import (
	"crypto"
	"crypto/sha512"
	"errors"
	"io"

	"github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761"
)

const (
	// Name is the SSH name of the method (RFC 9941).
	Name = "sntrup761x25519-sha512"

	// AliasName is the name OpenSSH used before RFC 9941. It selects
	// exactly the same method as Name.
	AliasName = "sntrup761x25519-sha512@openssh.com"

	// Hash is the hash function of the method: it hashes K_PQ || K_CL into
	// K and is the HASH of the exchange hash and key derivation.
	Hash = crypto.SHA512

	// ClientInitSize is the size of C_INIT: an sntrup761 public key (1158
	// bytes) and an X25519 public key (32 bytes).
	ClientInitSize = sntrup761.EncapsulationKeySize + x25519.Size

	// ServerReplySize is the size of S_REPLY: an sntrup761 ciphertext (1039
	// bytes) and an X25519 public key (32 bytes).
	ServerReplySize = sntrup761.CiphertextSize + x25519.Size

	// SharedSecretSize is the size of K as returned by Finish and Respond:
	// a 4-byte length and a SHA-512 digest.
	SharedSecretSize = 4 + sha512.Size
)

// method is the exchange on the shared engine (internal/hybrid).
var method = &hybrid.SNTRUP761X25519

// Client holds the client's ephemeral secrets between sending C_INIT and
// receiving S_REPLY. Its secrets must be kept secret. A Client is good
// for one key exchange and is not safe for concurrent use. The zero value
// is not usable: create Clients with NewClient.
type Client struct {
	c hybrid.Client
}

// NewClient generates the client's ephemeral sntrup761 and X25519 keys,
// reading from rand, or from crypto/rand if rand is nil, what sntrup761
// key generation needs (see the package documentation) and then 32 bytes,
// the X25519 private key. It returns an error only if reading from rand
// fails.
func NewClient(rand io.Reader) (*Client, error) {
	c := new(Client)
	if err := method.NewClient(&c.c, rand); err != nil {
		return nil, err
	}
	return c, nil
}

// NewClientWithKey is NewClient with a ready sntrup761 key: dk must be a
// fresh decapsulation key that is used for this key exchange only, for
// example one from a sntrup761.KeyPool, which generates keys in batches
// at a fraction of the cost of one key each. Only the 32-byte X25519
// private key is read from rand (crypto/rand if rand is nil). It returns
// an error if dk is nil or reading from rand fails. The Client does not
// copy dk: the caller must not use dk again, and the Client overwrites it
// once the key exchange is over.
func NewClientWithKey(dk *sntrup761.DecapsulationKey, rand io.Reader) (*Client, error) {
	if dk == nil {
		return nil, errors.New("sntrup761x25519: NewClientWithKey needs a decapsulation key")
	}
	c := new(Client)
	if err := method.NewClientWithKEMKey(&c.c, hybrid.SNTRUP761Key(dk), rand); err != nil {
		return nil, err
	}
	return c, nil
}

// Init returns C_INIT, the client's message: its sntrup761 public key
// followed by its X25519 public key, ClientInitSize bytes in all. The
// result is a new slice; it is public. Init panics if c was not created by
// NewClient.
func (c *Client) Init() []byte { return method.Init(&c.c) }

// Finish processes S_REPLY, the server's message, and returns K in its SSH
// string encoding (SharedSecretSize bytes). It returns an error if
// serverReply is not ServerReplySize bytes long or if the server's X25519
// public key gives an all-zero shared secret; a modified ciphertext is
// not an error (see the package documentation). K must be kept secret.
//
// Finish may be called only once: it overwrites the client's secrets
// (the sntrup761 key included) whether or not it succeeds, and later calls
// return an error.
func (c *Client) Finish(serverReply []byte) (k []byte, err error) {
	return method.Finish(&c.c, serverReply)
}

// Respond is the server side: it processes C_INIT, the client's message,
// and returns S_REPLY, the server's message (ServerReplySize bytes), and K
// in its SSH string encoding (SharedSecretSize bytes).
//
// It reads 3044 bytes, the sntrup761 encapsulation's r, and then 32
// bytes, the server's ephemeral X25519 private key, from rand, or from
// crypto/rand if rand is nil.
//
// Respond returns an error if clientInit is not ClientInitSize bytes long,
// if the client's X25519 public key gives an all-zero shared secret, or if
// reading from rand fails. K must be kept secret. Respond is safe for
// concurrent use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
