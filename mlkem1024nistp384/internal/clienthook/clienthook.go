// Package clienthook lets the test-only package mlkem1024nistp384test build
// a mlkem1024nistp384.Client from explicit secrets, and respond with explicit
// secrets, without adding such functions to the public API of
// mlkem1024nistp384.
package clienthook

// NewClient is set by package mlkem1024nistp384 when it is initialized. It
// returns a *mlkem1024nistp384.Client (typed as any to avoid an import cycle)
// holding the ML-KEM-1024 key made from the 64-byte seed d || z and the
// P-384 private key private (48-byte scalar in [1, n-1]).
var NewClient func(seed, private []byte) (any, error)

// Respond is set by package mlkem1024nistp384: Respond with the ML-KEM
// randomness m (32 bytes) and the server's P-384 private key.
var Respond func(clientInit, m, private []byte) (serverReply, k []byte, err error)
