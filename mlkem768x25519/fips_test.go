package mlkem768x25519_test

import (
	"bytes"
	"crypto/fips140"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/mlkem768x25519"
)

// fipsChildEnv marks the child processes of TestFIPSModes.
const fipsChildEnv = "PQKEX_TEST_FIPS_CHILD"

// TestFIPSModes checks what the package documentation says the method
// does in FIPS 140-3 mode, in child processes under GODEBUG=fips140=on
// and =only: the client's keys still come from the reader; with on, the
// whole exchange runs; with only, the client runs (NewClient and Finish,
// crypto/mlkem's key from the seed, against
// a reply made with crypto/mlkem's randomized Encapsulate and circl's
// X25519), and Respond fails with an error naming
// crypto/mlkem/mlkemtest, with or without a reader.
func TestFIPSModes(t *testing.T) {
	if mode := os.Getenv(fipsChildEnv); mode != "" {
		fipsChild(t, mode)
		return
	}
	for _, mode := range []string{"on", "only"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFIPSModes$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, fipsChildEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestFIPSModes") || !strings.Contains(string(out), "fips140="+mode+" checked") {
			t.Errorf("fips140=%s child: %v\n%s", mode, err, out)
		}
		t.Logf("fips140=%s:\n%s", mode, out)
	}
}

func fipsChild(t *testing.T, mode string) {
	if !fips140.Enabled() || fips140.Enforced() != (mode == "only") {
		t.Fatalf("GODEBUG=fips140=%s: Enabled %v, Enforced %v", mode, fips140.Enabled(), fips140.Enforced())
	}
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	seed := bytes.Repeat([]byte{7}, 64+32)
	c1, err1 := mlkem768x25519.NewClient(bytes.NewReader(seed))
	c2, err2 := mlkem768x25519.NewClient(bytes.NewReader(seed))
	if err1 != nil || err2 != nil || !bytes.Equal(c1.Init(), c2.Init()) || bytes.Equal(c1.Init(), c.Init()) {
		t.Fatalf("the reader is not what the client's keys come from (%v, %v)", err1, err2)
	}
	reply, kS, err := mlkem768x25519.Respond(nil, c.Init())
	_, _, err2 = mlkem768x25519.Respond(bytes.NewReader(make([]byte, 64)), c.Init())
	if mode == "on" {
		if err != nil || err2 != nil {
			t.Fatalf("Respond: %v, %v", err, err2)
		}
		if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("Finish: %v", err)
		}
		t.Logf("fips140=%s checked: NewClient, Respond and Finish run", mode)
		return
	}
	for _, err := range []error{err, err2} {
		if err == nil || !strings.Contains(err.Error(), "crypto/mlkem/mlkemtest") {
			t.Fatalf("Respond under fips140=only: %v, want an error naming crypto/mlkem/mlkemtest", err)
		}
	}
	// The server's side without pqkex.
	init := c.Init()
	ek, err := mlkem.NewEncapsulationKey768(init[:mlkem.EncapsulationKeySize768])
	if err != nil {
		t.Fatal(err)
	}
	kPQ, ct := ek.Encapsulate()
	var priv, pub, peer, kCL x25519.Key
	rand.Read(priv[:])
	x25519.KeyGen(&pub, &priv)
	copy(peer[:], init[mlkem.EncapsulationKeySize768:])
	x25519.Shared(&kCL, &priv, &peer)
	h := sha256.Sum256(append(kPQ, kCL[:]...))
	want := append(binary.BigEndian.AppendUint32(nil, sha256.Size), h[:]...)
	if kC, err := c.Finish(append(ct, pub[:]...)); err != nil || !bytes.Equal(kC, want) {
		t.Fatalf("Finish under fips140=only: %v, or K differs", err)
	}
	t.Logf("fips140=%s checked: NewClient and Finish run, Respond fails: %v", mode, err2)
}
