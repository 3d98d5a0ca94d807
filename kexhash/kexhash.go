// Package kexhash implements the parts of the SSH transport protocol that
// turn the output of a key exchange into session keys:
//
//   - the SSH encodings string and mpint (RFC 4251 section 5);
//   - the exchange hash H (RFC 4253 section 8), in the field order that
//     RFC 5656 section 4 defines for ECDH and that the hybrid methods
//     (RFC 9941, RFC 10042) reuse: V_C, V_S, I_C, I_S, K_S, Q_C, Q_S, K;
//   - key derivation (RFC 4253 section 7.2), extended to any output length.
//
// Everything works for any crypto.Hash; the methods in this module use
// SHA-256 (mlkem768x25519-sha256, mlkem768nistp256-sha256), SHA-384
// (mlkem1024nistp384-sha384) and SHA-512 (sntrup761x25519-sha512), all of
// which this package links in.
//
// # The shared secret K
//
// K is passed to ExchangeHash and DeriveKey already encoded, exactly as it
// is hashed: classic Diffie-Hellman and curve25519-sha256 encode it as an
// mpint (see Mpint), the hybrid post-quantum methods as a string
// (string(HASH(K_PQ || K_CL)), see String). Mixing up the two is the
// classic interoperability bug of these methods, so this package never
// re-encodes K. K, H and the derived keys are secret.
package kexhash

import (
	"crypto"
	_ "crypto/sha256" // SHA-256: mlkem768x25519-sha256, mlkem768nistp256-sha256, curve25519-sha256
	_ "crypto/sha512" // SHA-512: sntrup761x25519-sha512; SHA-384: mlkem1024nistp384-sha384
	"encoding/binary"
	"hash"
	"math"
	"strconv"
)

// String returns the SSH string encoding of b (RFC 4251 section 5): its
// length as a 4-byte big-endian integer followed by b. The result is a new
// slice. String panics if b is longer than 2³²−1 bytes, which no SSH value
// can be.
func String(b []byte) []byte {
	out := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(out, length(len(b)))
	copy(out[4:], b)
	return out
}

// Mpint returns the SSH mpint encoding (RFC 4251 section 5) of the
// non-negative integer whose big-endian bytes are b: leading zero bytes
// are dropped, a zero byte is prepended if the most significant remaining
// bit is set (mpints are two's complement), and the result is encoded as a
// string. Zero, including an empty b, is encoded as four zero bytes. The
// result is a new slice.
//
// This is how RFC 8731 section 3.1 encodes K for curve25519-sha256. The
// hybrid methods of this module do not use it: their K is a string.
func Mpint(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	pad := 0
	if len(b) > 0 && b[0]&0x80 != 0 {
		pad = 1
	}
	out := make([]byte, 4+pad+len(b))
	binary.BigEndian.PutUint32(out, length(pad+len(b)))
	copy(out[4+pad:], b)
	return out
}

func length(n int) uint32 {
	if uint64(n) > math.MaxUint32 {
		panic("kexhash: value of " + strconv.Itoa(n) + " bytes does not fit an SSH string")
	}
	return uint32(n)
}

// writeString writes the string encoding of b to h.
func writeString(h hash.Hash, b []byte) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], length(len(b)))
	h.Write(l[:])
	h.Write(b)
}

// ExchangeHash returns the exchange hash H (RFC 4253 section 8) of a key
// exchange whose messages follow RFC 5656 section 4, as every ECDH and
// hybrid post-quantum method does:
//
//	H = HASH(string(V_C) || string(V_S) || string(I_C) || string(I_S) ||
//	         string(K_S) || string(Q_C) || string(Q_S) || K)
//
// vc and vs are the client's and server's version lines without the
// trailing CR LF; ic and is are the complete SSH_MSG_KEXINIT payloads,
// starting with the message number 20; ks is the server's host key blob;
// qc and qs are the client's and server's ephemeral values (for the hybrid
// methods, C_INIT and S_REPLY). k is the shared secret already encoded as
// the method requires (string or mpint, see the package documentation) and
// is hashed as is. The first H of a connection is also its session
// identifier. H must be kept secret until the server's signature over it
// has been sent.
//
// ExchangeHash panics if h is not available (not linked into the binary).
func ExchangeHash(h crypto.Hash, vc, vs, ic, is, ks, qc, qs, k []byte) []byte {
	d := h.New()
	for _, b := range [...][]byte{vc, vs, ic, is, ks, qc, qs} {
		writeString(d, b)
	}
	d.Write(k)
	return d.Sum(nil)
}

// DeriveKey returns n bytes of key material derived as in RFC 4253
// section 7.2:
//
//	K1 = HASH(K || H || letter || session_id)
//	K2 = HASH(K || H || K1)
//	K3 = HASH(K || H || K1 || K2)
//	...
//	key = first n bytes of K1 || K2 || K3 || ...
//
// k is the shared secret already encoded as the method requires (it is
// hashed as is), H the exchange hash of this key exchange and sessionID
// the exchange hash of the connection's first key exchange. letter is 'A'
// to 'F': 'A' initial IV client to server, 'B' IV server to client, 'C'
// encryption key client to server, 'D' server to client, 'E' integrity key
// client to server, 'F' server to client. The result must be kept secret.
//
// DeriveKey panics if h is not available or n is negative.
func DeriveKey(h crypto.Hash, k, H, sessionID []byte, letter byte, n int) []byte {
	if n < 0 {
		panic("kexhash: negative key length " + strconv.Itoa(n))
	}
	d := h.New()
	out := make([]byte, 0, n+d.Size())
	for len(out) < n {
		d.Reset()
		d.Write(k)
		d.Write(H)
		if len(out) == 0 {
			d.Write([]byte{letter})
			d.Write(sessionID)
		} else {
			d.Write(out)
		}
		out = d.Sum(out)
	}
	clear(out[n:cap(out)])
	return out[:n:n]
}
