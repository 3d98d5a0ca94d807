package mlkem768nistp256_test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// Example runs both sides of a mlkem768nistp256 key exchange and derives the
// exchange hash and a session key from K. In SSH, C_INIT travels in
// SSH_MSG_KEX_ECDH_INIT (SSH_MSG_KEX_HYBRID_INIT) and S_REPLY in
// SSH_MSG_KEX_ECDH_REPLY.
func Example() {
	// Client: ephemeral keys, then send C_INIT.
	client, err := mlkem768nistp256.NewClient(nil)
	if err != nil {
		panic(err)
	}
	cInit := client.Init()

	// Server: C_INIT in, S_REPLY out, and K.
	sReply, serverK, err := mlkem768nistp256.Respond(nil, cInit)
	if err != nil {
		panic(err) // a key exchange failure: disconnect
	}

	// Client: S_REPLY in, K out.
	clientK, err := client.Finish(sReply)
	if err != nil {
		panic(err)
	}

	// Both: H over the transcript (K is already SSH-encoded), then keys.
	vc, vs := []byte("SSH-2.0-client"), []byte("SSH-2.0-server")
	ic, is, ks := []byte{20}, []byte{20}, []byte("host key blob")
	H := kexhash.ExchangeHash(mlkem768nistp256.Hash, vc, vs, ic, is, ks, cInit, sReply, clientK)
	key := kexhash.DeriveKey(mlkem768nistp256.Hash, clientK, H, H, 'C', 32)

	fmt.Println(len(cInit), len(sReply), len(clientK), bytes.Equal(clientK, serverK), len(H), len(key))
	// Output: 1249 1153 36 true 32 32
}
