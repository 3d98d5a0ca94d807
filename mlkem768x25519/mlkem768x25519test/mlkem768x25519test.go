// Package mlkem768x25519test builds the two sides of an
// mlkem768x25519-sha256 key exchange from explicit secrets. It must only
// be used for known-answer tests: a key exchange made from fixed or
// predictable secrets offers no security.
package mlkem768x25519test

import (
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/mlkem768x25519/internal/clienthook"
)

// NewClient returns a Client holding the given ephemeral keys. kemKey is
// either the 64-byte ML-KEM-768 seed d || z (FIPS 203
// ML-KEM.KeyGen_internal) or a 2400-byte expanded decapsulation key, which
// must pass the hash check of FIPS 203 section 7.3. x25519Private is the
// 32-byte X25519 private key, unclamped. It returns an error if a length
// is wrong or the expanded key fails its check.
func NewClient(kemKey, x25519Private []byte) (*mlkem768x25519.Client, error) {
	c, err := clienthook.NewClient(kemKey, x25519Private)
	if err != nil {
		return nil, err
	}
	return c.(*mlkem768x25519.Client), nil
}

// Respond runs mlkem768x25519.Respond with the ML-KEM encapsulation
// randomness m (32 bytes, FIPS 203 ML-KEM.Encaps_internal) and the
// server's X25519 private key x25519Private (32 bytes, unclamped). It
// returns an error if m or x25519Private has the wrong length, or for
// the reasons mlkem768x25519.Respond does.
func Respond(clientInit, m, x25519Private []byte) (serverReply, k []byte, err error) {
	return clienthook.Respond(clientInit, m, x25519Private)
}
