package hybrid

import (
	"crypto"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
)

// SharedSecret returns K = string(HASH(kPQ || kCL)), the shared secret as
// every hybrid method feeds it to the exchange hash and the key derivation
// (RFC 10042 section 2.4 for the digest, section 2.5 for its encoding as
// a string; RFC 9941 section 3): a 4-byte length, then the
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
