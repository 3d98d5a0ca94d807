package sshkex

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"reflect"
	"strings"
	"testing"

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
		if got := isVerified(tc.v); got != tc.ok {
			t.Errorf("isVerified(%q) = %v, want %v", tc.v, got, tc.ok)
		}
	}
	for _, tc := range []struct {
		v     string
		below bool
	}{
		{"v0.51.0", true}, {"v0.39.0", true}, {"v0.51.1-0.20260101000000-abcdefabcdef", true}, {"v0.51.0+incompatible", true},
		{"v0.52.0", false}, {"v0.52.1-0.20260101000000-abcdefabcdef", false}, {"v0.60.0", false}, {"v1.0.0", false}, {"", false}, {"devel", false},
	} {
		if got := belowFloor(tc.v); got != tc.below {
			t.Errorf("belowFloor(%q) = %v, want %v", tc.v, got, tc.below)
		}
	}
	// This test binary itself was built with a verified release (go.mod's,
	// or the matrix's replacement), and Register (in TestMain) says so.
	v, how := xcryptoModule()
	if !isVerified(v) {
		t.Fatalf("this binary's x/crypto (%s) is not in the verified range", how)
	}
	reg, ok := Registered()
	if !ok || !reg.Verified || reg.XCrypto != how {
		t.Fatalf("Registered() = %+v, %v; want Verified with XCrypto %q", reg, ok, how)
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
