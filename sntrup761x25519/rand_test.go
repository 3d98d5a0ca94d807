package sntrup761x25519_test

import (
	"bytes"
	"crypto/fips140"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/cryptotest"

	"github.com/pqkex/pqkex/internal/testkit/selfexec"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// replaceSystemReader puts r in crypto/rand.Reader until the test ends.
// The tests that call it are not parallel.
func replaceSystemReader(t *testing.T, r io.Reader) {
	old := rand.Reader
	rand.Reader = r
	t.Cleanup(func() { rand.Reader = old })
}

// uncomparableReader reads through read; its type cannot be compared
// with == (it holds a func).
type uncomparableReader struct{ read func([]byte) (int, error) }

func (u uncomparableReader) Read(p []byte) (int, error) { return u.read(p) }

// TestUncomparableSystemReader: an application that replaced
// crypto/rand.Reader with a value of an uncomparable type can run the
// exchange with nil or with crypto/rand.Reader itself (comparing such a
// reader with == panics).
func TestUncomparableSystemReader(t *testing.T) {
	replaceSystemReader(t, uncomparableReader{rand.Reader.Read})
	for _, r := range []io.Reader{nil, rand.Reader} {
		c, err := sntrup761x25519.NewClient(r)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := sntrup761x25519.Respond(r, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("Finish: %v, or K differs", err)
		}
	}
}

var errNoRandomness = errors.New("no randomness (test)")

type failing struct{}

func (*failing) Read([]byte) (int, error) { return 0, errNoRandomness }

// TestFailingReader: a reader that fails makes NewClient, NewClientWithKey
// and Respond return its error (errors.Is), never crash the process:
// passed by the caller, and as crypto/rand.Reader with nil or
// crypto/rand.Reader passed (the default source, from which sntrup761 and
// X25519 draw their own randomness), and so do package sntrup761's
// GenerateKey and GenerateKeys.
func TestFailingReader(t *testing.T) {
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	dks, err := sntrup761.GenerateKeys(2)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, errNoRandomness) {
			t.Errorf("%s: %v, want the reader's error", what, err)
		}
	}
	run := func(label string, r io.Reader, dk *sntrup761.DecapsulationKey) {
		_, err := sntrup761x25519.NewClient(r)
		check(label+": NewClient", err)
		_, _, err = sntrup761x25519.Respond(r, init)
		check(label+": Respond", err)
		_, err = sntrup761x25519.NewClientWithKey(dk, r)
		check(label+": NewClientWithKey", err)
	}
	run("caller's reader", new(failing), dks[0])
	replaceSystemReader(t, new(failing))
	run("crypto/rand.Reader failing, nil", nil, dks[1])
	if _, err := sntrup761.GenerateKey(); !errors.Is(err, errNoRandomness) {
		t.Errorf("sntrup761.GenerateKey: %v, want the reader's error", err)
	}
	if _, err := sntrup761.GenerateKeys(2); !errors.Is(err, errNoRandomness) {
		t.Errorf("sntrup761.GenerateKeys: %v, want the reader's error", err)
	}
	dk, err := sntrup761.NewDecapsulationKey(make([]byte, sntrup761.DecapsulationKeySize))
	if err != nil {
		t.Fatal(err)
	}
	run("crypto/rand.Reader failing, passed", rand.Reader, dk)
}

// determinismEnv marks the children of TestDeterministicKeys.
const determinismEnv = "PQKEX_TEST_DETERMINISM"

var digestLine = regexp.MustCompile(`keys digest ([0-9a-f]{64})`)

// TestDeterministicKeys: under testing/cryptotest.SetGlobalRandom one
// seed gives the same sntrup761 keys, batch keys and ciphertexts and the
// same sntrup761x25519 messages, whether the arithmetic runs on AVX2 or
// not, in FIPS 140-3 mode or not: every list is crypto/rand's bytes as
// they are, with nothing of pqkex's expanding them. Children of this test
// binary under each GODEBUG setting print a digest of all of them, which
// must be the parent's.
func TestDeterministicKeys(t *testing.T) {
	sum := deterministicKeys(t)
	if os.Getenv(determinismEnv) != "" {
		t.Logf("keys digest %x", sum)
		return
	}
	for _, godebug := range []string{"", "cpu.avx2=off", "fips140=on", "fips140=only"} {
		cmd, err := selfexec.Command("-test.run=^TestDeterministicKeys$", "-test.count=1", "-test.v")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, determinismEnv+"=1")
		out, err := cmd.CombinedOutput()
		if strings.HasPrefix(godebug, "fips140=") && strings.Contains(string(out), "incompatible with the purego build tag") {
			t.Logf("GODEBUG=%s: FIPS 140-3 mode cannot start in a -tags purego binary", godebug)
			continue
		}
		m := digestLine.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
		if got := string(m[1]); got != hex.EncodeToString(sum[:]) {
			t.Errorf("GODEBUG=%s: keys digest %s, want %x (this process's)", godebug, got, sum)
			continue
		}
		t.Logf("GODEBUG=%q: keys digest %x, as here", godebug, sum)
	}
}

// deterministicKeys draws keys, ciphertexts and messages with the default
// source under SetGlobalRandom and returns their digest.
func deterministicKeys(t *testing.T) [32]byte {
	cryptotest.SetGlobalRandom(t, 49)
	h := sha256.New()
	dk, err := sntrup761.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	h.Write(dk.Bytes())
	_, ct := dk.EncapsulationKey().Encapsulate()
	h.Write(ct)
	dks, err := sntrup761.GenerateKeys(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, dk := range dks {
		h.Write(dk.Bytes())
	}
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(c.Init())
	reply, k, err := sntrup761x25519.Respond(rand.Reader, c.Init())
	if err != nil {
		t.Fatal(err)
	}
	h.Write(reply)
	h.Write(k)
	if fips140.Enabled() {
		t.Log("in FIPS 140-3 mode")
	}
	return [32]byte(h.Sum(nil))
}
