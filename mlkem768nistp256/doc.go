// Package mlkem768nistp256 implements the SSH key exchange method
// mlkem768nistp256-sha256 of RFC 10042: ML-KEM-768 (FIPS 203, as in
// [crypto/mlkem]) combined with ECDH on NIST P-256 (FIPS 186-5, SP
// 800-56A, as in [crypto/ecdh]; SEC1 points as in RFC 5656). It
// reproduces OpenSSH 10.5's and PuTTY 0.85's key exchange byte for byte
// on their vectors; OpenSSH 10.5 and later (not by default), PuTTY 0.83
// and later, libssh 0.12 and PKIX-SSH offer it.
//
//	client: c, err := NewClient(rand); C_INIT := c.Init()  // 1249 bytes
//	server: S_REPLY, K, err := Respond(rand, C_INIT)        // 1153 bytes, K 36
//	client: K, err := c.Finish(S_REPLY)
//
// Peer input is refused only for a wrong length, an encapsulation key that
// fails FIPS 203's modulus check, and a P-256 public key that is not an
// uncompressed point on the curve with coordinates below p (compressed,
// hybrid and infinity encodings included, as OpenSSH refuses them). What
// the four method packages share is stated once in
// [github.com/pqkex/pqkex/sshkex].
//
// Every algorithm of the method is approved in FIPS 140-3 (pqkex itself is
// not a validated module): in FIPS 140-3 mode [NewClient] and [Respond]
// ignore the reader and use only the Go Cryptographic Module's approved
// services (crypto/mlkem, crypto/ecdh, crypto/sha256).
package mlkem768nistp256

//go:generate go run ../internal/methodgen
