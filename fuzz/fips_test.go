package fuzz

import (
	"bytes"
	"crypto/fips140"
	"crypto/rand"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/internal/testkit/selfexec"
)

// FIPSChildEnv marks the child processes of CheckFIPSPath.
const FIPSChildEnv = "PQKEX_FIPS_CHILD"

// CheckFIPSPath proves that in FIPS 140-3 mode the NIST-curve hybrid ex
// (the public API; m is its engine) uses only the Go Cryptographic
// Module's approved services: NewClient and Respond with a nil reader,
// crypto/rand's Reader (what x/crypto/ssh passes) and a caller's reader
// (which must be left unread) neither enter circl (hybrid.CirclCalls)
// nor any derandomized service (hybrid.DerandomizedCalls: ML-KEM
// keys from seeds, mlkemtest's encapsulation, EC keys imported from
// scalars), and the default ML-KEM backend is crypto/mlkem.
//
// Under GODEBUG=fips140=only it also shows that the mode is a real test:
// the known-answer path (m.RespondFrom, which Respond took for crypto/rand's
// Reader before) is refused by Go.
//
// If the test binary is not in FIPS mode, it shows that both counters
// count here (so the proof can fail), then re-runs t's test in children
// with GODEBUG=fips140=on and fips140=only and requires each to pass and
// to have really checked.
func CheckFIPSPath(t *testing.T, ex Exchange, m *hybrid.Method) {
	t.Helper()
	if !fips140.Enabled() {
		if os.Getenv(FIPSChildEnv) != "" {
			t.Fatal("child not in FIPS 140-3 mode")
		}
		circl, derand := hybrid.CirclCalls(), hybrid.DerandomizedCalls()
		exchange(t, ex, ex, bytes.NewReader(kat.Stream("fips|client", 64+ex.Method.Curve.PrivateKeySize())),
			bytes.NewReader(kat.Stream("fips|server", 32+ex.Method.Curve.PrivateKeySize())))
		if hybrid.CirclCalls() == circl || hybrid.DerandomizedCalls() == derand {
			t.Fatal("outside FIPS mode a counter did not count: the proof would prove nothing")
		}
		fipsChildren(t, "FIPS path checked:")
		return
	}
	if !ex.IgnoresReader {
		t.Fatal("the public API does not say it ignores readers in FIPS mode")
	}
	if got := hybrid.Default(m.Params).Impl(); got != "std" {
		t.Fatalf("default ML-KEM backend in FIPS mode is %s", got)
	}
	circl, derand := hybrid.CirclCalls(), hybrid.DerandomizedCalls()
	n := 0
	for _, r := range []func() io.Reader{
		func() io.Reader { return nil },
		func() io.Reader { return rand.Reader },
	} {
		exchange(t, ex, ex, r(), r())
		n++
	}
	cs, ss := kat.Stream("fips|client", 100), kat.Stream("fips|server", 100)
	cr, sr := bytes.NewReader(cs), bytes.NewReader(ss)
	exchange(t, ex, ex, cr, sr)
	if cr.Len() != len(cs) || sr.Len() != len(ss) {
		t.Fatal("a caller's reader was read in FIPS mode")
	}
	n++
	if d := hybrid.CirclCalls() - circl; d != 0 {
		t.Fatalf("%d calls into circl in FIPS 140-3 mode", d)
	}
	if d := hybrid.DerandomizedCalls() - derand; d != 0 {
		t.Fatalf("%d calls into derandomized services in FIPS 140-3 mode", d)
	}
	// The counter counts in this mode too: the explicit-key constructor
	// imports its keys.
	if _, err := ex.NewClientWithKeys(kat.Stream("fips|ctor", 64), kat.Stream("fips|ctor|ec", ex.Method.Curve.PrivateKeySize())); err != nil {
		t.Fatal(err)
	}
	if hybrid.DerandomizedCalls() == derand {
		t.Fatal("the derandomized counter does not count in FIPS mode")
	}
	if fips140.Enforced() {
		// What Respond did with crypto/rand's Reader before: the
		// known-answer path. GODEBUG=fips140=only must refuse it, or this
		// mode would not show that the approved path is taken.
		c, err := ex.NewClient(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = m.RespondFrom(rand.Reader, c.Init())
		if err == nil || !strings.Contains(err.Error(), "not allowed in FIPS 140-only mode") {
			t.Fatalf("fips140=only did not refuse the derandomized encapsulation: %v", err)
		}
		t.Logf("refused: %v", err)
	}
	t.Logf("FIPS path checked: %d exchanges (nil, crypto/rand.Reader, a caller's reader), 0 circl calls, 0 derandomized calls", n)
}

// fipsChildRuns holds, per mode, the one child process that runs the FIPS
// subtest of every method (fipsChildPattern) under GODEBUG=fips140=on or
// fips140=only. The first subtest that needs it starts it; each subtest
// then reads its own part of the output.
var fipsChildRuns = map[string]*fipsChildRun{"on": new(fipsChildRun), "only": new(fipsChildRun)}

const fipsChildPattern = "^TestMethods$/.*/^FIPS$"

type fipsChildRun struct {
	once sync.Once
	out  string
	err  error
}

// fipsChildren requires t's test (one of fipsChildPattern) to have passed
// in the children under fips140=on and fips140=only, logging a line
// holding mark, which it logs (with any "refused:" line).
func fipsChildren(t *testing.T, mark string) {
	t.Helper()
	for _, mode := range []string{"on", "only"} {
		r := fipsChildRuns[mode]
		r.once.Do(func() {
			cmd, err := selfexec.Command("-test.run="+fipsChildPattern, "-test.v", "-test.count=1")
			if err != nil {
				r.err = err
				return
			}
			cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, FIPSChildEnv+"=1")
			out, err := cmd.CombinedOutput()
			r.out, r.err = string(out), err
		})
		own := testOutput(r.out, t.Name())
		// A child that failed must say which subtest did.
		if !strings.Contains(r.out, "--- PASS: "+t.Name()+" ") || !strings.Contains(own, mark) ||
			r.err != nil && !strings.Contains(r.out, "--- FAIL: ") {
			t.Fatalf("fips140=%s child: %v\n%s", mode, r.err, r.out)
		}
		for _, l := range strings.Split(own, "\n") {
			if strings.Contains(l, mark) || strings.Contains(l, "refused:") {
				t.Logf("fips140=%s: %s", mode, strings.TrimSpace(l))
			}
		}
	}
}

// testOutput returns what the test named name logged in out, the output
// of a -test.v run of sequential tests: the lines after its "=== RUN"
// line, up to the next line of the testing package.
func testOutput(out, name string) string {
	_, rest, ok := strings.Cut(out, "=== RUN   "+name+"\n")
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "PASS") || strings.HasPrefix(l, "FAIL") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// CheckDirectFIPS checks what the package documentation of an X25519
// hybrid m says it does when called directly in FIPS 140-3 mode (sshkex
// does not register it there; it is not approved): with the default
// source (nil or crypto/rand's Reader) the exchange runs under both modes
// on the implementations' own generation, entering neither circl nor a
// derandomized service (for mlkem768x25519, crypto/mlkem's GenerateKey and
// Encapsulate, not crypto/mlkem/mlkemtest); given a caller's reader, the
// client's keys come from it and the exchange runs under fips140=on, and
// under fips140=only too for sntrup761x25519, while mlkem768x25519's
// Respond fails there with an error naming crypto/mlkem/mlkemtest and its
// client still finishes against an independent server (the oracles, run
// outside the enforcement as test code). Outside FIPS mode it runs t's
// test in children under both modes.
func CheckDirectFIPS(t *testing.T, m *Method) {
	t.Helper()
	if !fips140.Enabled() {
		if os.Getenv(FIPSChildEnv) != "" {
			t.Fatal("child not in FIPS 140-3 mode")
		}
		fipsChildren(t, "used directly:")
		return
	}
	ex := m.Public
	circl, derand := hybrid.CirclCalls(), hybrid.DerandomizedCalls()
	exchange(t, ex, ex, nil, nil)
	exchange(t, ex, ex, rand.Reader, rand.Reader)
	if d := hybrid.CirclCalls() - circl; d != 0 {
		t.Fatalf("default source: %d calls into circl in FIPS 140-3 mode", d)
	}
	if d := hybrid.DerandomizedCalls() - derand; d != 0 {
		t.Fatalf("default source: %d calls into derandomized services in FIPS 140-3 mode", d)
	}
	stream := kat.Stream(m.Prefix+"|fips|direct", m.KeyGen+32)
	c1, err1 := ex.NewClient(bytes.NewReader(stream))
	c2, err2 := ex.NewClient(bytes.NewReader(stream))
	if err1 != nil || err2 != nil || !bytes.Equal(c1.Init(), c2.Init()) {
		t.Fatalf("the client's keys do not come from the reader (%v, %v)", err1, err2)
	}
	if !fips140.Enforced() || m.KEM == "sntrup761" {
		exchange(t, ex, ex, bytes.NewReader(stream), bytes.NewReader(kat.Stream(m.Prefix+"|fips|server", m.Encaps+32)))
		t.Logf("used directly: NewClient, Respond and Finish run, on their own generation for nil and crypto/rand's Reader (0 circl, 0 derandomized calls) and reading a caller's reader")
		return
	}
	_, _, err := ex.Respond(bytes.NewReader(kat.Stream(m.Prefix+"|fips|server", m.Encaps+32)), c1.Init())
	if err == nil || !strings.Contains(err.Error(), "crypto/mlkem/mlkemtest") {
		t.Fatalf("Respond with a caller's reader under fips140=only: %v, want an error naming crypto/mlkem/mlkemtest", err)
	}
	t.Logf("refused: %v", err)
	o := m.ours()
	var reply, want []byte
	fips140.WithoutEnforcement(func() {
		ct, kPQ, ok := m.oracle.encaps(c1.Init()[:m.EKSize], o.server[:m.Encaps])
		pub, kCL := m.ecdhOracle(o.server[m.Encaps:], c1.Init()[m.EKSize:])
		if !ok || kCL == nil {
			t.Fatal("the oracles refused the client's C_INIT")
		}
		reply, want = append(ct, pub...), m.kOracle(kPQ, kCL)
	})
	if k, err := c1.Finish(reply); err != nil || !bytes.Equal(k, want) {
		t.Fatalf("Finish under fips140=only: %v, or K differs from the oracles'", err)
	}
	t.Logf("used directly: the exchange runs on crypto/mlkem's own generation for nil and crypto/rand's Reader (0 circl, 0 derandomized calls); with a caller's reader NewClient and Finish run, the reader read, and Respond fails")
}

// knownAnswers runs f, the body of a known-answer test. Known answers need
// the derandomized services (crypto/mlkem/mlkemtest's encapsulation, keys
// from given seeds and scalars), which GODEBUG=fips140=only refuses by
// design: under that mode f runs inside crypto/fips140.WithoutEnforcement,
// Go's own scope for such tests. Every other test, and every exchange
// through NewClient and Respond outside f, runs enforced; CheckFIPSPath
// shows that the enforcement refuses the derandomized path.
func knownAnswers(t TB, f func()) {
	t.Helper()
	if fips140.Enforced() {
		t.Log("known answers: derandomized services run without fips140=only enforcement")
		fips140.WithoutEnforcement(f)
		return
	}
	f()
}
