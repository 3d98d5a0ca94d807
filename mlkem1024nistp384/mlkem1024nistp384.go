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

// method is the exchange on the shared engine (internal/hybrid): a
// pointer to its one descriptor, the same value internal/kat and the fuzz
// tests run, never a copy.
var method = &hybrid.MLKEM1024NISTP384

// Client holds the client's ephemeral secrets between sending C_INIT and
// receiving S_REPLY. Its secrets must be kept secret. A Client is good
// for one key exchange and is not safe for concurrent use. The zero value
// is not usable: create Clients with NewClient.
type Client struct {
	c hybrid.Client
}

// NewClient generates the client's ephemeral ML-KEM-1024 and P-384 keys.
// Outside FIPS mode, given a reader other than crypto/rand's Reader, it
// reads 64 bytes from rand, the ML-KEM seed d || z, and then 48-byte
// P-384 private key candidates until one is valid; given nil or
// crypto/rand's Reader, the seed comes from crypto/rand and crypto/ecdh
// generates the P-384 key. In FIPS 140-3 mode it ignores rand and the Go
// Cryptographic Module generates both keys (see the package
// documentation). It returns an error only if reading randomness fails
// (or yields 64 invalid candidates in a row), or if the module's key
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
// Outside FIPS mode, given a reader other than crypto/rand's Reader, it
// reads 32 bytes from rand, the ML-KEM encapsulation randomness m, and
// then the server's ephemeral P-384 private key candidates (48 bytes
// each); given nil or crypto/rand's Reader, m comes from crypto/rand and
// crypto/ecdh generates the P-384 key. In FIPS 140-3 mode it ignores
// rand and the Go Cryptographic Module draws both itself.
//
// Respond returns an error if clientInit is not ClientInitSize bytes long,
// if the client's ML-KEM-1024 encapsulation key fails the FIPS 203 section
// 7.2 check, if the client's P-384 public key is not a valid uncompressed
// point on the curve, or if reading randomness fails. K must be kept
// secret. Respond is safe for concurrent use if rand is.
func Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	return method.Respond(rand, clientInit)
}
