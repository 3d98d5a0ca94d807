// Package mlkem1024nistp384 implements the SSH key exchange method
// mlkem1024nistp384-sha384 of RFC 10042: ML-KEM-1024 (FIPS 203, as in
// [crypto/mlkem]) combined with ECDH on NIST P-384 (FIPS 186-5, SP
// 800-56A, as in [crypto/ecdh]; SEC1 points as in RFC 5656). It reproduces
// PuTTY 0.85's key exchange byte for byte on its vectors; PuTTY 0.83 and
// later, libssh 0.12 and PKIX-SSH offer it (OpenSSH does not).
//
//	client: c, err := NewClient(rand); C_INIT := c.Init()  // 1665 bytes
//	server: S_REPLY, K, err := Respond(rand, C_INIT)        // 1665 bytes, K 52
//	client: K, err := c.Finish(S_REPLY)
//
// Peer input is refused only for a wrong length, an encapsulation key that
// fails FIPS 203's modulus check, and a P-384 public key that is not an
// uncompressed point on the curve with coordinates below p. PuTTY 0.85 is
// more lenient (it accepts compressed points, among others) and always
// sends uncompressed points. What the four method packages share is stated
// once in [github.com/pqkex/pqkex/sshkex].
//
// Every algorithm of the method is approved in FIPS 140-3 (pqkex itself is
// not a validated module): in FIPS 140-3 mode [NewClient] and [Respond]
// ignore the reader and use only the Go Cryptographic Module's approved
// services (crypto/mlkem, crypto/ecdh, crypto/sha512).
package mlkem1024nistp384

//go:generate go run ../internal/methodgen
