package hybrid

import (
	"crypto/rand"
	"fmt"
	"io"
	"reflect"
)

// Rand reads the caller's randomness, or crypto/rand's if nil, and
// remembers the first read error so that an error surfacing through a KEM
// (which may not wrap it) can still be matched with errors.Is.
type Rand struct {
	r      io.Reader
	err    error
	method string // for error messages
}

// NewRand returns a Rand reading from r (crypto/rand if r is nil); method
// prefixes its errors.
func NewRand(r io.Reader, method string) *Rand {
	if r == nil {
		r = rand.Reader
	}
	return &Rand{r: r, method: method}
}

// IsDefault reports whether r is the default randomness source: nil, or
// crypto/rand's Reader as the variable holds it now (what
// golang.org/x/crypto/ssh passes as Config.Rand unless the user set
// another). Given it, the methods let their implementations draw their own
// secrets (Method.NewClient and Respond decide this, once per call). It
// never panics: comparing two interface values of the same uncomparable
// dynamic type would, and an application may have replaced
// crypto/rand.Reader with a value of such a type (a struct holding a slice
// or a func); such a reader, passed in, is not recognised and is read as
// the caller's, which it is.
func IsDefault(r io.Reader) bool {
	return r == nil || reflect.ValueOf(r).Comparable() && r == rand.Reader
}

// readOwn fills b from crypto/rand's Reader, for an implementation that
// draws its own secrets (a nil reader): the variable's value now, read
// through io.ReadFull, so that a replacement that fails gives an error,
// where crypto/rand.Read would end the process.
func readOwn(b []byte) error {
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		return fmt.Errorf("reading crypto/rand: %w", err)
	}
	return nil
}

// Read implements io.Reader.
func (r *Rand) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// Failed reports whether a read from the source failed.
func (r *Rand) Failed() bool { return r.err != nil }

// Fill fills b completely.
func (r *Rand) Fill(b []byte) error {
	if _, err := io.ReadFull(r, b); err != nil {
		return r.Wrap(err)
	}
	return nil
}

// Wrap returns the error to report after a failed read: the first error
// the source returned, with io.EOF turned into io.ErrUnexpectedEOF.
func (r *Rand) Wrap(err error) error {
	if r.err != nil {
		err = r.err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: reading randomness: %w", r.method, err)
}
