package hybridtest

import (
	"bytes"
	"io"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// ReaderOf returns a reader of the parts in order: the known randomness of
// a method's public constructors (see each method's package
// documentation), which fixes their keys for known-answer style tests.
func ReaderOf(parts ...[]byte) io.Reader { return bytes.NewReader(bytes.Join(parts, nil)) }

// SNTRUPClient is a sntrup761x25519 client with the encoded sntrup761 key
// dk (parsed afresh each time: the Client overwrites its key when done)
// and the X25519 private key priv.
func SNTRUPClient(dk, priv []byte) (*sntrup761x25519.Client, error) {
	k, err := sntrup761.NewDecapsulationKey(dk)
	if err != nil {
		return nil, err
	}
	return sntrup761x25519.NewClientWithKey(k, bytes.NewReader(priv))
}
