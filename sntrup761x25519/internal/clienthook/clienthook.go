// Package clienthook lets the test-only package sntrup761x25519test build
// a sntrup761x25519.Client from explicit secrets without adding such a
// constructor to the public API of sntrup761x25519.
package clienthook

// NewClient is set by package sntrup761x25519 when it is initialized. It
// returns a *sntrup761x25519.Client (typed as any to avoid an import
// cycle) holding the 1763-byte sntrup761 decapsulation key kemKey and the
// 32-byte X25519 private key x25519Private.
var NewClient func(kemKey, x25519Private []byte) (any, error)
