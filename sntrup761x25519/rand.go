package sntrup761x25519

import (
	"crypto/rand"
	"fmt"
	"io"
)

// randReader reads the caller's randomness (crypto/rand if nil) and
// remembers the first error, so that errors surfacing through sntrup761's
// key generation and encapsulation can still be matched with errors.Is.
type randReader struct {
	r   io.Reader
	err error
}

func newRandReader(r io.Reader) *randReader {
	if r == nil {
		r = rand.Reader
	}
	return &randReader{r: r}
}

func (r *randReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// read fills b.
func (r *randReader) read(b []byte) error {
	if _, err := io.ReadFull(r, b); err != nil {
		return r.wrap(err)
	}
	return nil
}

// wrap returns the error to report after a failed read.
func (r *randReader) wrap(err error) error {
	if r.err != nil {
		err = r.err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("sntrup761x25519: reading randomness: %w", err)
}
