package core

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// withSystemReader puts r in crypto/rand.Reader while f runs (the tests
// that call it are not parallel; iterations' parallel tests wait for them).
func withSystemReader(r io.Reader, f func()) {
	old := rand.Reader
	rand.Reader = r
	defer func() { rand.Reader = old }()
	f()
}

// TestNilReadsCryptoRand: a nil reader means crypto/rand's Reader as the
// variable holds it when called: with a stream in its place, the keys,
// batch keys and ciphertexts drawn with nil are those drawn from the same
// stream given as the reader. A Reader that fails makes each return its
// error.
func TestNilReadsCryptoRand(t *testing.T) {
	stream := randomStream(t, 2*(2*randomBytes+smallBytes)+randomBytes)
	pk := NewPublicKey(new([PublicKeySize]byte))
	type drawn struct {
		sk    *PrivateKey
		batch []*PrivateKey
		ct    [CiphertextSize]byte
	}
	draw := func(r func() io.Reader) (d drawn, err error) {
		if d.sk, err = GenerateKey(r()); err != nil {
			return d, err
		}
		if d.batch, err = GenerateKeys(r(), 2); err != nil {
			return d, err
		}
		var k [SharedKeySize]byte
		return d, pk.Encapsulate(r(), &d.ct, &k)
	}
	want, err := draw(func() io.Reader { return bytes.NewReader(stream) })
	if err != nil {
		t.Fatal(err)
	}
	var got drawn
	withSystemReader(bytes.NewReader(nil), func() {
		got, err = draw(func() io.Reader {
			rand.Reader = bytes.NewReader(stream)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if *got.sk.Bytes() != *want.sk.Bytes() || *got.batch[1].Bytes() != *want.batch[1].Bytes() || got.ct != want.ct {
		t.Error("nil did not read crypto/rand.Reader")
	}
	fail := errors.New("no randomness (test)")
	withSystemReader(io.MultiReader(bytes.NewReader(stream[:100]), iotest.ErrReader(fail)), func() {
		_, err = GenerateKey(nil)
	})
	if !errors.Is(err, fail) {
		t.Errorf("a failing crypto/rand.Reader: GenerateKey(nil) returned %v", err)
	}
}

// panickingReader panics when read: a caller's reader may.
type panickingReader struct{}

func (panickingReader) Read([]byte) (int, error) { panic("reader panicked (test)") }

var errReaderPanicked = errors.New("the reader panicked")

// TestListBuffersCleared: every buffer a list was read into (listPool's)
// is all zero once it is back in the pool, after GenerateKey,
// GenerateKeys and Encapsulate from crypto/rand (nil) and from a reader,
// and after a read that failed, or panicked, partway through a list,
// whose first bytes were already in the buffer.
func TestListBuffersCleared(t *testing.T) {
	pk := NewPublicKey(new([PublicKeySize]byte))
	partial := randomStream(t, randomBytes/2)
	for _, tc := range []struct {
		name string
		f    func() error
		fail bool
	}{
		{"GenerateKey(nil)", func() error { _, err := GenerateKey(nil); return err }, false},
		{"GenerateKeys(nil, 2)", func() error { _, err := GenerateKeys(nil, 2); return err }, false},
		{"Encapsulate(nil)", func() error {
			var ct [CiphertextSize]byte
			var k [SharedKeySize]byte
			return pk.Encapsulate(nil, &ct, &k)
		}, false},
		{"GenerateKey(a reader)", func() error {
			_, err := GenerateKey(bytes.NewReader(randomStream(t, 2*randomBytes+smallBytes)))
			return err
		}, false},
		{"GenerateKey(a reader failing in its first list)", func() error {
			_, err := GenerateKey(io.MultiReader(bytes.NewReader(partial), iotest.ErrReader(io.ErrClosedPipe)))
			return err
		}, true},
		{"GenerateKey(a reader panicking in its first list)", func() (err error) {
			defer func() {
				if recover() != nil {
					err = errReaderPanicked
				}
			}()
			_, err = GenerateKey(io.MultiReader(bytes.NewReader(partial), panickingReader{}))
			return err
		}, true},
	} {
		var err error
		made := watchPools(func() { err = tc.f() }, &listPool)
		if (err != nil) != tc.fail {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(made[0]) == 0 {
			t.Fatalf("%s: no list buffer taken from the pool", tc.name)
		}
		for i, x := range made[0] {
			if *x.(*[randomBytes]byte) != [randomBytes]byte{} {
				t.Errorf("%s: list buffer %d back in the pool not cleared", tc.name, i)
			}
		}
	}
}
