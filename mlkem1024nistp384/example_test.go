package mlkem1024nistp384_test

import (
	"fmt"

	"github.com/pqkex/pqkex/mlkem1024nistp384"
)

// Example shows the server's side of an mlkem1024nistp384-sha384 key
// exchange: a malformed C_INIT is an error (disconnect), a good one gives
// S_REPLY and K. In FIPS 140-3 mode (GODEBUG=fips140=on) the same calls
// use only the Go Cryptographic Module's approved services.
func Example() {
	_, _, err := mlkem1024nistp384.Respond(nil, []byte("not a C_INIT"))
	fmt.Println(err)
	client, err := mlkem1024nistp384.NewClient(nil)
	if err != nil {
		panic(err)
	}
	sReply, k, err := mlkem1024nistp384.Respond(nil, client.Init())
	fmt.Println(len(sReply), len(k), err)
	// Output:
	// mlkem1024nistp384: client's C_INIT has 12 bytes, want 1665
	// 1665 52 <nil>
}
