// Package mlkem768nistp256 implements the SSH key exchange method
// mlkem768nistp256-sha256 (RFC 10042, published from
// draft-ietf-sshm-mlkem-hybrid-kex-10; the section numbers below are the
// draft's), which combines ML-KEM-768 (FIPS 203) with ECDH on NIST P-256
// (FIPS 186-5, SP 800-56A; SEC1 encodings as in RFC 5656). It reproduces
// OpenSSH 10.5's and PuTTY 0.85's key exchange code byte for byte on their
// vectors (vectors/testdata). The method is offered by OpenSSH 10.5 and
// later (not in its default lists), PuTTY 0.83 and later, libssh 0.12 and
// PKIX-SSH. Every algorithm of it is approved in FIPS 140-3; pqkex itself
// is not a validated module.
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
//	C_INIT = c.Init()          ──── 1249 bytes ───▶
//	                                             S_REPLY, K, err := Respond(rand, C_INIT)
//	                           ◀─── 1153 bytes ────
//	K, err := c.Finish(S_REPLY)
//
// C_INIT is the client's ML-KEM-768 encapsulation key (1184 bytes) and
// ephemeral P-256 public key as an uncompressed SEC1 point 04 || X || Y (65
// bytes); S_REPLY is the ML-KEM-768 ciphertext (1088 bytes) and the
// server's P-256 public key, uncompressed (65 bytes) (draft sections 2.1
// and 2.3). K is string(SHA-256(K_PQ || K_CL)), 36 bytes, with K_CL the
// ECDH x-coordinate as a fixed-length 32-byte string (draft section 2.4).
//
// # Validation
//
// Peer input is rejected in exactly these cases:
//
//   - C_INIT is not exactly 1249 bytes or S_REPLY not exactly 1153
//     bytes (draft section 2.1 requires the exact length);
//   - the client's ML-KEM-768 encapsulation key fails the modulus check of
//     FIPS 203 section 7.2 (a 12-bit coefficient not below q = 3329);
//   - the peer's P-256 public key is not an uncompressed point (first
//     byte not 04: compressed 02/03, hybrid 06/07 and the infinity
//     encoding 00 are refused, as OpenSSH refuses them), has a coordinate
//     not below p, or is not on the curve (SEC1 section 3.2.2.1 full
//     public key validation; the identity has no uncompressed encoding).
//
// ML-KEM decapsulation uses implicit rejection (FIPS 203 section 6.3).
// PuTTY 0.85 is more lenient than this package: it also accepts
// compressed points, coordinates padded to a longer length and non-reduced
// coordinates; it always sends uncompressed points itself.
//
// # Randomness
//
// Outside FIPS 140-3 mode, given a reader, NewClient and Respond read what
// OpenSSH (with OpenSSL) reads, in the same order: the client reads the
// 64-byte ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal) and then
// 32-byte big-endian P-256 private key candidates until one lies in
// [1, n-1] (a candidate of 0 or not below the group order n is discarded;
// 64 rejections in a row are an error); the server reads the 32-byte
// ML-KEM encapsulation randomness m (ML-KEM.Encaps_internal) and then its
// P-256 candidates the same way. PuTTY draws in a different order and samples
// its scalars differently; that makes no difference on the wire. Given nil or crypto/rand's Reader
// (x/crypto's default Config.Rand), the implementations draw these
// secrets themselves: circl's ML-KEM reads its seed and m from
// crypto/rand, crypto/ecdh's GenerateKey makes the P-256 keys.
//
// In FIPS 140-3 mode (GODEBUG=fips140=on or only) NewClient and Respond
// ignore the reader, as crypto/ecdh ignores its own since Go 1.26, and use
// only the Go Cryptographic Module's approved services:
// mlkem.GenerateKey768 (with its pairwise consistency test), the randomized
// Encapsulate, crypto/ecdh's P-256 GenerateKey and crypto/sha256.
package mlkem768nistp256
