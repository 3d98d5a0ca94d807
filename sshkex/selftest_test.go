package sshkex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime"
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
	trial[r.name] = selfTestKEX{r}
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
		{"client's first encrypted packet", func(r *selfTestRun) { r.c2s[encryptedOffset(t, r.c2s, clientToServer)+20] ^= 1 },
			"did not derive its keys from pqkex's K and H: the MAC of the client's first encrypted packet does not verify with key 'E'"},
		{"client's packet length", func(r *selfTestRun) { r.c2s[encryptedOffset(t, r.c2s, clientToServer)] ^= 0x80 },
			"the client's first encrypted packet does not decrypt with IV 'A' and key 'C'"},
		{"client's last MAC", func(r *selfTestRun) { r.c2s[len(r.c2s)-1] ^= 1 }, "the MAC of the client's encrypted packet 2 does not verify"},
		{"no client packet", func(r *selfTestRun) { r.c2s = r.c2s[:encryptedOffset(t, r.c2s, clientToServer)] }, "the client sent no packet after SSH_MSG_NEWKEYS"},
		{"server's first encrypted packet", func(r *selfTestRun) { r.s2c[encryptedOffset(t, r.s2c, serverToClient)+20] ^= 1 },
			"did not derive its keys from pqkex's K and H: the MAC of the server's first encrypted packet does not verify with key 'F'"},
		{"server's packet length", func(r *selfTestRun) { r.s2c[encryptedOffset(t, r.s2c, serverToClient)] ^= 0x80 },
			"the server's first encrypted packet does not decrypt with IV 'B' and key 'D'"},
		{"server's last MAC", func(r *selfTestRun) { r.s2c[len(r.s2c)-1] ^= 1 }, "the MAC of the server's encrypted packet 3 does not verify"},
		{"server's last packet cut short", func(r *selfTestRun) { r.s2c = r.s2c[:len(r.s2c)-1] }, "the server's encrypted packet 3 does not decrypt"},
		{"no server packet", func(r *selfTestRun) { r.s2c = r.s2c[:encryptedOffset(t, r.s2c, serverToClient)] }, "the server sent no packet after SSH_MSG_NEWKEYS"},
		{"both directions", func(r *selfTestRun) {
			r.c2s[encryptedOffset(t, r.c2s, clientToServer)+20] ^= 1
			r.s2c[encryptedOffset(t, r.s2c, serverToClient)+20] ^= 1
		}, "the MAC of the client's first encrypted packet does not verify with key 'E' derived from K and H (sequence number 0, strict key exchange: counted from 0 after SSH_MSG_NEWKEYS); the MAC of the server's"},
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

// encryptedOffset returns where the encrypted packets of a recorded
// direction start.
func encryptedOffset(t *testing.T, b []byte, d direction) int {
	side, err := parseSide(b, d)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) - len(side.rest)
}

// TestSessionKeysBothDirections: in an honest self-test handshake (strict
// key exchange, as x/crypto's client and server always agree on) the
// client's encrypted packets are SSH_MSG_SERVICE_REQUEST and the "none"
// SSH_MSG_USERAUTH_REQUEST, the server's SSH_MSG_EXT_INFO (sent right
// after its SSH_MSG_NEWKEYS), SSH_MSG_SERVICE_ACCEPT and
// SSH_MSG_USERAUTH_SUCCESS, each decrypted and authenticated with its
// direction's keys; the sequence numbers of a key exchange without strict
// mode (counted on) do not verify, and the error says which did.
func TestSessionKeysBothDirections(t *testing.T) {
	host := mustThrowaway(t)
	for _, m := range modeMethods() {
		t.Run(m.name, func(t *testing.T) {
			r := newRun(t, m, host)
			if err := r.checkHonest(host.PublicKey()); err != nil {
				t.Fatal(err)
			}
			client, _ := r.results()
			tr, err := readTranscript(m.hash, r.c2s, r.s2c, client.K)
			if err != nil {
				t.Fatal(err)
			}
			if !tr.strict {
				t.Fatal("x/crypto's client and server did not agree on strict key exchange")
			}
			for _, tc := range []struct {
				side *sideTranscript
				want []byte
			}{
				{tr.client, []byte{5, 50}},
				{tr.server, []byte{7, 6, 52}},
			} {
				types, err := tc.side.checkEncrypted(m.hash, client.K, tr.H, true)
				if err != nil || !bytes.Equal(types, tc.want) {
					t.Errorf("%s's packets: message numbers %v, %v; want %v", tc.side.dir.sender, types, err, tc.want)
				}
				_, err = tc.side.checkEncrypted(m.hash, client.K, tr.H, false)
				want := fmt.Sprintf("the MAC of the %s's first encrypted packet verifies with sequence number 0, not 3 (no strict key exchange", tc.side.dir.sender)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s's packets checked as after a key exchange without strict mode: %v, want %q", tc.side.dir.sender, err, want)
				}
			}
		})
	}
}

// sshGoroutines returns the goroutines other than the caller's that run
// x/crypto/ssh's code or the self-test's, by their header line
// ("goroutine N [...]:").
func sshGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	out := make(map[string]string)
	for i, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if i > 0 && (strings.Contains(g, "golang.org/x/crypto/ssh.") || strings.Contains(g, "sshkex.(*selfTestRun)")) {
			id, _, _ := strings.Cut(g, " [")
			out[id] = g
		}
	}
	return out
}

// noNewSSHGoroutines waits (up to 5 s) until every goroutine running
// x/crypto/ssh's code or the self-test's was among before, and fails the
// test if one is left.
func noNewSSHGoroutines(t *testing.T, before map[string]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		for id, g := range sshGoroutines() {
			if _, ok := before[id]; !ok {
				left = append(left, g)
			}
		}
		if left == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left in x/crypto/ssh or the self-test:\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSelfTestRecoversPanics: a panic in pqkex's code on x/crypto's
// goroutines (a method's client or server side, a nil dereference or an
// explicit panic, or the observe hook) fails the self-test with an error
// naming it and where it happened, instead of crashing the process; the
// registry is put back and no goroutine is left behind.
func TestSelfTestRecoversPanics(t *testing.T) {
	var nilMagics *handshakeMagics
	panickingClient := *nistp384Method
	panickingClient.newClient = func(io.Reader) (client, error) { panic("client panics (test)") }
	dereferencingServer := *nistp384Method
	dereferencingServer.respond = func(io.Reader, []byte) ([]byte, []byte, error) {
		return nil, nilMagics.clientVersion, nil // a nil dereference
	}
	for _, tc := range []struct {
		name    string
		methods []*method
		want    string
	}{
		{"client", []*method{nistp256Method, &panickingClient}, "mlkem1024nistp384-sha384: a panic in pqkex's Client on x/crypto's goroutine: client panics (test) (in github.com/pqkex/pqkex/sshkex.TestSelfTestRecoversPanics.func1, selftest_test.go:"},
		{"server", []*method{nistp256Method, &dereferencingServer}, "mlkem1024nistp384-sha384: a panic in pqkex's Server on x/crypto's goroutine: runtime error: invalid memory address or nil pointer dereference (in github.com/pqkex/pqkex/sshkex.TestSelfTestRecoversPanics.func2, selftest_test.go:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroutines, before := sshGoroutines(), captureRegistry()
			err := selfTest(tc.methods)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("selfTest = %v, want an error containing %q", err, tc.want)
			}
			t.Log(err)
			before.check(t)
			noNewSSHGoroutines(t, goroutines)
		})
	}
	t.Run("observe", func(t *testing.T) {
		goroutines := sshGoroutines()
		host := mustThrowaway(t)
		r := newRun(t, nistp256Method, host)
		r.kex.observe = func(server bool, _ *kexResult) {
			if server {
				panic("observe panics (test)")
			}
		}
		err := r.checkHonest(host.PublicKey())
		if want := "a panic in pqkex's Server on x/crypto's goroutine: observe panics (test)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("checkHonest = %v, want an error containing %q", err, want)
		}
		t.Log(err)
		noNewSSHGoroutines(t, goroutines)
	})
	// The goroutines that check the results recover too.
	t.Run("check", func(t *testing.T) {
		err := func() (err error) {
			defer recoverCheck("the self-test's checks", &err)
			panic("check panics (test)")
		}()
		if want := "a panic in the self-test's checks: check panics (test) (in github.com/pqkex/pqkex/sshkex.TestSelfTestRecoversPanics."; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want an error containing %q", err, want)
		}
	})
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
