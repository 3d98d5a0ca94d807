package sntrup761x25519

import (
	"crypto"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"

	"github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/sntrupbridge"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519/internal/clienthook"
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

const (
	ekSize    = sntrup761.EncapsulationKeySize
	ctSize    = sntrup761.CiphertextSize
	kemSSSize = sntrup761.SharedKeySize
)

// Client holds the client's ephemeral secrets between sending C_INIT and
// receiving S_REPLY. Its secrets must be kept secret. A Client is good
// for one key exchange and is not safe for concurrent use. The zero value
// is not usable: create Clients with NewClient.
type Client struct {
	dk       *sntrup761.DecapsulationKey // nil once Finish was called
	priv     x25519.Key
	init     [ClientInitSize]byte
	finished bool
}

// NewClient generates the client's ephemeral sntrup761 and X25519 keys,
// reading from rand, or from crypto/rand if rand is nil, what sntrup761
// key generation needs (see the package documentation) and then 32 bytes,
// the X25519 private key. It returns an error only if reading from rand
// fails.
func NewClient(rand io.Reader) (*Client, error) {
	r := hybrid.NewRand(rand, "sntrup761x25519")
	// sntrup761's key generation reading from the caller's rand, in
	// OpenSSH's order (see internal/sntrupbridge).
	dk, err := sntrupbridge.GenerateKey(r)
	if err != nil {
		return nil, r.Wrap(err)
	}
	c := &Client{dk: dk.(*sntrup761.DecapsulationKey)}
	if err := r.Fill(c.priv[:]); err != nil {
		c.clear()
		return nil, err
	}
	c.setInit()
	return c, nil
}

// NewClientWithKey is NewClient with a ready sntrup761 key: dk must be a
// fresh decapsulation key that is used for this key exchange only, for
// example one from a sntrup761.KeyPool, which generates keys in batches
// at a fraction of the cost of one key each. Only the 32-byte X25519
// private key is read from rand (crypto/rand if rand is nil). It returns
// an error if dk is nil or reading from rand fails. The Client does not
// copy dk: the caller must not use dk again.
func NewClientWithKey(dk *sntrup761.DecapsulationKey, rand io.Reader) (*Client, error) {
	if dk == nil {
		return nil, errors.New("sntrup761x25519: NewClientWithKey needs a decapsulation key")
	}
	c := &Client{dk: dk}
	if err := hybrid.NewRand(rand, "sntrup761x25519").Fill(c.priv[:]); err != nil {
		c.clear()
		return nil, err
	}
	c.setInit()
	return c, nil
}

func (c *Client) setInit() {
	copy(c.init[:ekSize], c.dk.EncapsulationKey().Bytes())
	x25519.KeyGen((*x25519.Key)(c.init[ekSize:]), &c.priv)
}

func init() {
	clienthook.NewClient = func(kemKey, x25519Private []byte) (any, error) {
		if len(x25519Private) != x25519.Size {
			return nil, fmt.Errorf("sntrup761x25519: X25519 private key has %d bytes, want %d", len(x25519Private), x25519.Size)
		}
		if len(kemKey) != sntrup761.DecapsulationKeySize {
			return nil, fmt.Errorf("sntrup761x25519: sntrup761 decapsulation key has %d bytes, want %d", len(kemKey), sntrup761.DecapsulationKeySize)
		}
		dk, err := sntrup761.NewDecapsulationKey(kemKey)
		if err != nil {
			return nil, fmt.Errorf("sntrup761x25519: %w", err)
		}
		c := &Client{dk: dk}
		copy(c.priv[:], x25519Private)
		c.setInit()
		return c, nil
	}
}

// Init returns C_INIT, the client's message: its sntrup761 public key
// followed by its X25519 public key, ClientInitSize bytes in all. The
// result is a new slice; it is public. Init panics if c was not created by
// NewClient.
func (c *Client) Init() []byte {
	if c.dk == nil && !c.finished {
		panic("sntrup761x25519: Client not created by NewClient")
	}
	out := make([]byte, ClientInitSize)
	copy(out, c.init[:])
	return out
}

// Finish processes S_REPLY, the server's message, and returns K in its SSH
// string encoding (SharedSecretSize bytes). It returns an error if
// serverReply is not ServerReplySize bytes long or if the server's X25519
// public key gives an all-zero shared secret; a modified ciphertext is
// not an error (see the package documentation). K must be kept secret.
//
// Finish may be called only once: it clears the client's secrets whether
// or not it succeeds, and later calls return an error.
func (c *Client) Finish(serverReply []byte) (k []byte, err error) {
	if c.finished {
		return nil, errors.New("sntrup761x25519: Finish called twice on the same Client")
	}
	if c.dk == nil {
		return nil, errors.New("sntrup761x25519: Client not created by NewClient")
	}
	defer c.clear()
	if len(serverReply) != ServerReplySize {
		return nil, fmt.Errorf("sntrup761x25519: server's S_REPLY has %d bytes, want %d", len(serverReply), ServerReplySize)
	}
	var kCL x25519.Key
	defer clear(kCL[:])
	if !hybrid.X25519Shared(&kCL, &c.priv, serverReply[ctSize:]) {
		return nil, errors.New("sntrup761x25519: server's X25519 public key is a low-order point (all-zero shared secret)")
	}
	// Decapsulate fails only on a wrong length; a bad ciphertext yields
	// the implicit-rejection key.
	kPQ, err := c.dk.Decapsulate(serverReply[:ctSize])
	if err != nil {
		return nil, fmt.Errorf("sntrup761x25519: %w", err)
	}
	defer clear(kPQ)
	return hybrid.SharedSecret(Hash, kPQ, kCL[:]), nil
}

// clear overwrites the client's secrets, the X25519 private key and the
// sntrup761 decapsulation key (its own, or the one NewClientWithKey was
// given, which the caller no longer uses), and drops the key (best effort,
// see the package documentation). Every path that ends a Client calls it:
// Finish (success or error) and NewClient's errors.
func (c *Client) clear() {
	clear(c.priv[:])
	if c.dk != nil {
		sntrupbridge.ClearKey(c.dk)
		c.dk = nil
	}
	c.finished = true
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
	if len(clientInit) != ClientInitSize {
		return nil, nil, fmt.Errorf("sntrup761x25519: client's C_INIT has %d bytes, want %d", len(clientInit), ClientInitSize)
	}
	// Decoding is total: at this length it cannot fail.
	ek, err := sntrup761.NewEncapsulationKey(clientInit[:ekSize])
	if err != nil {
		return nil, nil, fmt.Errorf("sntrup761x25519: %w", err)
	}
	r := hybrid.NewRand(rand, "sntrup761x25519")
	// As in NewClient: sntrup761's encapsulation reading r from the
	// caller's rand.
	kPQ, ct, err := sntrupbridge.Encapsulate(ek, r)
	if err != nil {
		return nil, nil, r.Wrap(err)
	}
	defer clear(kPQ)
	var priv x25519.Key
	defer clear(priv[:])
	if err := r.Fill(priv[:]); err != nil {
		return nil, nil, err
	}

	var kCL x25519.Key
	defer clear(kCL[:])
	if !hybrid.X25519Shared(&kCL, &priv, clientInit[ekSize:]) {
		return nil, nil, errors.New("sntrup761x25519: client's X25519 public key is a low-order point (all-zero shared secret)")
	}
	serverReply = make([]byte, ServerReplySize)
	copy(serverReply, ct)
	x25519.KeyGen((*x25519.Key)(serverReply[ctSize:]), &priv)
	return serverReply, hybrid.SharedSecret(Hash, kPQ, kCL[:]), nil
}
