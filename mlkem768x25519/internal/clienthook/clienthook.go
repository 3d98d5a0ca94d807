// Package clienthook lets the test-only package mlkem768x25519test build a
// mlkem768x25519.Client from explicit secrets without adding such a
// constructor to the public API of mlkem768x25519.
package clienthook

// NewClient is set by package mlkem768x25519 when it is initialized. It
// returns a *mlkem768x25519.Client (typed as any to avoid an import
// cycle) holding the ML-KEM-768 key kemKey (64-byte seed d || z or
// 2400-byte expanded decapsulation key) and the X25519 private key
// x25519Private (32 bytes).
var NewClient func(kemKey, x25519Private []byte) (any, error)

// Respond is set by package mlkem768x25519: Respond with the ML-KEM
// randomness m (32 bytes) and the server's X25519 private key (32 bytes).
var Respond func(clientInit, m, x25519Private []byte) (serverReply, k []byte, err error)
