// Package clienthook lets the test-only package mlkem768nistp256test build
// a mlkem768nistp256.Client from explicit secrets, and respond with explicit
// secrets, without adding such functions to the public API of
// mlkem768nistp256.
package clienthook

// NewClient is set by package mlkem768nistp256 when it is initialized. It
// returns a *mlkem768nistp256.Client (typed as any to avoid an import cycle)
// holding the ML-KEM-768 key made from the 64-byte seed d || z and the
// P-256 private key private (32-byte scalar in [1, n-1]).
var NewClient func(seed, private []byte) (any, error)

// Respond is set by package mlkem768nistp256: Respond with the ML-KEM
// randomness m (32 bytes) and the server's P-256 private key.
var Respond func(clientInit, m, private []byte) (serverReply, k []byte, err error)
