// Package mlkem768nistp256test builds the two sides of a mlkem768nistp256-sha256 key
// exchange from explicit secrets. It must only be used for known-answer
// tests: a key exchange made from fixed or predictable secrets offers no
// security.
package mlkem768nistp256test

import (
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768nistp256/internal/clienthook"
)

// NewClient returns a Client holding the given ephemeral keys. seed is
// the 64-byte ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal);
// private is the 32-byte big-endian P-256 private scalar, which must
// lie in [1, n-1]. It returns an error if a length is wrong or the scalar
// is out of range.
func NewClient(seed, private []byte) (*mlkem768nistp256.Client, error) {
	c, err := clienthook.NewClient(seed, private)
	if err != nil {
		return nil, err
	}
	return c.(*mlkem768nistp256.Client), nil
}

// Respond runs mlkem768nistp256.Respond with the ML-KEM encapsulation
// randomness m (32 bytes, FIPS 203 ML-KEM.Encaps_internal) and the
// server's P-256 private scalar private (32 bytes, in [1, n-1]). It
// returns an error if m or private is malformed, or for the reasons
// mlkem768nistp256.Respond does.
func Respond(clientInit, m, private []byte) (serverReply, k []byte, err error) {
	return clienthook.Respond(clientInit, m, private)
}
