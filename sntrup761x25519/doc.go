// Package sntrup761x25519 implements the SSH key exchange method
// sntrup761x25519-sha512 of RFC 9941, also known by its original name
// [AliasName]: Streamlined NTRU Prime sntrup761
// ([github.com/pqkex/pqkex/sntrup761]) combined with X25519 (RFC 7748).
// It is byte-compatible with OpenSSH 8.5 and later (the default method
// of OpenSSH 9.0 to 9.9) and with TinySSH. OpenSSH 8.5 to 9.8 know only
// AliasName: offer both, [Name] first.
//
//	client: c, err := NewClient(rand); C_INIT := c.Init()  // 1190 bytes
//	server: S_REPLY, K, err := Respond(rand, C_INIT)        // 1071 bytes, K 68
//	client: K, err := c.Finish(S_REPLY)
//
// Peer input is refused only for a wrong length and an all-zero X25519
// result: sntrup761's decoders are total, so every key and ciphertext of
// the right length is valid (RFC 9941 section 3). What the four method
// packages share is stated once in [github.com/pqkex/pqkex/sshkex].
//
// Key generation dominates the cost: a client making many connections can
// take its keys from a [github.com/pqkex/pqkex/sntrup761.KeyPool] and pass
// each to [NewClientWithKey]. Neither sntrup761 nor X25519 is approved in
// FIPS 140-3: sshkex does not register the method in that mode, and used
// directly it runs there unchanged (sntrup761 is this module's code,
// X25519 circl's), which does not make it approved.
package sntrup761x25519

//go:generate go run ../internal/methodgen
