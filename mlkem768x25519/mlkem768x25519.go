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

// method is the exchange on the shared engine (internal/hybrid): a
// pointer to its one descriptor, the same value internal/kat and the fuzz
// tests run, never a copy.
var method = &hybrid.MLKEM768X25519

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
// an error only if reading randomness fails.
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
// secret, if reading randomness fails, or under GODEBUG=fips140=only if
// rand is a reader other than crypto/rand's (see the package
// documentation). K must be kept secret. Respond is safe for concurrent
// use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
