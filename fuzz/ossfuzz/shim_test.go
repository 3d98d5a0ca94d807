package ossfuzz

import (
	"bytes"
	"fmt"
	"testing"

	shim "github.com/AdamKorcz/go-118-fuzz-build/testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// TestSeedEncoding gives the testing shim of go-118-fuzz-build, which
// calls a target in the libFuzzer binaries that OSS-Fuzz and
// ClusterFuzzLite build, the inputs that fuzzcorpus writes as their seed
// corpora: the shim must call the target with the seed's own values, and
// fuzzcorpus.FromLibFuzzer must decode what the shim decodes.
func TestSeedEncoding(t *testing.T) {
	seeds := [][][]byte{
		{[]byte("x")},
		{bytes.Repeat([]byte{0xa5}, 1216)}, // a C_INIT
		{bytes.Repeat([]byte{1}, 1763), bytes.Repeat([]byte{2}, 1039)}, // an sntrup761 key and ciphertext
		{{}, []byte("after an empty value")},
		{bytes.Repeat([]byte{3}, 30), []byte("z")}, // 30 is what the shim reads a zero length as
		{{0, 0, 0, 0}, {0, 0, 0, 1}, {0xff}},
	}
	for _, seed := range seeds {
		in, ok := fuzzcorpus.LibFuzzerInput(seed...)
		if !ok {
			t.Fatalf("LibFuzzerInput(%q) refused", seed)
		}
		var got [][]byte
		f := &shim.F{Data: in, T: shim.NewT()}
		switch len(seed) {
		case 1:
			f.Fuzz(func(t *shim.T, a []byte) { got = [][]byte{a} })
		case 2:
			f.Fuzz(func(t *shim.T, a, b []byte) { got = [][]byte{a, b} })
		case 3:
			f.Fuzz(func(t *shim.T, a, b, c []byte) { got = [][]byte{a, b, c} })
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", seed) {
			t.Errorf("the shim called the target with %.60q, want %.60q", got, seed)
		}
		if back, ok := fuzzcorpus.FromLibFuzzer(in, len(seed)); !ok || fmt.Sprintf("%q", back) != fmt.Sprintf("%q", got) {
			t.Errorf("FromLibFuzzer decodes %.60q (%v), the shim %.60q", back, ok, got)
		}
	}
	// Inputs the shim gives no target: FromLibFuzzer must refuse them too.
	for _, in := range [][]byte{{}, {0, 0, 0}, {0, 0, 0, 5}} {
		called := false
		f := &shim.F{Data: in, T: shim.NewT()}
		f.Fuzz(func(t *shim.T, a []byte) { called = true })
		if _, ok := fuzzcorpus.FromLibFuzzer(in, 1); called || ok {
			t.Errorf("input %x: the shim called the target: %v, FromLibFuzzer accepted it: %v", in, called, ok)
		}
	}
}
