package hybrid

import (
	"bytes"
	"crypto/fips140"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
)

// uncomparableReader reads through read. Its type cannot be compared with
// == (it holds a func): an application may put such a value in
// crypto/rand.Reader, and comparing two interface values holding it
// panics.
type uncomparableReader struct{ read func([]byte) (int, error) }

func (u uncomparableReader) Read(p []byte) (int, error) { return u.read(p) }

// replaceSystemReader puts r in crypto/rand.Reader until the test ends.
// The tests that call it are not parallel.
func replaceSystemReader(t *testing.T, r io.Reader) {
	old := rand.Reader
	rand.Reader = r
	t.Cleanup(func() { rand.Reader = old })
}

// TestIsDefault: nil and crypto/rand's Reader are the default source and
// every other reader is not; with crypto/rand.Reader replaced by a value of
// an uncomparable type, IsDefault neither panics (== would) nor takes that
// value for the default when it is passed in (it is then read as the
// caller's reader, which it is), and nil is still the default.
func TestIsDefault(t *testing.T) {
	orig := rand.Reader
	for _, tc := range []struct {
		name string
		r    io.Reader
		want bool
	}{
		{"nil", nil, true},
		{"crypto/rand.Reader", rand.Reader, true},
		{"a bytes.Reader", bytes.NewReader(nil), false},
		{"a Rand over crypto/rand", NewRand(nil, "test"), false},
		{"an uncomparable reader", uncomparableReader{orig.Read}, false},
	} {
		if got := IsDefault(tc.r); got != tc.want {
			t.Errorf("IsDefault(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	u := uncomparableReader{orig.Read}
	replaceSystemReader(t, u)
	for _, tc := range []struct {
		name string
		r    io.Reader
		want bool
	}{
		{"nil", nil, true},
		{"crypto/rand.Reader (uncomparable)", rand.Reader, false},
		{"the original crypto/rand.Reader", orig, false},
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("IsDefault(%s) panicked: %v", tc.name, p)
				}
			}()
			if got := IsDefault(tc.r); got != tc.want {
				t.Errorf("IsDefault(%s) = %v, want %v", tc.name, got, tc.want)
			}
		}()
	}
}

// mlkemMethods are the ML-KEM methods, whose readers these tests check
// here; package sntrup761x25519's rand_test.go checks sntrup761x25519's.
var mlkemMethods = []*Method{&MLKEM768X25519, &MLKEM768NISTP256, &MLKEM1024NISTP384}

// TestUncomparableSystemReader: with crypto/rand.Reader replaced by a
// reader of an uncomparable type, exchanges with nil and with
// crypto/rand.Reader itself run: the methods' own generation for nil, the
// reader read as a caller's for the Reader, which IsDefault cannot
// recognise. (So under GODEBUG=fips140=only mlkem768x25519's Respond
// refuses the latter, as it refuses every caller's reader: encapsulation
// with a given m is crypto/mlkem/mlkemtest's.)
func TestUncomparableSystemReader(t *testing.T) {
	replaceSystemReader(t, uncomparableReader{rand.Reader.Read})
	for _, m := range mlkemMethods {
		for _, r := range []io.Reader{nil, rand.Reader} {
			var c Client
			if err := m.NewClient(&c, r); err != nil {
				t.Fatalf("%s: NewClient: %v", m.Prefix, err)
			}
			reply, kS, err := m.Respond(r, m.Init(&c))
			if r != nil && !m.Approved && fips140.Enforced() {
				if err == nil || !strings.Contains(err.Error(), "crypto/mlkem/mlkemtest") {
					t.Fatalf("%s: Respond under fips140=only with a caller's reader: %v, want an error naming crypto/mlkem/mlkemtest", m.Prefix, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: Respond: %v", m.Prefix, err)
			}
			if kC, err := m.Finish(&c, reply); err != nil || !bytes.Equal(kC, kS) {
				t.Fatalf("%s: Finish: %v, or K differs", m.Prefix, err)
			}
		}
	}
}

var errNoRandomness = errors.New("no randomness (test)")

type failingReader struct{}

func (*failingReader) Read([]byte) (int, error) { return 0, errNoRandomness }

// TestFailingSystemReader: with crypto/rand.Reader replaced by a reader
// that fails, NewClient and Respond with the default source (nil, or
// crypto/rand.Reader itself) return its error, where the methods read
// crypto/rand; an approved method in FIPS 140-3 mode draws from the Go
// Cryptographic Module's own generator, which the replacement does not
// reach, and succeeds.
func TestFailingSystemReader(t *testing.T) {
	inits := make([][]byte, len(mlkemMethods))
	for i, m := range mlkemMethods {
		var c Client
		if err := m.NewClient(&c, nil); err != nil {
			t.Fatal(err)
		}
		inits[i] = m.Init(&c)
	}
	replaceSystemReader(t, new(failingReader))
	for i, m := range mlkemMethods {
		wantErr := !m.SelfDraws()
		for _, r := range []io.Reader{nil, rand.Reader} {
			var c Client
			err := m.NewClient(&c, r)
			if (err != nil) != wantErr || err != nil && !errors.Is(err, errNoRandomness) {
				t.Errorf("%s: NewClient(%T): %v, want an error: %v", m.Prefix, r, err, wantErr)
			}
			_, _, err = m.Respond(r, inits[i])
			if (err != nil) != wantErr || err != nil && !errors.Is(err, errNoRandomness) {
				t.Errorf("%s: Respond(%T): %v, want an error: %v", m.Prefix, r, err, wantErr)
			}
		}
	}
}
