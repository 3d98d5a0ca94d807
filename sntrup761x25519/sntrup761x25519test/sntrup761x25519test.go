// Package sntrup761x25519test builds the two sides of an
// sntrup761x25519-sha512 key exchange from explicit secrets. It must only
// be used for known-answer tests: a key exchange made from fixed or
// predictable secrets offers no security.
package sntrup761x25519test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/sntrup761x25519"
	"github.com/pqkex/pqkex/sntrup761x25519/internal/clienthook"
)

// NewClient returns a Client holding the given ephemeral keys: kemKey is a
// 1763-byte sntrup761 decapsulation key (the layout of the reference code
// and of sntrup761.DecapsulationKey.Bytes) and x25519Private the 32-byte
// X25519 private key, unclamped. It returns an error only if a length is
// wrong.
func NewClient(kemKey, x25519Private []byte) (*sntrup761x25519.Client, error) {
	c, err := clienthook.NewClient(kemKey, x25519Private)
	if err != nil {
		return nil, err
	}
	return c.(*sntrup761x25519.Client), nil
}

// Respond runs sntrup761x25519.Respond with the sntrup761 encapsulation
// randomness r (3044 bytes: 761 little-endian uint32, the reference
// code's Short_random input) and the server's X25519 private key
// x25519Private (32 bytes, unclamped). It returns an error if r or
// x25519Private has the wrong length, or for the reasons
// sntrup761x25519.Respond does.
func Respond(clientInit, r, x25519Private []byte) (serverReply, k []byte, err error) {
	if len(r) != 3044 || len(x25519Private) != 32 {
		return nil, nil, fmt.Errorf("sntrup761x25519test: r has %d bytes and the X25519 private key %d, want 3044 and 32", len(r), len(x25519Private))
	}
	return sntrup761x25519.Respond(bytes.NewReader(append(append([]byte{}, r...), x25519Private...)), clientInit)
}
