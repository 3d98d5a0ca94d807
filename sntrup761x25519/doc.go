// Package sntrup761x25519 implements the SSH key exchange method
// sntrup761x25519-sha512 (RFC 9941), also known by its original name
// sntrup761x25519-sha512@openssh.com, which combines the Streamlined NTRU
// Prime KEM sntrup761 with X25519 (RFC 7748). It is byte-compatible with
// OpenSSH 8.5 and later (the default method of OpenSSH 9.0 to 9.9) and
// with TinySSH.
//
// OpenSSH 8.5 to 9.8 know the method only as AliasName; OpenSSH 9.9 and
// later and RFC 9941 also call it Name. Both select exactly the same bytes.
// Offer both, Name first, or peers running OpenSSH 9.0 to 9.8 fall back to
// a classical key exchange.
//
// What the four method packages share is described once in docs/usage.md,
// section "The method packages", at the root of the module: in short, each
// message is the KEM part and then the sender's classical public key; K
// is string(HASH(K_PQ || K_CL)) in its SSH string encoding (not an mpint)
// and must be kept secret; peer input is rejected only in the cases listed
// below, and a modified ciphertext only makes the two sides' K differ
// (implicit rejection); errors never contain key material; a nil reader
// means crypto/rand's. Package [github.com/pqkex/pqkex/sshkex] plugs the
// method into x/crypto/ssh.
//
// # The exchange
//
//	client                                      server
//	c, _ := NewClient(rand)
//	C_INIT = c.Init()          ──── 1190 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1071 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT is the client's sntrup761 public key (1158 bytes) and X25519
// public key (32 bytes); S_REPLY is the sntrup761 ciphertext (1039 bytes)
// and the server's X25519 public key (32 bytes). K is
// string(SHA-512(K_PQ || K_CL)), 68 bytes (RFC 9941 section 3), with K_CL
// the 32-byte X25519 output.
//
// # Validation
//
// Peer input is rejected in exactly these cases:
//
//   - C_INIT is not exactly 1190 bytes or S_REPLY not exactly 1071 bytes
//     (RFC 9941 section 3);
//   - the X25519 result is all zero, that is, the peer's X25519 public key
//     is a point of small order (RFC 7748 section 6.1, RFC 8731 section 3).
//
// Nothing else is checked, as RFC 9941 section 3 says: the sntrup761
// decoders are total ("NTRU Prime: round 3", section 3.1), so every public
// key and ciphertext of the right length is valid input, exactly as in
// OpenSSH and the reference code; decapsulation uses implicit rejection
// (section 2.3.8).
//
// # Secrets and randomness
//
// Finish and Respond overwrite the secrets this package holds on every
// path (success, an error in the peer's message, a local error): the
// X25519 private keys, K_PQ, K_CL and the client's sntrup761 decapsulation
// key, including one given to NewClientWithKey. A Client abandoned before
// Finish is cleared by calling Finish (with any reply, even nil).
//
// Given a reader, the client reads sntrup761 key generation's 3044 bytes
// for g (again while g is not invertible), 3044 bytes for f and 191 bytes
// for rho, and then its 32-byte X25519 private key; the server reads 3044
// bytes for the sntrup761 encapsulation's r and then its 32-byte X25519
// private key. Each of these is one Read call (OpenSSH before 10.3 reads
// the same bytes in 4-byte pieces). With nil or crypto/rand's Reader
// (x/crypto's default Config.Rand), sntrup761 and the X25519 key read the
// same bytes from crypto/rand's Reader themselves, with no generator of
// pqkex's on top; a reader that fails, crypto/rand's included, makes
// NewClient and Respond return its error.
//
// sntrup761 key generation dominates the cost of the exchange. A client
// that makes many connections can take its keys from a sntrup761.KeyPool,
// which generates them in batches much more cheaply, and pass each to
// NewClientWithKey, which then reads only the X25519 private key.
//
// # FIPS 140-3 mode
//
// Neither sntrup761 nor X25519 is an approved algorithm, so this method is
// not approved in FIPS 140-3 mode, and sshkex does not register it there.
// Used directly, it runs unchanged under GODEBUG=fips140=on and =only,
// reading the reader as above: sntrup761 is this module's own code and
// X25519 circl's, so neither is a service of the Go Cryptographic Module
// that the mode could restrict (only SHA-512 is, and it is approved).
// Running in that mode does not make the key exchange approved.
package sntrup761x25519
