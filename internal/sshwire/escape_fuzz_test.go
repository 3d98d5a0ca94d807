package sshwire

import (
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// FuzzQuote: Quote and Printable on any text at any budget keep their
// promises (checkEscaped). This file holds only the fuzz target, which
// passes its t to shared code only as an interface, so that
// go-118-fuzz-build can build it as a libFuzzer binary.
func FuzzQuote(f *testing.F) {
	fuzzcorpus.Add(f, quoteSeed("SSH-2.0-evil\x1b[2J\r\n", 64))
	fuzzcorpus.Add(f, quoteSeed("\xff\u2028\U0001F600", 41))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzQuote(t, in) })
}
