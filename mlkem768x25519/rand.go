package mlkem768x25519

import (
	"crypto/rand"
	"fmt"
	"io"
)

// readRandom fills b from r, or from crypto/rand if r is nil.
func readRandom(r io.Reader, b []byte) error {
	if r == nil {
		rand.Read(b) // never fails (Go 1.24 and later)
		return nil
	}
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("mlkem768x25519: reading randomness: %w", err)
	}
	return nil
}
