package hybrid

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/cloudflare/circl/dh/x25519"
)

// X25519Shared sets out to X25519(priv, peer) (RFC 7748 section 5: priv
// is clamped, bit 255 of peer is ignored, non-canonical values are
// reduced) and reports whether the result is not all zero (RFC 7748
// section 6.1; RFC 8731 section 3 makes the check mandatory for SSH).
// peer must be 32 bytes long. Constant time in priv.
func X25519Shared(out, priv *x25519.Key, peer []byte) bool {
	var pub x25519.Key
	copy(pub[:], peer)
	x25519.Shared(out, priv, &pub) // its own low-order verdict is ignored: the result decides
	var zero x25519.Key
	return subtle.ConstantTimeCompare(out[:], zero[:]) == 0
}

// Curve is the classical half of a hybrid method.
type Curve interface {
	// Name is "X25519", "P-256" or "P-384".
	Name() string
	// PublicKeySize is the size of a public key on the wire: 32 for
	// X25519, an uncompressed SEC1 point (65, 97) for P-256 and P-384.
	PublicKeySize() int
	// SecretSize is the size of K_CL: 32, or the x-coordinate's 32 / 48.
	SecretSize() int
	// PrivateKeySize is the size of a private key (scalar) in bytes.
	PrivateKeySize() int
	// GenerateKey reads an ephemeral private key from r (see each
	// implementation for how): the known-answer path.
	GenerateKey(r *Rand) (ClassicalKey, error)
	// Generate makes an ephemeral private key from crypto/rand: for
	// P-256 and P-384 by crypto/ecdh's GenerateKey, the Go Cryptographic
	// Module's approved key generation (SP 800-56A section 5.6.1.2.2,
	// with its pairwise consistency test in FIPS 140-3 mode).
	Generate() (ClassicalKey, error)
	// NewKey loads a private key (for the explicit-key constructors).
	NewKey(priv []byte) (ClassicalKey, error)
}

// ClassicalKey is an ephemeral private key. It is secret.
type ClassicalKey interface {
	// PublicKey writes the public key to dst (PublicKeySize bytes).
	PublicKey(dst []byte)
	// ECDH checks the peer's public key (PublicKeySize bytes) and writes
	// K_CL to dst (SecretSize bytes). The error says what is wrong with
	// the peer's key, as a phrase to follow "<who>'s <curve> public key";
	// it holds no input bytes.
	ECDH(dst, peer []byte) error
	// Clear forgets the key (best effort).
	Clear()
}

// X25519 is RFC 7748's X25519 (circl's implementation; not an approved
// algorithm, so mlkem768x25519 has no FIPS mode).
func X25519() Curve { return x25519Curve{} }

type x25519Curve struct{}

func (x25519Curve) Name() string        { return "X25519" }
func (x25519Curve) PublicKeySize() int  { return x25519.Size }
func (x25519Curve) SecretSize() int     { return x25519.Size }
func (x25519Curve) PrivateKeySize() int { return x25519.Size }

// GenerateKey reads the 32-byte private key (unclamped) from r.
func (x25519Curve) GenerateKey(r *Rand) (ClassicalKey, error) {
	k := new(x25519Key)
	if err := r.Fill(k.priv[:]); err != nil {
		clear(k.priv[:])
		return nil, err
	}
	return k, nil
}

// Generate reads the private key from crypto/rand (circl's X25519 is
// outside the Go Cryptographic Module).
func (c x25519Curve) Generate() (ClassicalKey, error) {
	return c.GenerateKey(NewRand(nil, "X25519"))
}

func (x25519Curve) NewKey(priv []byte) (ClassicalKey, error) {
	if len(priv) != x25519.Size {
		return nil, fmt.Errorf("X25519 private key has %d bytes, want %d", len(priv), x25519.Size)
	}
	k := new(x25519Key)
	copy(k.priv[:], priv)
	return k, nil
}

type x25519Key struct{ priv x25519.Key }

func (k *x25519Key) PublicKey(dst []byte) { x25519.KeyGen((*x25519.Key)(dst), &k.priv) }

// ECDH rejects only an all-zero result (a low-order peer key, RFC 8731
// section 3); bit 255 is ignored and non-canonical values are reduced.
func (k *x25519Key) ECDH(dst, peer []byte) error {
	if !X25519Shared((*x25519.Key)(dst), &k.priv, peer) {
		return errors.New("is a low-order point (all-zero shared secret)")
	}
	return nil
}

func (k *x25519Key) Clear() { clear(k.priv[:]) }

// P256 and P384 are the NIST curves of crypto/ecdh (the Go Cryptographic
// Module's). Public keys must be uncompressed SEC1 points on the curve
// (crypto/ecdh.Curve.NewPublicKey: coordinates below p, on the curve, not
// the identity, whose encoding is the single byte 00); K_CL is the
// x-coordinate of the product as a fixed-length big-endian string.
func P256() Curve { return nistP256 }
func P384() Curve { return nistP384 }

var (
	nistP256 = nistCurve{ecdh.P256(), "P-256", 32}
	nistP384 = nistCurve{ecdh.P384(), "P-384", 48}
)

type nistCurve struct {
	c    ecdh.Curve
	name string
	size int // field element and scalar size in bytes
}

func (c nistCurve) Name() string        { return c.name }
func (c nistCurve) PublicKeySize() int  { return 1 + 2*c.size }
func (c nistCurve) SecretSize() int     { return c.size }
func (c nistCurve) PrivateKeySize() int { return c.size }

// maxCandidates bounds the rejection sampling: an honest generator gives
// an out-of-range candidate with probability below 2^-32 (P-256).
const maxCandidates = 64

// GenerateKey draws the private key as OpenSSL does and OpenSSH's
// generator used for the vectors: size-byte big-endian candidates from r
// until one lies in [1, n-1]. The range test is crypto/ecdh's
// (NewPrivateKey, constant time); a rejected candidate is discarded, so
// the number of draws reveals only values that are never used. This
// imports a key rather than generating one: it is not the module's key
// generation service (no pairwise consistency test), so NewClient and
// Respond use it only for a caller's reader outside FIPS 140-3 mode
// (NewClientFrom and RespondFrom, the known-answer path, in every mode).
func (c nistCurve) GenerateKey(r *Rand) (ClassicalKey, error) {
	derandomized.Add(1)
	var buf [48]byte
	b := buf[:c.size]
	defer clear(b)
	for range maxCandidates {
		if err := r.Fill(b); err != nil {
			return nil, err
		}
		if k, err := c.c.NewPrivateKey(b); err == nil {
			return &nistKey{c, k}, nil
		}
	}
	return nil, r.Wrap(fmt.Errorf("%d %s private key candidates in a row were 0 or not below the group order", maxCandidates, c.name))
}

// Generate is crypto/ecdh's GenerateKey, the module's approved key
// generation; since Go 1.26 it ignores its reader argument and always
// draws from the module's DRBG.
func (c nistCurve) Generate() (ClassicalKey, error) {
	k, err := c.c.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &nistKey{c, k}, nil
}

func (c nistCurve) NewKey(priv []byte) (ClassicalKey, error) {
	derandomized.Add(1)
	if len(priv) != c.size {
		return nil, fmt.Errorf("%s private key has %d bytes, want %d", c.name, len(priv), c.size)
	}
	k, err := c.c.NewPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("%s private key is 0 or not below the group order", c.name)
	}
	return &nistKey{c, k}, nil
}

type nistKey struct {
	c nistCurve
	k *ecdh.PrivateKey
}

func (k *nistKey) PublicKey(dst []byte) { copy(dst, k.k.PublicKey().Bytes()) }

func (k *nistKey) ECDH(dst, peer []byte) error {
	if len(peer) != k.c.PublicKeySize() || peer[0] != 4 {
		return errors.New("is not an uncompressed point (SEC1 form 04 || X || Y)")
	}
	pub, err := k.c.c.NewPublicKey(peer)
	if err != nil {
		return errors.New("is not a point on the curve (or a coordinate is not below p)")
	}
	s, err := k.k.ECDH(pub)
	if err != nil { // the identity cannot result on a prime-order curve
		return errors.New("gives the point at infinity")
	}
	copy(dst, s)
	clear(s)
	return nil
}

// Clear drops the key; crypto/ecdh offers no way to overwrite it.
func (k *nistKey) Clear() { k.k = nil }
