// Package mlkem1024nistp384test builds the two sides of a mlkem1024nistp384-sha384 key
// exchange from explicit secrets. It must only be used for known-answer
// tests: a key exchange made from fixed or predictable secrets offers no
// security.
package mlkem1024nistp384test

import (
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem1024nistp384/internal/clienthook"
)

// NewClient returns a Client holding the given ephemeral keys. seed is
// the 64-byte ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal);
// private is the 48-byte big-endian P-384 private scalar, which must
// lie in [1, n-1]. It returns an error if a length is wrong or the scalar
// is out of range.
func NewClient(seed, private []byte) (*mlkem1024nistp384.Client, error) {
	c, err := clienthook.NewClient(seed, private)
	if err != nil {
		return nil, err
	}
	return c.(*mlkem1024nistp384.Client), nil
}

// Respond runs mlkem1024nistp384.Respond with the ML-KEM encapsulation
// randomness m (32 bytes, FIPS 203 ML-KEM.Encaps_internal) and the
// server's P-384 private scalar private (48 bytes, in [1, n-1]). It
// returns an error if m or private is malformed, or for the reasons
// mlkem1024nistp384.Respond does.
func Respond(clientInit, m, private []byte) (serverReply, k []byte, err error) {
	return clienthook.Respond(clientInit, m, private)
}
