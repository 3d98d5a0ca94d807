package sntrup761x25519_test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// Example runs both sides of an sntrup761x25519-sha512 key exchange and
// derives the exchange hash and a session key from K.
func Example() {
	client, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		panic(err)
	}
	cInit := client.Init() // sent in SSH_MSG_KEX_ECDH_INIT

	sReply, serverK, err := sntrup761x25519.Respond(nil, cInit) // server
	if err != nil {
		panic(err) // a key exchange failure: disconnect
	}

	clientK, err := client.Finish(sReply) // S_REPLY from SSH_MSG_KEX_ECDH_REPLY
	if err != nil {
		panic(err)
	}

	vc, vs := []byte("SSH-2.0-client"), []byte("SSH-2.0-server")
	ic, is, ks := []byte{20}, []byte{20}, []byte("host key blob")
	H := kexhash.ExchangeHash(sntrup761x25519.Hash, vc, vs, ic, is, ks, cInit, sReply, clientK)
	key := kexhash.DeriveKey(sntrup761x25519.Hash, clientK, H, H, 'C', 32)

	fmt.Println(len(cInit), len(sReply), len(clientK), bytes.Equal(clientK, serverK), len(H), len(key))
	// Output: 1190 1071 68 true 64 32
}
