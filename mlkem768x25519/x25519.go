package mlkem768x25519

import (
	"crypto/subtle"

	"github.com/cloudflare/circl/dh/x25519"
)

// x25519Shared sets out to X25519(priv, peer) (RFC 7748 section 5: priv
// is clamped, bit 255 of peer is ignored, non-canonical values are
// reduced) and reports whether the result is not all zero (RFC 7748
// section 6.1; RFC 8731 section 3 makes the check mandatory for SSH).
// peer must be 32 bytes long. Constant time in priv.
func x25519Shared(out, priv *x25519.Key, peer []byte) bool {
	var pub x25519.Key
	copy(pub[:], peer)
	x25519.Shared(out, priv, &pub) // its own low-order verdict is ignored: the result decides
	var zero x25519.Key
	return subtle.ConstantTimeCompare(out[:], zero[:]) == 0
}
