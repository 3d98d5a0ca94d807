package conformance

// The verdict properties: an honest peer is never flagged, and each
// defective one always is, checked against the simulated peers of
// sim_test.go. go test runs one honest check of each role and method and
// every defect and allowed variant once per method it concerns; -short
// runs each defect and variant on one method, a different one from peer
// to peer; the long run (tier.Long) runs 100 000 honest exchanges and
// every defect and variant 1 000 times per method (docs/testing.md has
// its figures):
//
//	PQKEX_LONG=1 go test -run '^TestVerdict' -timeout 0 ./cmd/pqkex/internal/conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/tier"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"golang.org/x/crypto/ssh"
)

// defectSpec is a simulated peer and the exact outcome of each case it
// concerns.
//
// An outcome is Result.Observed() ("completed", "accepted",
// "rejected(3)", "closed", "replied", "failed", "hung", "not
// applicable"), optionally followed by the finding id the result must
// carry in brackets ("accepted [packet-mac]", "hung [kex-silent]"). A
// defect's want lists the cases that show it, and only those run against
// it (each must have exactly that outcome, and must not conform unless
// the outcome conforms). An allowed variant (allowed set) runs every case
// of every method it concerns: each must conform or not apply, with the
// outcome want gives it, or else the honest peer's (honestServerWant,
// honestClientWant).
//
// A new defect is one line: its sim_test.go switch, and
//
//	{d: cliNewDefect, want: map[string]string{"case-id": "accepted [new-finding]"}},
type defectSpec struct {
	d       defect
	methods func(*method) bool // the methods it concerns (nil: all)
	want    map[string]string
	allowed bool
	// waits: the defect shows only as a peer that stays silent (or
	// stays after the forged packet), so its check waits out the
	// timeout: a short one.
	waits bool
	// identity: the key type of simIdentities check authenticates with
	// as simUser (ServerOptions.Identity); "": none.
	identity string
}

func nist(m *method) bool       { return !m.x25519() }
func x25519Only(m *method) bool { return m.x25519() }

// tinysshd is the one method tinysshd 20250501 has.
func tinysshd(m *method) bool { return m.name == sntrup761x25519.AliasName }

// honestServerWant is the outcome of case id of method m against the
// honest simulated server (simServe): it refuses a bad C_INIT with
// SSH_MSG_DISCONNECT 3 (KEY_EXCHANGE_FAILED), one that does not parse
// with 2 (PROTOCOL_ERROR), a packet whose MAC fails with 5 (MAC_ERROR),
// and closes on anything strict key exchange forbids; it takes a
// compressed point (allowed).
func honestServerWant(m *method, id string) string {
	switch id {
	case "honest", "wrong-guess-ignored", "rekey", SoakCase:
		return "completed"
	case "init-truncated-string":
		return "rejected(2)"
	case "second-init", "ignore-in-strict-kex", "newkeys-before-init":
		return "closed"
	case "packet-tampered":
		return "rejected(5)"
	case "point-compressed":
		return "replied"
	}
	return "rejected(3)"
}

// honestClientWant is the outcome of case id of method m against the
// honest simulated client (simConnect): it refuses a bad reply, a
// compressed point included (which it may), with SSH_MSG_DISCONNECT 3,
// and closes on the forged accept.
func honestClientWant(m *method, id string) string {
	switch id {
	case "honest", "k-pq-00", "k-pq-0000", "k-cl-00", "rekey", "rekey-by-client":
		return "completed"
	case "packet-tampered":
		return "closed"
	}
	return "rejected(3)"
}

// each maps every id of cases to outcome.
func each(cases []badValue, outcome func(id string) string) map[string]string {
	w := map[string]string{}
	for _, b := range cases {
		w[b.id] = outcome(b.id)
	}
	return w
}

var serverDefects = []defectSpec{
	{d: srvMpint, want: map[string]string{"honest": "failed [kex-honest]"}},
	{d: srvMpintGrind, want: map[string]string{"honest": "failed [kex-honest]"}},
	{d: srvNoDecrypt, want: map[string]string{"packet-tampered": "replied [packet-mac]"}},
	{d: srvLenSent, want: map[string]string{"c-init-short": "replied [length]", "c-init-long": "replied [length]"}},
	{d: srvLenUsed, want: map[string]string{"c-init-short": "replied [length]", "c-init-long": "replied [length]"}},
	{d: srvRekeyNewH, want: map[string]string{"rekey": "failed [rekey-session-id]"}},
	{d: srvNoPreauth, want: map[string]string{"rekey": "ignored [rekey-preauth]"}},
	// With an identity, rekey re-exchanges after user authentication.
	{d: srvAuthRekey, allowed: true, identity: ssh.KeyAlgoRSA},
	{d: srvAuthTiny, methods: tinysshd, identity: ssh.KeyAlgoED25519, want: map[string]string{"rekey": "completed"}},
	{d: srvAuthRekeyNewH, identity: ssh.KeyAlgoED25519, want: map[string]string{"rekey": "failed [rekey-session-id]"}},
	{d: srvAuthRefused, identity: ssh.KeyAlgoED25519, want: map[string]string{"rekey": "not run"}},
	{d: srvMACDrop, waits: true, want: map[string]string{"packet-tampered": "hung [packet-mac-silent]"}},
	{d: srvReuseKey, allowed: true},
	{d: srvDropZeroCL, want: map[string]string{SoakCase: "failed [k-leading-zero]"}},
	{d: srvDropZeroPQ, want: map[string]string{"honest": "failed [k-leading-zero]", SoakCase: "failed [k-leading-zero]"}},
	{d: srvCompress, methods: nist, allowed: true},
	{d: srvNonStrict, allowed: true, want: map[string]string{
		"second-init": "not applicable", "ignore-in-strict-kex": "not applicable", "newkeys-before-init": "not applicable"}},
	{d: srvLateNewKey, allowed: true},
	{d: srvDeferred, allowed: true},
	{d: srvSilent, waits: true, want: map[string]string{
		"honest": "hung [kex-silent]", "c-init-short": "hung [kex-silent]", "packet-tampered": "hung [kex-silent]"}},
	{d: srvNoNewKeys, waits: true, want: map[string]string{"honest": "hung [kex-silent]", "packet-tampered": "hung [kex-silent]"}},
}

var clientDefects = []defectSpec{
	{d: cliMpint, want: map[string]string{"honest": "failed [kex-honest]", "sig-k-mpint": "accepted [k-encoding]"}},
	{d: cliPublicS2C, want: map[string]string{"honest": "failed [kex-honest]"}},
	{d: cliNoMAC, want: map[string]string{"packet-tampered": "accepted [packet-mac]"}},
	{d: cliSkipLength, want: map[string]string{"s-reply-short": "accepted [length]", "s-reply-long": "accepted [length]",
		"s-reply-short-hash-used": "rejected(3)", "s-reply-long-hash-kept": "rejected(3)"}},
	{d: cliLenUsed, want: map[string]string{"s-reply-short-hash-used": "accepted [length]", "s-reply-long-hash-kept": "accepted [length]",
		"s-reply-short": "rejected(3)", "s-reply-long": "rejected(3)"}},
	{d: cliDropZeroPQ, want: map[string]string{"k-pq-00": "failed [k-leading-zero]", "k-pq-0000": "failed [k-leading-zero]"}},
	{d: cliDropZeroCL, want: map[string]string{"k-cl-00": "failed [k-leading-zero]"}},
	{d: cliRekeyNewH, want: map[string]string{"rekey": "failed [rekey-session-id]", "rekey-by-client": "failed [rekey-session-id]"}},
	{d: cliSkipZero, methods: x25519Only, want: each(x25519LowOrder, func(id string) string {
		if strings.HasSuffix(id, "-bit255") {
			return "accepted [x25519-mask]" // the first finding of a -bit255 case
		}
		return "accepted [x25519-zero]"
	})},
	// SSH_MSG_NEWKEYS first: the disconnect that follows is under the
	// keys of the client's own K, which are those of the K signed only
	// in host-key-mismatch.
	{d: cliNewKeysEarl, allowed: true, want: map[string]string{"sig-k-mpint": "closed", "ct-tampered": "closed"}},
	{d: cliPipeline, allowed: true},
	{d: cliPipeNoMAC, want: map[string]string{"packet-tampered": "accepted [packet-mac]"}},
	{d: cliMACDrop, waits: true, want: map[string]string{"packet-tampered": "hung [packet-mac-silent]"}},
	{d: cliPipeMACDrop, waits: true, want: map[string]string{"packet-tampered": "hung [packet-mac-silent]"}},
	{d: cliMACDiscon, allowed: true, want: map[string]string{"packet-tampered": "rejected(5)"}},
	// Leaving once authenticated, as a client that is done may: the
	// re-exchange check starts then cannot be checked, which is not a
	// failure of the client's (no finding), nor a pass.
	{d: cliLeaves, want: map[string]string{"rekey": "not run"}},
	{d: cliSilentInit, waits: true, want: map[string]string{"honest": "hung [kex-silent]", "s-reply-short": "hung [kex-silent]"}},
	{d: cliNoNewKeys, waits: true, want: map[string]string{
		"honest": "hung [kex-silent]", "packet-tampered": "hung [kex-silent]", "s-reply-short": "rejected(3)"}},
}

func (s defectSpec) concerns(m *method) bool { return s.methods == nil || s.methods(m) }

// cases are the case ids to run against s for method m: nil (all) for
// the honest peer and the allowed variants, else those of want.
func (s defectSpec) cases() []string {
	if s.allowed || s.d == honestPeer {
		return nil
	}
	ids := make([]string, 0, len(s.want))
	for id := range s.want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// outcome is what s must show in case id of method m.
func (s defectSpec) outcome(server bool, m *method, id string) string {
	if w, ok := s.want[id]; ok {
		return w
	}
	if server {
		return honestServerWant(m, id)
	}
	return honestClientWant(m, id)
}

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
	return checkSimServerTimeout(addr, m, ids, 10*time.Second)
}

// simSoak is the number of exchanges of the soak against a simulated
// server: enough for a reused key to be seen twice.
const simSoak = 3

// checkSimServerTimeout is checkSimServer with each connection bounded by
// timeout.
func checkSimServerTimeout(addr string, m *method, ids []string, timeout time.Duration) []Result {
	return checkSimServerAs(addr, m, ids, timeout, "")
}

// checkSimServerAs is checkSimServerTimeout authenticating as simUser
// with the simIdentities key of type identity ("": none).
func checkSimServerAs(addr string, m *method, ids []string, timeout time.Duration, identity string) []Result {
	s := &serverChecker{opts: ServerOptions{Addr: addr, Timeout: timeout}}
	if identity != "" {
		s.opts.User, s.opts.Identity = simUser, simIdentities()[identity]
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	var rs []Result
	cases := serverCases(m)
	if ids == nil || slices.Contains(ids, SoakCase) {
		cases = append(cases, soakCase(m, simSoak))
	}
	for _, cs := range cases {
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

// requireVerdicts checks rs, the results of spec's peer in the role
// server says (true: a simulated server was checked) for method m's cases
// ran (nil: all), against spec: every case run must have a result, and
// every result must have exactly the outcome spec gives it; the honest
// peer's and an allowed variant's must conform (or not apply). A case of
// the honest peer or an allowed variant that could not run (a timeout on
// a starved machine) is not a verdict on the peer: it is counted in
// notRun, and fails t only when mustRun. It returns the exchanges
// (connections) used.
func requireVerdicts(t verdictT, spec defectSpec, server bool, m *method, ran []string, rs []Result, mustRun bool) int {
	t.Helper()
	n := 0
	conforming := spec.allowed || spec.d == honestPeer
	all := caseIDs(server, m)
	if ran == nil {
		ran = all
	}
	for _, id := range ran {
		if slices.Contains(all, id) && !slices.ContainsFunc(rs, func(r Result) bool { return r.Case == id }) {
			t.Errorf("%s: %s: no result of the case %s", describeSpec(spec), m.name, id)
		}
	}
	for _, r := range rs {
		n += max(r.Attempts, 1)
		if conforming && r.Verdict == NotRun {
			notRun.Add(1)
			if mustRun {
				t.Errorf("%s: %s %s did not run: %s", describeSpec(spec), r.Method, r.Case, r.Detail)
			}
			continue
		}
		want := spec.outcome(server, m, r.Case)
		got := r.Observed()
		if strings.HasSuffix(want, "]") {
			got += " [" + r.Finding + "]"
		}
		if got != want {
			t.Errorf("%s: %s %s: got %s, want %s (conforms %v): %s", describeSpec(spec), r.Method, r.Case, got, want, r.Conforms, r.Detail)
		}
		if conforming && !r.Conforms && r.Verdict != NotApplicable {
			t.Errorf("%s: %s %s was flagged: %s: %s", describeSpec(spec), r.Method, r.Case, r.Observed(), r.Detail)
		}
		// Silence is said once, naming the method (silentIf).
		if n := strings.Count(r.Detail, "then went silent"); n > 1 || n == 1 && !strings.Contains(r.Detail, "negotiated "+r.Method+", then") {
			t.Errorf("%s: %s %s: the silence is not said once with the method: %s", describeSpec(spec), r.Method, r.Case, r.Detail)
		}
	}
	return n
}

// caseIDs are the ids of m's cases for a server (server set) or a client.
func caseIDs(server bool, m *method) []string {
	if server {
		return append(serverCaseIDs(m), SoakCase) // checkSimServer adds the soak
	}
	return clientCaseIDs(m)
}

// verdictT is the part of a *testing.T the verdict checks use (a fuzz
// target's T may be go-118-fuzz-build's).
type verdictT interface {
	Helper()
	Errorf(format string, args ...any)
}

// mustRun: every case of an honest or allowed peer must run, except in
// the long run, where on a loaded machine a case may miss its timeout
// (counted in notRun and logged).
func mustRun(t *testing.T) bool { return !tier.Long(t) }

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
// every method, each with its exact outcome (honestServerWant,
// honestClientWant): one check of each role, and in the long run checks
// until 100 000 exchanges have run.
func TestVerdictHonestNeverFlagged(t *testing.T) {
	want := tier.Size(t, 1, 1, 100000)
	strict := mustRun(t)
	addr := simServer(t, honestPeer)
	spec := defectSpec{d: honestPeer}
	exchanges, runs := 0, 0
	for exchanges < want || runs == 0 {
		for _, m := range methods {
			exchanges += requireVerdicts(t, spec, true, m, nil, checkSimServer(addr, m, nil), strict)
			exchanges += requireVerdicts(t, spec, false, m, nil, checkSimClients(t, honestPeer, m, nil, simIdent, 10*time.Second), strict)
		}
		runs++
		if t.Failed() {
			break
		}
	}
	t.Logf("%d exchanges in %d checks of each role and method: none flagged (%d cases could not run)", exchanges, runs, notRun.Load())
}

// TestVerdictDefectsFlagged: each defective simulated peer gets the
// exact outcome of its table in the cases that show it, on every run
// (one per method it concerns; under -short on one of them, a different
// one from peer to peer; in the long run 1 000 per method), and each
// allowed variant conforms everywhere, each case with its exact outcome.
// The peers run side by side, and each one's runs on verdictWorkers
// connections at a time (most of a run is waiting on loopback).
func TestVerdictDefectsFlagged(t *testing.T) {
	runs := tier.Size(t, 1, 1, 1000)
	strict := mustRun(t)
	for k, spec := range append(slices.Clone(serverDefects), clientDefects...) {
		t.Run(string(spec.d), func(t *testing.T) {
			t.Parallel()
			var addr string
			if spec.d.server() {
				addr = simServer(t, spec.d)
			}
			timeout := spec.timeout()
			// A job is a method's cases; for a peer whose cases wait out
			// the timeout, one case, and every job of a repetition runs
			// at once (the waiting costs no CPU).
			type job struct {
				m   *method
				ids []string
			}
			var ms []*method
			for _, m := range methods {
				if spec.concerns(m) {
					ms = append(ms, m)
				}
			}
			if testing.Short() && !tier.Long(t) {
				ms = ms[k%len(ms):][:1]
			}
			var round []job
			for _, m := range ms {
				switch {
				case spec.waits:
					for _, id := range spec.cases() {
						round = append(round, job{m, []string{id}})
					}
				default:
					round = append(round, job{m, spec.cases()})
				}
			}
			workers := verdictWorkers
			if spec.waits { // a round at once, and in a long run several
				workers = max(len(round), min(waitingWorkers, len(round)*runs))
			}
			jobs := make(chan job)
			var wg sync.WaitGroup
			var total atomic.Int64
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range jobs {
						if spec.d.server() {
							requireVerdicts(t, spec, true, j.m, j.ids, checkSimServerAs(addr, j.m, j.ids, timeout, spec.identity), strict)
						} else {
							requireVerdicts(t, spec, false, j.m, j.ids, checkSimClients(t, spec.d, j.m, j.ids, simIdent, timeout), strict)
						}
						if n := total.Add(1); runs > 1 && n%500 == 0 {
							fmt.Fprintf(os.Stderr, "verdict: %s: %d runs\n", spec.d, n)
						}
					}
				}()
			}
			for range runs {
				for _, j := range round {
					if !t.Failed() {
						jobs <- j
					}
				}
			}
			close(jobs)
			wg.Wait()
			t.Logf("%d runs (method (× case) × repetition), every one as required", total.Load())
		})
	}
}

// verdictWorkers is how many checks of one simulated peer run at once;
// waitingWorkers, of one whose checks wait out their timeout (no CPU).
const (
	verdictWorkers = 4
	waitingWorkers = 64
)
