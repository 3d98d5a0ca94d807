package sntrup761test_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// TestReaderErrorsWrapped: a reader's error reaches the caller wrapped,
// so that errors.Is finds it, whether the reader fails at once or
// partway through a list, and a nil reader is refused.
func TestReaderErrorsWrapped(t *testing.T) {
	fail := errors.New("no randomness (test)")
	dk, err := sntrup761.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ek := dk.EncapsulationKey()
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"failing at once", func() io.Reader { return iotest.ErrReader(fail) }},
		{"failing partway", func() io.Reader {
			return io.MultiReader(bytes.NewReader(make([]byte, 1000)), iotest.ErrReader(fail))
		}},
	} {
		if _, err := sntrup761test.GenerateKey(tc.r()); !errors.Is(err, fail) {
			t.Errorf("GenerateKey, %s: %v, want the reader's error", tc.name, err)
		}
		if _, _, err := sntrup761test.Encapsulate(ek, tc.r()); !errors.Is(err, fail) {
			t.Errorf("Encapsulate, %s: %v, want the reader's error", tc.name, err)
		}
	}
	if _, err := sntrup761test.GenerateKey(nil); err == nil {
		t.Error("GenerateKey(nil) accepted")
	}
	if _, _, err := sntrup761test.Encapsulate(ek, nil); err == nil {
		t.Error("Encapsulate(ek, nil) accepted")
	}
}
