package sshkex

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/kexserver"
	"golang.org/x/crypto/ssh"
)

// ---------------------------------------------------------------- version policy

func TestVersionPolicy(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"v0.52.0", true}, {"v0.55.0", true}, {"v0.59.0", true},
		{"v0.51.0", false}, {"v0.39.0", false}, {"v0.60.0", false}, {"v1.0.0", false},
		{"v0.59.1-0.20260101000000-abcdefabcdef", false}, {"v0.59.0-rc.1", false},
		{"v0.059.0", false}, {"0.59.0", false}, {"v0.59", false}, {"", false},
	} {
		err := checkVersion(tc.v, "golang.org/x/crypto "+tc.v)
		if (err == nil) != tc.ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", tc.v, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), supportedXCrypto) {
			t.Errorf("error %q does not name the supported range", err)
		}
	}
	// This test binary itself was built with a verified release (go.mod's,
	// or the matrix's replacement), or TestMain's Register would have failed.
	v, how := xcryptoModule()
	if err := checkVersion(v, how); err != nil {
		t.Fatalf("this binary's x/crypto: %v", err)
	}
}

// ---------------------------------------------------------------- structural checks

func TestStringHeaders(t *testing.T) {
	a := []string{ssh.KeyExchangeCurve25519, ssh.KeyExchangeMLKEM768X25519}
	if !sameStringHeaders(a, append([]string(nil), a...)) {
		t.Error("a copy of the same strings does not match")
	}
	// Equal bytes in another place are not the same string header: the
	// check proves identity with x/crypto's strings, not equality.
	b := []string{strings.Clone(a[0]), a[1]}
	if sameStringHeaders(a, b) {
		t.Error("a clone matched by header")
	}
	if sameStringHeaders(a, a[:1]) || containsHeader(b, a[0]) || !containsHeader(a, a[1]) {
		t.Error("length or containment check wrong")
	}
}

// TestFaultSafe shows that a read of unmapped memory inside a check becomes
// an error, not a crash.
func TestFaultSafe(t *testing.T) {
	b := unmappedBytes(t)
	err := faultSafe("probe", func() error {
		if b[0] == 42 {
			return io.ErrUnexpectedEOF
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "probe: reading x/crypto's internals failed") {
		t.Fatalf("faultSafe = %v", err)
	}
	if err := faultSafe("probe", func() error { return io.EOF }); err != io.EOF {
		t.Fatalf("faultSafe passes errors through: %v", err)
	}
}

func TestRegistryTypeFound(t *testing.T) {
	maps := xcryptoTypes(registryTypeName, reflect.Type.Elem)
	if len(maps) != 1 {
		t.Fatalf("found %d registry types", len(maps))
	}
	if got := maps[0].Elem().NumMethod(); got != ourMirrors.kex.NumMethod() {
		t.Fatalf("x/crypto's kexAlgorithm has %d methods", got)
	}
	if len(xcryptoTypes("map[string]ssh.noSuchType", reflect.Type.Elem)) != 0 {
		t.Fatal("found a type that does not exist")
	}
}

// ---------------------------------------------------------------- semantics

// lyingSigner presents the public key of one signer and signs with another,
// or returns a corrupted signature.
type lyingSigner struct {
	shown   ssh.Signer
	signs   ssh.AlgorithmSigner
	corrupt bool
}

func (s lyingSigner) PublicKey() ssh.PublicKey { return s.shown.PublicKey() }
func (s lyingSigner) Sign(r io.Reader, data []byte) (*ssh.Signature, error) {
	return s.SignWithAlgorithm(r, data, "")
}
func (s lyingSigner) SignWithAlgorithm(r io.Reader, data []byte, algo string) (*ssh.Signature, error) {
	sig, err := s.signs.SignWithAlgorithm(r, data, algo)
	if err != nil {
		return nil, err
	}
	if s.corrupt {
		sig.Blob[len(sig.Blob)/2] ^= 1
	}
	return sig, nil
}

// TestHostKeyVerificationStaysInXCrypto proves that x/crypto itself still
// verifies the server's signature over H after pqkex's Client returns: a
// server that signs H with another key than the one it presents, or sends a
// corrupted signature, is rejected by x/crypto's client with x/crypto's
// error. If a future x/crypto moved that verification into the key
// exchange's Client (which pqkex's Client does not do), this test fails for
// that version in the x/crypto matrix.
func TestHostKeyVerificationStaysInXCrypto(t *testing.T) {
	_, shownKey, _ := ed25519.GenerateKey(rand.Reader)
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	shown := mustSigner(t, shownKey)
	other := mustSigner(t, otherKey).(ssh.AlgorithmSigner)
	hk := hostKey{signer: shown, algos: []string{ssh.KeyAlgoED25519}, check: ssh.FixedHostKey(shown.PublicKey())}
	for _, name := range postQuantum() {
		for _, liar := range []lyingSigner{
			{shown: shown, signs: other},
			{shown: shown, signs: shown.(ssh.AlgorithmSigner), corrupt: true},
		} {
			srv := startServer(t, liar, []string{name})
			_, err := runKex(t, srv.Addr().String(), clientConfig(hk, []string{name}))
			if err == nil || !strings.Contains(err.Error(), "signature") {
				t.Errorf("%s, corrupt=%v: client accepted a bad host signature or failed otherwise: %v", name, liar.corrupt, err)
			}
		}
		// The honest server is accepted, so the failures above are the
		// signature's.
		srv := startServer(t, shown, []string{name})
		if _, err := runKex(t, srv.Addr().String(), clientConfig(hk, []string{name})); err != nil {
			t.Errorf("%s: honest server rejected: %v", name, err)
		}
	}
}

// ---------------------------------------------------------------- misuse: Register during handshakes

// TestRegisterDuringHandshakes runs, in a fresh process, x/crypto handshakes
// on several goroutines while Register runs. The documentation forbids
// this, but it must not crash the process: the registry is replaced, never
// written in place. (Under the race detector the subprocess reports the
// race it is told to commit, so the test runs without it.)
func TestRegisterDuringHandshakes(t *testing.T) {
	if raceEnabled {
		t.Skip("the subprocess races on purpose; run without -race")
	}
	out, err := runPeerProcess(t, "register-during-handshakes")
	if err != nil || !strings.Contains(out, "handshakes ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// registerDuringHandshakes is that subprocess's body.
func registerDuringHandshakes() (string, error) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, nil))
	go srv.Serve()
	defer srv.Close()
	hk := hostKey{check: ssh.FixedHostKey(signer.PublicKey()), algos: []string{ssh.KeyAlgoED25519}}
	var (
		wg    sync.WaitGroup
		stop  atomic.Bool
		count atomic.Int64
		first atomic.Value
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := runKex(nil, l.Addr().String(), clientConfig(hk, []string{classicalKex()})); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
				count.Add(1)
			}
		}()
	}
	for count.Load() < 8 && first.Load() == nil {
		time.Sleep(time.Millisecond)
	}
	regErr := Register()
	for n := count.Load(); count.Load() < n+32 && first.Load() == nil; {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return "", err
	}
	if regErr != nil {
		return "", regErr
	}
	if _, err := runKex(nil, l.Addr().String(), clientConfig(hk, []string{postQuantum()[1]})); err != nil {
		return "", err
	}
	return "handshakes ok", nil
}
