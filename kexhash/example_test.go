package kexhash_test

import (
	"crypto"
	"crypto/sha256"
	"fmt"

	"github.com/pqkex/pqkex/kexhash"
)

// The two encodings of RFC 4251 section 5, with its own examples.
func ExampleMpint() {
	fmt.Printf("% x\n", kexhash.Mpint([]byte{0x80}))       // a set top bit gets a zero byte
	fmt.Printf("% x\n", kexhash.Mpint([]byte{0x00, 0x7f})) // leading zeros are dropped
	fmt.Printf("% x\n", kexhash.String([]byte("testing")))
	// Output:
	// 00 00 00 02 00 80
	// 00 00 00 01 7f
	// 00 00 00 07 74 65 73 74 69 6e 67
}

// From a hybrid key exchange's two secrets to session keys, as
// mlkem768x25519-sha256 does it (RFC 10042): K is the string encoding of
// SHA-256(K_PQ || K_CL), H hashes the transcript, and the first H is the
// session identifier.
func ExampleExchangeHash() {
	var kPQ, kCL [32]byte // secret: the KEM's and X25519's shared secrets
	sum := sha256.Sum256(append(kPQ[:], kCL[:]...))
	k := kexhash.String(sum[:]) // a string, not an mpint, for the hybrids

	// The transcript: both version lines, both KEXINIT payloads, the
	// server's host key blob, and the two key exchange messages.
	vc, vs := []byte("SSH-2.0-client"), []byte("SSH-2.0-server")
	ic, is := []byte("client KEXINIT payload"), []byte("server KEXINIT payload")
	ks, qc, qs := []byte("host key blob"), []byte("C_INIT"), []byte("S_REPLY")
	h := kexhash.ExchangeHash(crypto.SHA256, vc, vs, ic, is, ks, qc, qs, k)

	sessionID := h // for the first key exchange of a connection
	ivClientToServer := kexhash.DeriveKey(crypto.SHA256, k, h, sessionID, 'A', 12)
	keyClientToServer := kexhash.DeriveKey(crypto.SHA256, k, h, sessionID, 'C', 32)
	keyServerToClient := kexhash.DeriveKey(crypto.SHA256, k, h, sessionID, 'D', 32)
	fmt.Println(len(h), len(ivClientToServer), len(keyClientToServer), len(keyServerToClient))
	// Output: 32 12 32 32
}
