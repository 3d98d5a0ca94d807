package sntrup761

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestFailingSystemReader: with crypto/rand.Reader replaced by a reader
// that fails (crypto/rand's own never does), GenerateKey and GenerateKeys
// return its error, wrapped, and Encapsulate, which has no error to
// return, panics with it, as documented.
func TestFailingSystemReader(t *testing.T) {
	dk, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ek := dk.EncapsulationKey()
	// No pool of another test may read the replacement.
	waitFor(t, "earlier tests' pools to stop refilling", func() bool { return countStacks(refillFrame) == 0 })
	fail := errors.New("no randomness (test)")
	old := rand.Reader
	rand.Reader = iotest.ErrReader(fail)
	defer func() { rand.Reader = old }()
	if _, err := GenerateKey(); !errors.Is(err, fail) {
		t.Errorf("GenerateKey: %v, want the reader's error", err)
	}
	if _, err := GenerateKeys(2); !errors.Is(err, fail) {
		t.Errorf("GenerateKeys: %v, want the reader's error", err)
	}
	func() {
		defer func() {
			p := recover()
			if msg, _ := p.(string); !strings.Contains(msg, "sntrup761: reading randomness: "+fail.Error()) {
				t.Errorf("Encapsulate: panic %v, want one with the reader's error", p)
			}
		}()
		ek.Encapsulate()
	}()
}
