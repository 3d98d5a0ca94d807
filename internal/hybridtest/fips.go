package hybridtest

import (
	"bytes"
	"crypto/fips140"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/mlkemhybrid"
)

// FIPSChildEnv marks the child process of CheckFIPSPath.
const FIPSChildEnv = "PQKEX_FIPS_CHILD"

// EmulatorEnv names the emulator (qemu-aarch64, qemu-s390x) that runs the
// test binary, set by scripts/emulated-tests.sh.
const EmulatorEnv = "PQKEX_EMULATOR"

// CheckFIPSPath proves that in FIPS 140-3 mode the method ex uses only the
// Go Cryptographic Module: no call enters circl (mlkemhybrid.CirclCalls
// stays put) through key generation, Respond, Finish, the derandomized
// paths (explicit readers) and the test-only constructors, and the
// default ML-KEM backend is crypto/mlkem. If the test binary does not run
// in FIPS mode, it re-runs test (this test's name) in a child with
// GODEBUG=fips140=on and requires the child to pass and to have really
// checked; it also shows that the counter counts outside FIPS mode, so
// the proof can fail.
func CheckFIPSPath(t *testing.T, test string, ex Exchange, p mlkemhybrid.Params) {
	t.Helper()
	if !fips140.Enabled() {
		if os.Getenv(FIPSChildEnv) != "" {
			t.Fatal("child not in FIPS 140-3 mode")
		}
		before := mlkemhybrid.CirclCalls()
		exchange(t, ex)
		if mlkemhybrid.CirclCalls() == before {
			t.Fatal("outside FIPS mode no circl call was counted: the counter proves nothing")
		}
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"-test.run=^" + test + "$", "-test.v", "-test.count=1"}
		cmd := exec.Command(exe, args...)
		if emu := os.Getenv(EmulatorEnv); emu != "" {
			// Under qemu-user (scripts/emulated-tests.sh) the kernel cannot
			// run the test binary itself: the emulator runs the child too.
			cmd = exec.Command(emu, append([]string{exe}, args...)...)
		}
		cmd.Env = append(os.Environ(), "GODEBUG=fips140=on", FIPSChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "FIPS path checked:") {
			t.Fatalf("FIPS child: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "FIPS path checked:") {
				t.Log(strings.TrimSpace(l))
			}
		}
		return
	}
	if got := mlkemhybrid.Default(p).Impl(); got != "std" {
		t.Fatalf("default ML-KEM backend in FIPS mode is %s", got)
	}
	before := mlkemhybrid.CirclCalls()
	n := exchange(t, ex)
	if d := mlkemhybrid.CirclCalls() - before; d != 0 {
		t.Fatalf("%d calls into circl in FIPS 140-3 mode", d)
	}
	t.Logf("FIPS path checked: %d exchanges, 0 circl calls", n)
}

// exchange runs ex with crypto/rand, with explicit streams and with the
// test-only constructors, and checks the keys agree.
func exchange(t *testing.T, ex Exchange) int {
	t.Helper()
	n := 0
	for _, seeded := range []bool{false, true} {
		var cr, sr *bytes.Reader
		if seeded {
			cr = bytes.NewReader(Stream("fips|client", 64+ex.Curve.PrivateKeySize()))
			sr = bytes.NewReader(Stream("fips|server", 32+ex.Curve.PrivateKeySize()))
		}
		c, err := newClient(ex, cr)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := respond(ex, sr, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		kC, err := c.Finish(reply)
		if err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("exchange (seeded %v): %v", seeded, err)
		}
		n++
	}
	seed, priv := Stream("fips|ctor", 64), Stream("fips|ctor|ec", ex.Curve.PrivateKeySize())
	c, err := ex.NewClientWithKeys(seed, priv)
	if err != nil {
		t.Fatal(err)
	}
	reply, kS, err := ex.RespondWithKeys(c.Init(), seed[:32], priv)
	if err != nil {
		t.Fatal(err)
	}
	if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		t.Fatalf("test-only constructors: %v", err)
	}
	return n + 1
}

// newClient and respond pass a nil *bytes.Reader as a nil io.Reader.
func newClient(ex Exchange, r *bytes.Reader) (Client, error) {
	if r == nil {
		return ex.NewClient(nil)
	}
	return ex.NewClient(r)
}

func respond(ex Exchange, r *bytes.Reader, init []byte) ([]byte, []byte, error) {
	if r == nil {
		return ex.Respond(nil, init)
	}
	return ex.Respond(r, init)
}
