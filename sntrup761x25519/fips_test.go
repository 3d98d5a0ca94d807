package sntrup761x25519_test

import (
	"bytes"
	"crypto/fips140"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// fipsChildEnv marks the child processes of TestFIPSModes.
const fipsChildEnv = "PQKEX_TEST_FIPS_CHILD"

// TestFIPSModes checks what the package documentation says the method
// does in FIPS 140-3 mode, in child processes under GODEBUG=fips140=on
// and =only: the whole exchange runs unchanged (with crypto/rand, with a
// caller's reader, with a pooled key), since neither sntrup761 nor
// circl's X25519 is a service of the Go Cryptographic Module that the
// mode could restrict, and the reader is still read.
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
	pool := sntrup761.NewKeyPool(2)
	defer pool.Close()
	dk, err := pool.Get()
	if err != nil {
		t.Fatal(err)
	}
	s := kat.Stream("fips", 3044+3044+191+32)
	fromStream, err := sntrup761x25519.NewClient(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	again, err := sntrup761x25519.NewClient(bytes.NewReader(s))
	if err != nil || !bytes.Equal(fromStream.Init(), again.Init()) {
		t.Fatalf("the reader is not what the client's keys come from (%v)", err)
	}
	clients := []func() (*sntrup761x25519.Client, error){
		func() (*sntrup761x25519.Client, error) { return sntrup761x25519.NewClient(nil) },
		func() (*sntrup761x25519.Client, error) { return sntrup761x25519.NewClientWithKey(dk, nil) },
		func() (*sntrup761x25519.Client, error) { return fromStream, nil },
	}
	for i, newClient := range clients {
		c, err := newClient()
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		reply, kS, err := sntrup761x25519.Respond(nil, c.Init())
		if err != nil {
			t.Fatalf("client %d: Respond: %v", i, err)
		}
		if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("client %d: Finish: %v", i, err)
		}
	}
	t.Logf("fips140=%s checked: NewClient, NewClientWithKey, Respond and Finish run", mode)
}
