// Package mlkem768x25519 implements the SSH key exchange method
// mlkem768x25519-sha256 of RFC 10042: ML-KEM-768 (FIPS 203, as in
// [crypto/mlkem]) combined with X25519 (RFC 7748). It is byte-compatible
// with OpenSSH 9.9 and later and with [golang.org/x/crypto/ssh].
//
//	client: c, err := NewClient(rand); C_INIT := c.Init()  // 1216 bytes
//	server: S_REPLY, K, err := Respond(rand, C_INIT)        // 1120 bytes, K 36
//	client: K, err := c.Finish(S_REPLY)
//
// Peer input is refused only for a wrong length, an encapsulation key that
// fails FIPS 203's modulus check and an all-zero X25519 result ([Respond],
// [Client.Finish]). What the four method packages share (the messages'
// layout, K's encoding and secrecy, validation, implicit rejection,
// errors, the reader, FIPS 140-3 mode) is stated once in
// [github.com/pqkex/pqkex/sshkex], which plugs the method into
// x/crypto/ssh.
//
// X25519 is not approved in FIPS 140-3, so sshkex does not register this
// method in FIPS 140-3 mode. Used directly, it runs there on crypto/mlkem:
// with the default reader its key generation and Encapsulate are the
// module's own, under GODEBUG=fips140=on and only alike; under
// fips140=only, [Respond] given a reader of its own fails, since
// encapsulation with a given m goes through crypto/mlkem/mlkemtest.
package mlkem768x25519

//go:generate go run ../internal/methodgen
