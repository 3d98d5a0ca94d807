package conformance

// Checking a server: pqkex plays the client, one connection per case.

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"golang.org/x/crypto/ssh"
)

// version is the identification line pqkex check sends as a server
// (check -listen).
const version = "SSH-2.0-pqkex_check"

// clientIdents are identification lines of common clients; a server check
// sends one of them, chosen at random for the run, so that a server
// cannot recognize pqkex check by its identification line without also
// treating every such client so (ServerOptions.Ident sets another).
var clientIdents = []string{"SSH-2.0-OpenSSH_9.9", "SSH-2.0-OpenSSH_10.0", "SSH-2.0-PuTTY_Release_0.83", "SSH-2.0-Go"}

// otherKex are key exchanges a server check lists after the one under
// test, as a client's list does (the one under test comes first, so it is
// the one negotiated with a server that offers it, RFC 4253 §7.1).
var otherKex = []string{"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ext-info-c"}

// AllCases is the case of a result that stands for every case of a
// method, such as "not applicable" for a method the peer does not offer.
const AllCases = "*"

// DefaultDeadline bounds a whole server check unless ServerOptions.Deadline
// says otherwise.
const DefaultDeadline = 30 * time.Minute

// honestBudget is how many connection timeouts the honest case may take
// in all, however many exchanges it runs.
const honestBudget = 4

// ServerOptions configure CheckServer.
type ServerOptions struct {
	// Addr is the server, host:port.
	Addr string
	// Methods are the key exchanges to check. Empty: every one pqkex
	// check knows that the server offers. A method named here that the
	// server does not offer gives its cases the verdict NotRun.
	Methods []string
	// Timeout bounds each connection (default 10 s).
	Timeout time.Duration
	// Pause is waited between connections (for servers that penalize
	// many short connections from one source).
	Pause time.Duration
	// Deadline bounds the whole check (default DefaultDeadline): cases
	// not run by then are reported NotRun. Each case takes one connection,
	// bounded by Timeout, except honest, bounded by honestBudget of them.
	Deadline time.Duration
	// Ident is the identification line sent (default: one of
	// clientIdents, chosen at random for the run).
	Ident string
	// NoPacing turns off waiting out a server's refusal of this source
	// (see pacePause): such a connection's case does not run.
	NoPacing bool
	// Planned, if set, is called once the cases to run are known, with
	// their number, the connections they take at the least (one a case,
	// and the soak's Soak) and the time the pauses between them take.
	Planned func(cases, connections int, least time.Duration)
	// Notice, if set, receives what the check does on its own accord
	// (pacing a server that refuses connections).
	Notice func(string)
	// Dial opens a connection to Addr (default: TCP with Timeout).
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Progress, if set, is called with each result as it is known.
	Progress func(Result)
	// Identified, if set, is called once the server's identification
	// line (escaped, as in ServerReport.Version) is known, before
	// Planned.
	Identified func(version string)
	// Soak, if positive, adds to each method's cases the soak (soak.go):
	// Soak honest exchanges, one connection each, paced from the start
	// for a server that penalizes many connections (OpenSSH 9.8 and
	// later); SoakProgress, if set, is told each one's end.
	Soak         int
	SoakProgress func(method string, done, total int)
	// Cases, if set, are the only cases run: "METHOD/CASE", or "CASE"
	// for that case of every method (ParseCases checks them).
	Cases []string
	// User and Identity, with Identity set, are the user name and the
	// private key the case rekey authenticates with (RFC 4252 §7,
	// publickey; userauth.go), so that it re-exchanges after user
	// authentication, where servers take a re-exchange, instead of
	// before it. Identity is secret: it signs that one request and is
	// written nowhere (a transcript has its public key and the
	// signature). A server that does not let it in leaves the case not
	// run.
	User     string
	Identity ssh.Signer
	// TranscriptDir, if set, is where each case's transcript is written,
	// as TranscriptDir/METHOD/CASE.txt (transcript.go; Result.Transcript
	// names it); Tool names the program in its header.
	TranscriptDir, Tool string
}

// ServerReport is what CheckServer found.
type ServerReport struct {
	Addr string `json:"target"`
	// Version is the server's identification line, escaped.
	Version string `json:"peer_version"`
	// Offered is the server's key exchange list, escaped.
	Offered []string `json:"kex_offered"`
	// Strict reports whether the server offers strict key exchange.
	Strict  bool     `json:"strict_kex"`
	Methods []string `json:"methods"`
	Results []Result `json:"results"`
	// Deadline is the bound of the whole check; Ident the identification
	// line sent.
	Deadline string `json:"deadline"`
	Ident    string `json:"ident"`
}

// CheckServer runs every case of every method against the server at
// opts.Addr. It returns an error only if it could not learn what the
// server offers (no connection, not SSH); every other failure is a result.
func CheckServer(ctx context.Context, opts ServerOptions) (*ServerReport, error) {
	s := &serverChecker{opts: opts}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = 10 * time.Second
	}
	if s.opts.Dial == nil {
		d := &net.Dialer{Timeout: s.opts.Timeout}
		s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	if s.opts.Deadline <= 0 {
		s.opts.Deadline = DefaultDeadline
	}
	if s.opts.Ident == "" {
		s.opts.Ident = clientIdents[mrand.IntN(len(clientIdents))]
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Deadline)
	defer cancel()
	rep := &ServerReport{Addr: opts.Addr, Deadline: s.opts.Deadline.String(), Ident: s.opts.Ident}
	// The probe lists what a client would; it ends after the KEXINITs.
	probeStart := time.Now()
	probe, err := s.start(ctx, append(Methods(), otherKex...), false)
	probeTime := time.Since(probeStart)
	if err != nil && probe == nil {
		return nil, err
	}
	// A KEXINIT with no key exchange in common is the probe's normal end.
	probe.c.nc.Close()
	rep.Version = sshwire.Printable(probe.version, 255)
	if opts.Identified != nil {
		opts.Identified(rep.Version)
	}
	for _, k := range probe.serverInit.KexAlgos {
		rep.Offered = append(rep.Offered, sshwire.Printable(k, 64))
	}
	rep.Strict = slices.Contains(probe.serverInit.KexAlgos, strictServer)
	names := opts.Methods
	if len(names) == 0 {
		for _, m := range methods {
			if slices.Contains(probe.serverInit.KexAlgos, m.name) {
				names = append(names, m.name)
			}
		}
	}
	if opts.Cases != nil { // only the methods with a case selected
		names = slices.DeleteFunc(slices.Clone(names), func(name string) bool {
			m := lookupMethod(name)
			return m != nil && len(s.cases(m)) == 0
		})
	}
	rep.Methods = names
	s.pause = s.opts.Pause
	if s.opts.Soak > 0 && !s.opts.NoPacing && penalizes(probe.version) && s.pause < pacePause {
		s.pause = pacePause
		s.notice(fmt.Sprintf("the server is %s, which refuses a source after about 15 connections that do not authenticate "+
			"(PerSourcePenalties): leaving %v between connections from the start (-no-pacing turns this off)", sshwire.Printable(probe.version, 64), pacePause))
	}
	connections := 0
	for _, name := range names {
		m := lookupMethod(name)
		if m == nil {
			return nil, fmt.Errorf("pqkex check does not know the key exchange %q", name)
		}
		if slices.Contains(probe.serverInit.KexAlgos, name) {
			cs := s.cases(m)
			s.casesLeft += len(cs)
			connections += len(cs)
			if len(cs) > 0 && cs[len(cs)-1].id == SoakCase {
				connections += s.opts.Soak - 1 // the soak is one case of Soak connections
			}
		}
	}
	// The planned time is the pause before each connection; each
	// connection itself takes about two of the probe's (a case
	// exchanges more), which the caller adds as it reports it.
	least := time.Duration(connections) * s.pause
	s.connsLeft = connections
	if opts.Planned != nil {
		opts.Planned(s.casesLeft, connections, least)
	}
	if s.opts.Soak > 0 && least+time.Duration(connections)*2*max(probeTime, time.Millisecond) > s.opts.Deadline {
		s.notice(fmt.Sprintf("the soak is expected to take longer than the check's deadline (%v): what has not run by then is reported "+
			"as not run (-deadline sets it)", s.opts.Deadline))
	}
	for _, name := range names {
		m := lookupMethod(name)
		if !slices.Contains(probe.serverInit.KexAlgos, name) {
			r := Result{Method: name, Case: AllCases, Verdict: NotApplicable, Detail: "the server does not offer " + name}
			rep.Results = append(rep.Results, r)
			if opts.Progress != nil {
				opts.Progress(r)
			}
			continue
		}
		cases := s.cases(m)
		results := make([]Result, len(cases))
		// The cases run in a random order, so that a server cannot tell
		// from a connection's place in the run which case it is; they
		// are reported in their own order.
		order := mrand.Perm(len(cases))
		if len(cases) > 0 && cases[len(cases)-1].id == SoakCase { // the soak last
			order = append(slices.DeleteFunc(order, func(i int) bool { return i == len(cases)-1 }), len(cases)-1)
		}
		for _, i := range order {
			cs := cases[i]
			var r Result
			switch {
			case ctx.Err() != nil:
				r = Result{Method: name, Case: cs.id, Clause: cs.clause, Expected: cs.expect, Verdict: NotRun,
					Detail: "the run ended before this case (its deadline, " + s.opts.Deadline.String() + ", or an interrupt)"}
			default:
				r = s.run(ctx, m, cs)
			}
			s.casesLeft--
			results[i] = r
			if opts.Progress != nil {
				opts.Progress(r)
			}
		}
		rep.Results = append(rep.Results, results...)
	}
	return rep, nil
}

// cases are the cases of m this check runs: those of serverCases that
// opts.Cases selects, and the soak last when asked for (it runs after
// the others: the random order of the cases is theirs).
func (s *serverChecker) cases(m *method) []serverCase {
	var out []serverCase
	for _, cs := range serverCases(m) {
		if selected(s.opts.Cases, m.name, cs.id) {
			out = append(out, cs)
		}
	}
	if s.opts.Soak > 0 && selected(s.opts.Cases, m.name, SoakCase) {
		out = append(out, soakCase(m, s.opts.Soak))
	}
	return out
}

type serverChecker struct {
	opts   ServerOptions
	rec    *recorder // the transcript of the case running, if asked for
	dialed bool
	// interrupted is set when the end of the run (its deadline, or the
	// caller's context) closed a connection in flight.
	interrupted atomic.Bool
	pause       time.Duration // between connections: opts.Pause, or pacePause once a penalty was seen
	casesLeft   int
	connsLeft   int // connections planned and not yet made (the soak's too)
	// caseEnd, if set, bounds every connection of the case running.
	caseEnd time.Time
}

// session is one connection to the server after both KEXINITs.
type session struct {
	c            *conn
	ident        string // our identification line (V_C)
	version      string // the server's identification line
	ours, theirs []byte // I_C and I_S, the KEXINIT payloads
	serverInit   *sshwire.KexInit
	algs         algorithms
	// sessionID is the H of the first exchange once honestKex has run it
	// (RFC 4253 §7.2: the session identifier).
	sessionID []byte
	// client, if set, is the client half honestKex uses instead of a new
	// one (the soak's, drawn against a key the server reuses); observe,
	// if set, sees each exchange's secrets and S_REPLY (before the
	// signature is checked, and before they are cleared): the soak
	// counts their leading zero bytes.
	client  *clientHalf
	observe func(kPQ, kCL, serverReply []byte)
	// user and identity authenticate the case rekey (ServerOptions.User,
	// .Identity; identity nil: none).
	user     string
	identity ssh.Signer
}

// start connects, exchanges identification lines and KEXINITs (ours
// offering kex), and negotiates. On a negotiation error the session is
// returned too, with the server's KEXINIT.
func (s *serverChecker) start(ctx context.Context, kex []string, firstKexFollows bool) (*session, error) {
	c, peer, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	nc := c.nc
	fail := func(format string, args ...any) (*session, error) {
		nc.Close()
		return nil, fmt.Errorf(format, args...)
	}
	if !strings.HasPrefix(peer, "SSH-2.0-") && !strings.HasPrefix(peer, "SSH-1.99-") {
		return fail("the server speaks %s, not SSH 2.0", sshwire.Printable(peer, 64))
	}
	ki := newKexInit(kex, clientHostKeyAlgos)
	ki.FirstKexFollows = firstKexFollows
	ours, theirs, serverInit, err := c.exchangeKexInit(ki, "server")
	if err != nil {
		return fail("%v", err)
	}
	ss := &session{c: c, ident: s.ident(), version: peer, ours: ours, theirs: theirs, serverInit: serverInit,
		user: s.opts.User, identity: s.opts.Identity}
	ss.algs, err = negotiate(ki, serverInit)
	if err != nil {
		return ss, fmt.Errorf("negotiating with the server (RFC 4253 §7.1): %v", err)
	}
	return ss, nil
}

// run runs one case on a fresh connection (the honest exchange on as
// many as it takes), and writes its transcript if asked to.
func (s *serverChecker) run(ctx context.Context, m *method, cs serverCase) Result {
	start := time.Now()
	r := Result{Method: m.name, Case: cs.id, Clause: cs.clause, Expected: cs.expect}
	s.interrupted.Store(false)
	if s.opts.TranscriptDir != "" {
		s.rec = newRecorder()
		defer func() { s.rec = nil }()
	}
	cs.run(ctx, s, m, &r)
	if s.interrupted.Load() {
		// The verdict, if any, is of a connection we closed ourselves.
		r = Result{Method: m.name, Case: cs.id, Clause: cs.clause, Expected: cs.expect, Attempts: r.Attempts, Verdict: NotRun,
			Detail: "the run ended during this case: " + s.ended(ctx).Error()}
	}
	r.finish(start)
	if s.rec != nil {
		info := transcriptInfo{tool: s.opts.Tool, role: "server under test; pqkex check is the client", peer: s.opts.Addr}
		if path, err := s.rec.write(s.opts.TranscriptDir, info, &r); err != nil {
			s.notice("writing the transcript of " + m.name + " " + cs.id + ": " + err.Error())
		} else {
			r.Transcript = path
		}
	}
	return r
}

// ended says why the run's context is done: its deadline or the caller's
// end (an interrupt).
func (s *serverChecker) ended(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the check reached its deadline (%v)", s.opts.Deadline)
	}
	return errors.New("the check was interrupted")
}

// watch returns nc closing itself when ctx is done, so that the end of
// the run (its deadline, or an interrupt) ends a read or write in flight
// at once instead of after the connection's timeout.
func (s *serverChecker) watch(ctx context.Context, nc net.Conn) net.Conn {
	stop := context.AfterFunc(ctx, func() {
		s.interrupted.Store(true)
		nc.Close()
	})
	return &watchedConn{Conn: nc, stop: stop}
}

// watchedConn is a connection that ctx closes (serverChecker.watch); its
// Close stops the watch.
type watchedConn struct {
	net.Conn
	stop func() bool
}

func (c *watchedConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// Pacing for servers that refuse a source after many connections that do
// not authenticate (OpenSSH 9.8 and later: PerSourcePenalties, by default
// one second of penalty per such connection, refusing the source once 15
// have built up, and the penalty decays in real time): a connection reset
// or closed before the server's identification line is taken for such a
// refusal; the check then waits for it to lift (retrying at penaltyRetry
// for up to penaltyWait) and from then on leaves pacePause between
// connections, which keeps the penalty from building up again.
const (
	pacePause    = 1100 * time.Millisecond
	penaltyRetry = 2 * time.Second
	penaltyWait  = 2 * time.Minute
)

// PacePause is pacePause, for callers estimating a run's time.
const PacePause = pacePause

// connect dials the server, sends our identification line and reads its
// own, after the pause between connections; a refusal that looks like a
// penalty on this source is waited out (see pacePause).
func (s *serverChecker) connect(ctx context.Context) (*conn, string, error) {
	var waited time.Duration
	for {
		if s.dialed && s.pause > 0 {
			select {
			case <-time.After(s.pause):
			case <-ctx.Done():
				return nil, "", s.ended(ctx)
			}
		}
		s.dialed = true
		nc, err := s.opts.Dial(ctx, s.opts.Addr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", s.ended(ctx)
			}
			return nil, "", err
		}
		nc = s.watch(ctx, nc)
		end := time.Now().Add(s.opts.Timeout)
		if !s.caseEnd.IsZero() && s.caseEnd.Before(end) {
			end = s.caseEnd
		}
		nc.SetDeadline(end)
		c := newConn(nc)
		c.deadline = end
		if s.rec != nil {
			s.rec.attach(c, s.opts.Addr)
		}
		if err := c.writeVersion(s.ident()); err != nil {
			nc.Close()
			return nil, "", fmt.Errorf("sending the identification line: %v", err)
		}
		peer, err := c.readVersion()
		if err == nil {
			if waited > 0 {
				s.notice(fmt.Sprintf("the server accepts connections again after %v", waited.Round(time.Second)))
			}
			s.connsLeft = max(s.connsLeft-1, 0)
			return c, peer, nil
		}
		nc.Close()
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("%v before the server's identification line", s.ended(ctx))
		}
		if classify(err) != evClosed || s.opts.NoPacing || waited >= penaltyWait {
			return nil, "", fmt.Errorf("reading the server's identification line (RFC 4253 §4.2): %v", err)
		}
		if waited == 0 {
			msg := "the server closed a connection before its identification line, as OpenSSH's PerSourcePenalties does to a " +
				"source with many connections that do not authenticate: waiting for the penalty to lift"
			if s.pause < pacePause {
				s.pause = pacePause
				msg += fmt.Sprintf(", then leaving %v between connections (about %v more for this run)", pacePause,
					(time.Duration(max(s.connsLeft, s.casesLeft)) * pacePause).Round(time.Second))
			}
			s.notice(msg + " (-pause sets the pause; -no-pacing turns this off)")
		}
		select {
		case <-time.After(penaltyRetry):
			waited += penaltyRetry
		case <-ctx.Done():
			return nil, "", s.ended(ctx)
		}
		s.dialed = false // the wait was the pause
	}
}

func (s *serverChecker) notice(msg string) {
	if s.opts.Notice != nil {
		s.opts.Notice(msg)
	}
}

// ident is the identification line the check sends.
func (s *serverChecker) ident() string {
	if s.opts.Ident == "" {
		return clientIdents[0]
	}
	return s.opts.Ident
}

// open starts a session negotiating m (after extra, which the server must
// not have) with strict key exchange offered, or records why it could not.
func (s *serverChecker) open(ctx context.Context, m *method, r *Result, firstKexFollows bool, extra ...string) *session {
	r.Attempts++
	kex := append(slices.Clone(extra), m.name)
	for _, name := range append(Methods(), otherKex...) {
		if !slices.Contains(kex, name) {
			kex = append(kex, name)
		}
	}
	kex = append(kex, strictClient)
	ss, err := s.start(ctx, kex, firstKexFollows)
	if err != nil {
		if ss != nil {
			ss.c.nc.Close()
		}
		r.Verdict, r.Detail = NotRun, err.Error()
		return nil
	}
	if ss.algs.kex != m.name {
		ss.c.nc.Close()
		r.Verdict, r.Detail = NotRun, "negotiated "+ss.algs.kex+", not "+m.name
		return nil
	}
	return ss
}

// describe says what an event is, for details.
func describe(ev event) string {
	switch ev.kind {
	case evPacket:
		return "message " + messageName(ev.payload[0])
	case evDisconnect:
		return fmt.Sprintf("SSH_MSG_DISCONNECT %d (%s) %s", ev.reason, reasonName(ev.reason), sshwire.Quote(ev.text, 200))
	case evClosed:
		return "the connection closed without SSH_MSG_DISCONNECT"
	case evTimeout:
		return "nothing before the timeout"
	}
	return "malformed input: " + sshwire.Printable(ev.err.Error(), 200)
}

var messageNames = map[byte]string{
	msgDisconnect: "SSH_MSG_DISCONNECT", msgIgnore: "SSH_MSG_IGNORE", msgUnimplemented: "SSH_MSG_UNIMPLEMENTED",
	msgDebug: "SSH_MSG_DEBUG", msgServiceRequest: "SSH_MSG_SERVICE_REQUEST", msgServiceAccept: "SSH_MSG_SERVICE_ACCEPT",
	msgExtInfo: "SSH_MSG_EXT_INFO", msgUserAuthRequest: "SSH_MSG_USERAUTH_REQUEST", sshwire.MsgKexInit: "SSH_MSG_KEXINIT", msgNewKeys: "SSH_MSG_NEWKEYS",
	sshwire.MsgKexECDHInit: "SSH_MSG_KEX_ECDH_INIT", sshwire.MsgKexECDHReply: "SSH_MSG_KEX_ECDH_REPLY",
	msgUserAuthFailure: "SSH_MSG_USERAUTH_FAILURE", msgUserAuthSuccess: "SSH_MSG_USERAUTH_SUCCESS", msgUserAuthBanner: "SSH_MSG_USERAUTH_BANNER",
	msgGlobalRequest: "SSH_MSG_GLOBAL_REQUEST", msgRequestSuccess: "SSH_MSG_REQUEST_SUCCESS", msgRequestFailure: "SSH_MSG_REQUEST_FAILURE",
}

func messageName(b byte) string {
	if n, ok := messageNames[b]; ok {
		return n
	}
	return fmt.Sprintf("%d", b)
}

// decide records the verdict of an abort-expected case from the event
// that answered the bad message: a reply is non-conformant.
func decide(r *Result, ev event, replyMsg byte) {
	switch ev.kind {
	case evDisconnect:
		r.Verdict = Rejected
		r.DisconnectReason = ev.reason
		r.DisconnectMessage = sshwire.Printable(ev.text, 200)
	case evClosed:
		r.Verdict = Closed
	case evTimeout:
		r.Verdict = Hung
	case evMalformed:
		r.Verdict = Malformed
	case evPacket:
		if ev.payload[0] == replyMsg {
			r.Verdict = Replied
			if replyMsg == msgNewKeys {
				r.Verdict = Accepted
			}
		} else {
			r.Verdict = Ignored
		}
	}
	r.Detail = describe(ev)
}

// silentIf marks r, decided from what the peer did where due was its
// next message of the key exchange (a reply, SSH_MSG_NEWKEYS), as the
// finding kex-silent if the peer did nothing before the timeout: it
// negotiated the method and then neither went on nor ended the
// connection (tailscale#20047: a server that lists
// mlkem768x25519-sha256 and never answers it). The verdict stays Hung.
func silentIf(r *Result, due string) {
	if r.Verdict != Hung {
		return
	}
	r.Finding = silentFinding
	r.Detail += " (no " + due + ", no SSH_MSG_DISCONNECT, no end of the connection: the peer negotiated " + r.Method + ", then went silent)"
}

// errNotHonest marks an honest exchange that failed; the result says how.
var errNotHonest = errors.New("honest exchange failed")
