// Package mlkem768x25519 implements the SSH key exchange method
// mlkem768x25519-sha256 (RFC 10042, published from
// draft-ietf-sshm-mlkem-hybrid-kex-10; the section numbers below are the
// draft's), which combines ML-KEM-768 (FIPS 203) with X25519 (RFC 7748).
// It is byte-compatible with OpenSSH 9.9 and later and with
// golang.org/x/crypto/ssh.
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
//	C_INIT = c.Init()          ──── 1216 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1120 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT is the client's ML-KEM-768 encapsulation key (1184 bytes) and
// X25519 public key (32 bytes); S_REPLY is the ML-KEM-768 ciphertext (1088
// bytes) and the server's X25519 public key (32 bytes). K is
// string(SHA-256(K_PQ || K_CL)), 36 bytes (draft sections 2.4 and 2.5), with K_CL
// the 32-byte X25519 output.
//
// # Validation
//
// Peer input is rejected in exactly these cases:
//
//   - C_INIT is not exactly 1216 bytes or S_REPLY not exactly 1120 bytes
//     (draft section 2.1);
//   - the client's ML-KEM-768 encapsulation key fails the modulus check of
//     FIPS 203 section 7.2 (a 12-bit coefficient not below q = 3329);
//   - the X25519 result is all zero, that is, the peer's X25519 public key
//     is a point of small order (RFC 7748 section 6.1, RFC 8731 section 3).
//
// ML-KEM decapsulation uses implicit rejection (FIPS 203 section 6.3).
//
// # Randomness
//
// Given a reader, the client reads the 64-byte ML-KEM seed d || z (FIPS
// 203 ML-KEM.KeyGen_internal) and then its 32-byte X25519 private key; the
// server reads the 32-byte ML-KEM encapsulation randomness m
// (ML-KEM.Encaps_internal) and then its 32-byte X25519 private key. With
// nil or crypto/rand's Reader (x/crypto's default Config.Rand) the
// implementations draw the same secrets from crypto/rand themselves (in
// FIPS 140-3 mode, the ML-KEM ones from the Go Cryptographic Module).
//
// # FIPS 140-3 mode
//
// X25519 is not an approved algorithm, so this method is not approved in
// FIPS 140-3 mode, and sshkex does not register it there (x/crypto keeps
// its own implementation in its FIPS-mode defaults). Used directly, its
// ML-KEM-768 is crypto/mlkem instead of circl's:
//
//   - with nil or crypto/rand's Reader, the client's key is
//     mlkem.GenerateKey768's and the server encapsulates with the
//     module's randomized Encapsulate, under GODEBUG=fips140=on and
//     fips140=only alike (the X25519 keys come from crypto/rand);
//   - given another reader, the exchange reads it as above under
//     fips140=on; under fips140=only the client runs (NewClient and
//     Finish: crypto/mlkem's key from the seed d || z is a service the
//     mode allows), but Respond fails, with an error naming
//     crypto/mlkem/mlkemtest: encapsulation with a given m goes through
//     mlkemtest, which the mode refuses.
package mlkem768x25519
