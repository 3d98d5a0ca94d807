package sshkex

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// modeMethods returns the distinct methods Register tests in this mode.
func modeMethods() []*method {
	if len(postQuantum()) == 2 { // FIPS 140-3 mode
		return []*method{nistp256Method, nistp384Method}
	}
	return []*method{nistp256Method, nistp384Method, sntrupMethod, mlkemMethod}
}

// registryState captures what the self-test must leave as it found it.
type registryState struct {
	mapPtr             uintptr
	names              []string
	supported, defauls []string
}

func captureRegistry() registryState {
	return registryState{
		mapPtr:    reflect.ValueOf(kexAlgoMap).Pointer(),
		names:     slices.Sorted(maps.Keys(kexAlgoMap)),
		supported: slices.Clone(supportedKexAlgos),
		defauls:   slices.Clone(defaultKexAlgos),
	}
}

func (s registryState) check(t *testing.T) {
	t.Helper()
	now := captureRegistry()
	if now.mapPtr != s.mapPtr || !slices.Equal(now.names, s.names) {
		t.Errorf("the registry changed: %v -> %v", s.names, now.names)
	}
	if !slices.Equal(now.supported, s.supported) || !slices.Equal(now.defauls, s.defauls) {
		t.Errorf("x/crypto's lists changed")
	}
	for name := range kexAlgoMap {
		if strings.Contains(name, "self-test") {
			t.Errorf("%s left in the registry", name)
		}
	}
}

func TestSelfTestPasses(t *testing.T) {
	before := captureRegistry()
	if err := selfTest(modeMethods()); err != nil {
		t.Fatal(err)
	}
	before.check(t)
}

// brokenMethod is m with a server that derives another K than the client.
func brokenMethod(m *method) *method {
	b := *m
	b.respond = func(rand io.Reader, clientInit []byte) ([]byte, []byte, error) {
		qs, k, err := m.respond(rand, clientInit)
		if err == nil {
			k[len(k)-1] ^= 1
		}
		return qs, k, err
	}
	return &b
}

// TestSelfTestFailsAndRestores: a method that does not agree on K fails
// the self-test (x/crypto's client rejects the signature over the server's
// H), and the registry is put back.
func TestSelfTestFailsAndRestores(t *testing.T) {
	before := captureRegistry()
	err := selfTest([]*method{nistp256Method, brokenMethod(nistp384Method)})
	if err == nil || !strings.Contains(err.Error(), "mlkem1024nistp384-sha384: x/crypto's client failed the handshake") {
		t.Fatalf("selfTest with a broken method = %v", err)
	}
	t.Log(err)
	before.check(t)
}

// newRun registers a self-test run under its private name for the test's
// duration.
func newRun(t *testing.T, m *method, signer ssh.Signer) *selfTestRun {
	t.Helper()
	r := &selfTestRun{name: "pqkex-self-test-unit-" + m.name + "@pqkex.invalid", m: m, signer: signer}
	r.kex = &hybridKEX{m: m, observe: r.observe}
	old := kexAlgoMap
	trial := maps.Clone(old)
	trial[r.name] = r.kex
	kexAlgoMap = trial
	t.Cleanup(func() { kexAlgoMap = old })
	return r
}

func mustThrowaway(t *testing.T) ssh.AlgorithmSigner {
	t.Helper()
	s, err := throwawaySigner()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestVerifyHonestDetects: each check of an honest handshake fails when
// what it compares is changed the way a misbehaving x/crypto would change
// it.
func TestVerifyHonestDetects(t *testing.T) {
	host := mustThrowaway(t)
	for _, tc := range []struct {
		name   string
		tamper func(r *selfTestRun)
		want   string
	}{
		{"none", func(*selfTestRun) {}, ""},
		{"client KEXINIT cookie", func(r *selfTestRun) { r.c2s[kexInitOffset(t, r.c2s)+1] ^= 1 }, "exchange hash differs"},
		{"server KEXINIT cookie", func(r *selfTestRun) { r.s2c[kexInitOffset(t, r.s2c)+1] ^= 1 }, "exchange hash differs"},
		{"client identification line", func(r *selfTestRun) { r.c2s[5] ^= 1 }, "exchange hash differs"},
		{"client session ID", func(r *selfTestRun) { r.clientSID[0] ^= 1 }, "session identifier"},
		{"server session ID", func(r *selfTestRun) { r.serverSID = r.serverSID[:len(r.serverSID)-1] }, "session identifier"},
		{"K on both sides", func(r *selfTestRun) { r.client.K[len(r.client.K)-1] ^= 1; r.server.K[len(r.server.K)-1] ^= 1 }, "exchange hash differs"},
		{"K on one side", func(r *selfTestRun) { r.server.K[len(r.server.K)-1] ^= 1 }, "different shared secrets"},
		{"first encrypted packet", func(r *selfTestRun) { r.c2s[firstEncryptedOffset(t, r.c2s)+20] ^= 1 }, "did not derive its keys"},
		{"no encrypted packet", func(r *selfTestRun) { r.c2s = r.c2s[:firstEncryptedOffset(t, r.c2s)] }, "no packet after SSH_MSG_NEWKEYS"},
		{"truncated transcript", func(r *selfTestRun) { r.s2c = r.s2c[:len(r.s2c)/4] }, "server's messages"},
		{"no key exchange seen", func(r *selfTestRun) { r.client = nil }, "without calling pqkex's key exchange"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, nistp256Method, host)
			if err := r.checkHonest(host.PublicKey()); err != nil {
				t.Fatalf("honest handshake: %v", err)
			}
			tc.tamper(r)
			err := r.verifyHonest()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("untampered: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// kexInitOffset returns the offset of the KEXINIT payload's message number
// in a recorded direction (after the identification line and a 5-byte
// packet header).
func kexInitOffset(t *testing.T, b []byte) int {
	i := strings.Index(string(b), "\r\n")
	if i < 0 || b[i+2+5] != 20 {
		t.Fatalf("no KEXINIT after the identification line")
	}
	return i + 2 + 5
}

// firstEncryptedOffset returns where the client's encrypted packets start.
func firstEncryptedOffset(t *testing.T, c2s []byte) int {
	side, err := parseSide(c2s, 30)
	if err != nil {
		t.Fatal(err)
	}
	return len(c2s) - len(side.rest)
}

// TestCheckRejectedDetects: the bad-signature check fails when x/crypto's
// client accepts the server (here: an honest one, as an x/crypto that
// skipped verification would accept a liar), and when the handshake fails
// before pqkex's key exchange returns.
func TestCheckRejectedDetects(t *testing.T) {
	host, other := mustThrowaway(t), mustThrowaway(t)
	liar := newRun(t, nistp256Method, lyingSigner{shown: host, signs: other})
	if err := liar.checkRejected(host.PublicKey(), "a liar"); err != nil {
		t.Fatalf("lying server: %v", err)
	}
	honest := newRun(t, nistp384Method, host)
	if err := honest.checkRejected(host.PublicKey(), "an honest signature"); err == nil || !strings.Contains(err.Error(), "client accepted an honest signature") {
		t.Fatalf("honest server in the liar's place: %v", err)
	}
	failing := *sntrupMethod
	failing.newClient = func(io.Reader) (client, error) { return nil, errors.New("no client") }
	early := newRun(t, &failing, lyingSigner{shown: host, signs: other})
	if err := early.checkRejected(host.PublicKey(), "a liar"); err == nil || !strings.Contains(err.Error(), "failed before pqkex's key exchange returned") {
		t.Fatalf("key exchange failing early: %v", err)
	}
}

// BenchmarkRegisterCold measures Register as a program's first call: in a
// fresh process each time (the test binary in a peer mode), so one-time
// initialisation (lazy tables, first allocations) is included. It reports
// the median and 99th percentile of Register and of its self-test.
func BenchmarkRegisterCold(b *testing.B) {
	var reg, self []time.Duration
	for b.Loop() {
		out, err := runPeerProcess(b, "register-cold")
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		var r, s int64
		if _, err := fmt.Sscan(out, &r, &s); err != nil {
			b.Fatalf("%v: %q", err, out)
		}
		reg, self = append(reg, time.Duration(r)), append(self, time.Duration(s))
	}
	reportPercentiles(b, "register", reg)
	reportPercentiles(b, "self-test", self)
}

// reportPercentiles reports the median and 99th percentile of times in
// milliseconds.
func reportPercentiles(b *testing.B, what string, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, what+"-p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, what+"-p99-ms")
}

// BenchmarkSelfTest measures the self-test Register runs (warm: the
// process has run it before), with its median and 99th percentile.
func BenchmarkSelfTest(b *testing.B) {
	methods := modeMethods()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := selfTest(methods); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	reportPercentiles(b, "self-test", times)
}
