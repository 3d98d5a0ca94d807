package hybrid

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
)

// TestSNTRUPSource: the engine's Rand over crypto/rand (given or nil)
// reaches sntrup761 as crypto/rand's Reader itself, which sntrup761
// recognises to expand its lists with AES-256-CTR; a Rand over any other
// reader, and any other reader, reach it unchanged.
func TestSNTRUPSource(t *testing.T) {
	other := NewRand(bytes.NewReader(nil), "test")
	plain := bytes.NewReader(nil)
	for _, tc := range []struct {
		name    string
		in, out io.Reader
	}{
		{"Rand over nil", NewRand(nil, "test"), rand.Reader},
		{"Rand over crypto/rand", NewRand(rand.Reader, "test"), rand.Reader},
		{"Rand over another reader", other, other},
		{"another reader", plain, plain},
	} {
		if got := sntrupSource(tc.in); got != tc.out {
			t.Errorf("%s: %T %p, want %T %p", tc.name, got, got, tc.out, tc.out)
		}
	}
}
