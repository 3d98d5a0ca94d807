package conformance

// The verdict properties: an honest peer is never flagged, and each
// defective one always is, checked against the simulated peers of
// sim_test.go. The default run is short (one honest check of each role,
// every defect once per method); PQKEX_VERDICT_EXCHANGES and
// PQKEX_VERDICT_RUNS make it as long as wanted (docs/testing.md has the
// figures of the long runs):
//
//	PQKEX_VERDICT_EXCHANGES=100000 PQKEX_VERDICT_RUNS=1000 go test -run 'TestVerdict' -timeout 0 ./cmd/pqkex/internal/conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// envInt is the integer in the environment variable name, or def.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// defectSpec is a simulated peer and the cases that must flag it; with
// none, it behaves as the clauses allow and every case must conform (or
// not apply).
type defectSpec struct {
	d       defect
	methods func(*method) bool // the methods it concerns (nil: all)
	flagged []string
	// waits: the defect shows only as a client that stays after the
	// forged packet, so its check waits out the timeout: a short one.
	waits bool
}

func nist(m *method) bool       { return !m.x25519() }
func x25519Only(m *method) bool { return m.x25519() }

var serverDefects = []defectSpec{
	{d: srvMpint, flagged: []string{"honest"}},
	{d: srvMpintGrind, flagged: []string{"honest"}},
	{d: srvNoDecrypt, flagged: []string{"packet-tampered"}},
	{d: srvCompress, methods: nist},
	{d: srvNonStrict},
	{d: srvLateNewKey},
	{d: srvDeferred},
}

var clientDefects = []defectSpec{
	{d: cliMpint, flagged: []string{"honest", "sig-k-mpint"}},
	{d: cliPublicS2C, flagged: []string{"honest"}},
	{d: cliNoMAC, flagged: []string{"packet-tampered"}},
	{d: cliSkipLength, flagged: []string{"s-reply-short", "s-reply-long"}},
	{d: cliSkipZero, methods: x25519Only, flagged: func() (ids []string) {
		for _, b := range x25519LowOrder {
			ids = append(ids, b.id)
		}
		return ids
	}()},
	{d: cliNewKeysEarl},
	{d: cliPipeline},
	{d: cliPipeNoMAC, flagged: []string{"packet-tampered"}, waits: true},
}

func (s defectSpec) concerns(m *method) bool { return s.methods == nil || s.methods(m) }

// timeout is the per-case timeout of the checks of s.
func (s defectSpec) timeout() time.Duration {
	if s.waits {
		return time.Second
	}
	return 10 * time.Second
}

// checkSimServer runs the cases named in ids (all if nil) of method m
// against a simulated server at addr.
func checkSimServer(addr string, m *method, ids []string) []Result {
	s := &serverChecker{opts: ServerOptions{Addr: addr, Timeout: 10 * time.Second}}
	d := &net.Dialer{Timeout: 5 * time.Second}
	s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	var rs []Result
	for _, cs := range serverCases(m) {
		if ids == nil || slices.Contains(ids, cs.id) {
			rs = append(rs, s.run(context.Background(), m, cs))
		}
	}
	return rs
}

// checkSimClients runs the cases named in ids (all if nil) of method m
// against simulated clients with defect d.
func checkSimClients(t verdictT, d defect, m *method, ids []string, ident string, timeout time.Duration) []Result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Errorf("%v", err) // not Fatal: it runs on the test's workers too
		return nil
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { simClients(ln.Addr().String(), d, []string{m.name}, ident, 0, stop); close(done) }()
	defer func() { close(stop); <-done }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Methods: []string{m.name}, Timeout: timeout, only: ids})
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	return rep.Results
}

// requireVerdicts checks rs against spec: the flagged cases must not
// conform (and must have run), every other case of an allowed variant
// must conform or not apply. A case of an honest or allowed peer that
// could not run (a timeout on a starved machine) is not a verdict on the
// peer: it is counted in notRun, and fails t only when mustRun. It
// returns the exchanges (connections) used.
func requireVerdicts(t verdictT, spec defectSpec, rs []Result, mustRun bool) int {
	t.Helper()
	n := 0
	for _, id := range spec.flagged {
		if !slices.ContainsFunc(rs, func(r Result) bool { return r.Case == id }) {
			t.Errorf("%s: no result of the case %s, which must flag it", spec.d, id)
		}
	}
	for _, r := range rs {
		n += max(r.Attempts, 1)
		switch {
		case slices.Contains(spec.flagged, r.Case):
			if r.Conforms || r.Verdict == NotRun || r.Verdict == NotApplicable {
				t.Errorf("%s: %s %s was not flagged: %s: %s", spec.d, r.Method, r.Case, r.Observed(), r.Detail)
			}
		case spec.flagged == nil && r.Verdict == NotRun:
			notRun.Add(1)
			if mustRun {
				t.Errorf("%s: %s %s did not run: %s", describeSpec(spec), r.Method, r.Case, r.Detail)
			}
		case spec.flagged == nil:
			if !r.Conforms && r.Verdict != NotApplicable {
				t.Errorf("%s: %s %s was flagged: %s: %s", describeSpec(spec), r.Method, r.Case, r.Observed(), r.Detail)
			}
		}
	}
	return n
}

// verdictT is the part of a *testing.T the verdict checks use (a fuzz
// target's T may be go-118-fuzz-build's).
type verdictT interface {
	Helper()
	Errorf(format string, args ...any)
}

// shortRun: the default go test run, which allows no case to go unrun.
func shortRun() bool {
	return os.Getenv("PQKEX_VERDICT_EXCHANGES") == "" && os.Getenv("PQKEX_VERDICT_RUNS") == ""
}

// notRun counts the cases of honest or allowed peers that could not run.
var notRun atomic.Int64

func describeSpec(s defectSpec) string {
	if s.d == honestPeer {
		return "honest peer"
	}
	return string(s.d)
}

// TestVerdictHonestNeverFlagged: honest simulated servers and clients,
// with fresh random keys on every connection, conform in every case of
// every method, until PQKEX_VERDICT_EXCHANGES exchanges have run (default:
// one check of each role).
func TestVerdictHonestNeverFlagged(t *testing.T) {
	want := envInt(t, "PQKEX_VERDICT_EXCHANGES", 1)
	addr := simServer(t, honestPeer)
	spec := defectSpec{d: honestPeer}
	exchanges, runs := 0, 0
	for exchanges < want || runs == 0 {
		for _, m := range methods {
			exchanges += requireVerdicts(t, spec, checkSimServer(addr, m, nil), shortRun())
			exchanges += requireVerdicts(t, spec, checkSimClients(t, honestPeer, m, nil, simIdent, 10*time.Second), shortRun())
		}
		runs++
		if t.Failed() {
			break
		}
	}
	t.Logf("%d exchanges in %d checks of each role and method: none flagged (%d cases could not run)", exchanges, runs, notRun.Load())
}

// TestVerdictDefectsFlagged: each defective simulated peer is flagged by
// its cases on every run (PQKEX_VERDICT_RUNS per method, default 1), and
// each allowed variant conforms everywhere. The peers run side by side,
// and each one's runs on verdictWorkers connections at a time (most of a
// run is waiting on loopback).
func TestVerdictDefectsFlagged(t *testing.T) {
	runs := envInt(t, "PQKEX_VERDICT_RUNS", 1)
	for _, spec := range append(slices.Clone(serverDefects), clientDefects...) {
		t.Run(string(spec.d), func(t *testing.T) {
			t.Parallel()
			var addr string
			if spec.d.server() {
				addr = simServer(t, spec.d)
			}
			timeout := spec.timeout()
			type job struct{ m *method }
			jobs := make(chan job)
			var wg sync.WaitGroup
			var total atomic.Int64
			for range verdictWorkers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range jobs {
						if spec.d.server() {
							requireVerdicts(t, spec, checkSimServer(addr, j.m, spec.flagged), shortRun())
						} else {
							requireVerdicts(t, spec, checkSimClients(t, spec.d, j.m, spec.flagged, simIdent, timeout), shortRun())
						}
						if n := total.Add(1); runs > 1 && n%500 == 0 {
							fmt.Fprintf(os.Stderr, "verdict: %s: %d runs\n", spec.d, n)
						}
					}
				}()
			}
			for range runs {
				for _, m := range methods {
					if spec.concerns(m) && !t.Failed() {
						jobs <- job{m}
					}
				}
			}
			close(jobs)
			wg.Wait()
			t.Logf("%d runs (method × repetition), every one as required", total.Load())
		})
	}
}

// verdictWorkers is how many checks of one simulated peer run at once.
const verdictWorkers = 4
