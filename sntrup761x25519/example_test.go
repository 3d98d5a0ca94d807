package sntrup761x25519_test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// Example runs a client with a key from a sntrup761.KeyPool, which
// generates keys in batches at a fraction of the cost of one key each
// (NewClient generates its own), against a server.
func Example() {
	pool := sntrup761.NewKeyPool(32)
	defer pool.Close()
	dk, err := pool.Get()
	if err != nil {
		panic(err)
	}
	client, err := sntrup761x25519.NewClientWithKey(dk, nil) // the Client now owns dk
	if err != nil {
		panic(err)
	}
	sReply, serverK, err := sntrup761x25519.Respond(nil, client.Init()) // server
	if err != nil {
		panic(err) // a key exchange failure: disconnect
	}
	clientK, err := client.Finish(sReply) // S_REPLY from SSH_MSG_KEX_ECDH_REPLY
	fmt.Println(len(sReply), len(clientK), bytes.Equal(clientK, serverK), err)
	// Output: 1071 68 true <nil>
}
