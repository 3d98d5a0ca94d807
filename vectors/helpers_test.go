package vectors

import (
	"crypto/sha3"
	"flag"
	"io"
	"os"
	"testing"
)

// long enables the million-iteration known-answer tests (RFC 7748 section
// 5.2 iterated X25519, the 1 000 000-test ML-KEM accumulated hashes),
// which take minutes.
var long = flag.Bool("long", false, "also run the 1 000 000-iteration vectors")

// readJSON decodes testdata/name into v.
func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ParseJSON(f, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// shakeStream is the randomness of the SSH vector files' edge cases:
// SHAKE256 of the stream label, read sequentially.
func shakeStream(label string) io.Reader {
	s := sha3.NewSHAKE256()
	s.Write([]byte(label))
	return s
}

// allCalls returns the bytes of every recorded random call, in order.
func allCalls(calls []RandomCall) [][]byte {
	out := make([][]byte, len(calls))
	for i, c := range calls {
		if len(c.Hex) != c.Len {
			panic("vectors: random call length differs from its bytes")
		}
		out[i] = c.Hex
	}
	return out
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
