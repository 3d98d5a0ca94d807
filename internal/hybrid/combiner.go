// Package hybrid holds what every SSH hybrid method shares: the X25519
// half with its mandatory all-zero check, the combiner
// K = string(HASH(K_PQ || K_CL)), and reading the caller's randomness.
package hybrid

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

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

// SharedSecret returns K = string(HASH(kPQ || kCL)), the shared secret as
// every hybrid method feeds it to the exchange hash and the key derivation
// (RFC 10042 section 2.4, RFC 9941 section 3): a 4-byte length, then the
// digest. h is crypto.SHA256, crypto.SHA384 or crypto.SHA512; kPQ is the
// 32-byte KEM key and kCL the fixed-length classical secret (32 bytes for
// X25519 and P-256, 48 for P-384), never an mpint. Intermediate copies
// are cleared.
func SharedSecret(h crypto.Hash, kPQ, kCL []byte) []byte {
	var buf [32 + 48]byte
	n := copy(buf[:], kPQ)
	if n != len(kPQ) || n+len(kCL) > len(buf) {
		panic("hybrid: shared secret parts too long") // our own methods only
	}
	n += copy(buf[n:], kCL)
	in := buf[:n]
	var sum [64]byte
	var d []byte
	switch h {
	case crypto.SHA256:
		s := sha256.Sum256(in)
		d = sum[:copy(sum[:], s[:])]
		clear(s[:])
	case crypto.SHA384:
		s := sha512.Sum384(in)
		d = sum[:copy(sum[:], s[:])]
		clear(s[:])
	case crypto.SHA512:
		s := sha512.Sum512(in)
		d = sum[:copy(sum[:], s[:])]
		clear(s[:])
	default:
		panic("hybrid: unsupported hash") // our own methods only
	}
	k := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(d)), uint32(len(d)))
	k = append(k, d...)
	clear(sum[:])
	clear(buf[:])
	return k
}

// Rand reads the caller's randomness, or crypto/rand's if nil, and
// remembers the first read error so that an error surfacing through a KEM
// (which may not wrap it) can still be matched with errors.Is.
type Rand struct {
	r      io.Reader
	err    error
	method string // for error messages
}

// NewRand returns a Rand reading from r (crypto/rand if r is nil); method
// prefixes its errors.
func NewRand(r io.Reader, method string) *Rand {
	if r == nil {
		r = rand.Reader
	}
	return &Rand{r: r, method: method}
}

// IsDefault reports whether r is the default randomness source: nil or
// crypto/rand's Reader, which golang.org/x/crypto/ssh passes as
// Config.Rand unless the user set another. Such a source may be replaced
// by the Go Cryptographic Module's own generation, which draws from the
// same generator.
func IsDefault(r io.Reader) bool { return r == nil || r == rand.Reader }

// Read implements io.Reader.
func (r *Rand) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// Failed reports whether a read from the source failed.
func (r *Rand) Failed() bool { return r.err != nil }

// Fill fills b completely.
func (r *Rand) Fill(b []byte) error {
	if _, err := io.ReadFull(r, b); err != nil {
		return r.Wrap(err)
	}
	return nil
}

// Wrap returns the error to report after a failed read: the first error
// the source returned, with io.EOF turned into io.ErrUnexpectedEOF.
func (r *Rand) Wrap(err error) error {
	if r.err != nil {
		err = r.err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: reading randomness: %w", r.method, err)
}

// ResetUpperState must be called after circl's ML-KEM functions on amd64.
// circl's AVX2 Keccak assembly (simd/keccakf1600, f1600x4_amd64.s in
// v1.6.5) returns without VZEROUPPER; until something clears the upper
// halves of the YMM registers, every legacy-SSE instruction on the thread
// pays a transition penalty. Measured here: a 3.5 KB SHA-256 (SHA-NI, SSE
// encoded) right after an ML-KEM encapsulation took 276 µs instead of
// 2.5 µs, which made whole x/crypto/ssh handshakes slower than with
// x/crypto's own ML-KEM, and slows AES-GCM and everything else after it.
//
// Pure Go cannot execute VZEROUPPER, but the runtime's memequal does after
// its AVX2 loop for inputs of 64 bytes or more (internal/bytealg,
// equal_amd64.s), so comparing two distinct 64-byte buffers clears the
// state. It costs a few nanoseconds and is harmless elsewhere.
// BenchmarkSHA256AfterMLKEM in this package shows the effect.
func ResetUpperState() {
	// The atomic store keeps the comparison from being optimized away and
	// is safe from any number of goroutines at once.
	equalSink.Store(bytes.Equal(resetA[:], resetB[:]))
}

var resetA, resetB [64]byte

var equalSink atomic.Bool
