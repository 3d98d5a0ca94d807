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

// method is the exchange on the shared engine (internal/hybrid): a
// pointer to its one descriptor, the same value internal/kat and the fuzz
// tests run, never a copy.
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
// an error if dk is nil or the zero DecapsulationKey (no key) or if
// reading randomness fails. The Client does not copy dk: the caller must
// not use dk again, and the Client overwrites it once the key exchange is
// over.
func NewClientWithKey(dk *sntrup761.DecapsulationKey, rand io.Reader) (*Client, error) {
	if dk == nil || *dk == (sntrup761.DecapsulationKey{}) {
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
// reading randomness fails. K must be kept secret. Respond is safe for
// concurrent use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
