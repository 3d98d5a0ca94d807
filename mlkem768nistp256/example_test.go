package mlkem768nistp256_test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// Example runs both sides of an mlkem768nistp256-sha256 key exchange: in
// SSH, C_INIT travels in SSH_MSG_KEX_ECDH_INIT (SSH_MSG_KEX_HYBRID_INIT)
// and S_REPLY in SSH_MSG_KEX_ECDH_REPLY. An error from Respond or Finish is
// a key exchange failure: disconnect. The mlkem768x25519 example goes on
// to the exchange hash and the keys.
func Example() {
	var sReply, serverK, clientK []byte
	client, err := mlkem768nistp256.NewClient(nil) // fails only if crypto/rand does
	if err == nil {
		sReply, serverK, err = mlkem768nistp256.Respond(nil, client.Init()) // server
	}
	if err == nil {
		clientK, err = client.Finish(sReply) // client
	}
	fmt.Println(err, bytes.Equal(clientK, serverK), len(client.Init()), len(sReply), len(clientK))
	// Output: <nil> true 1249 1153 36
}
