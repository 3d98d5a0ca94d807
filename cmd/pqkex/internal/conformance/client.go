package conformance

// Checking a client: pqkex plays the server and answers each connection
// with the next case.

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// ClientOptions configure CheckClients.
type ClientOptions struct {
	// Listener is where clients connect; CheckClients closes it.
	Listener net.Listener
	// Methods are the key exchanges whose cases run (default: all).
	Methods []string
	// HostKeys are the server's host keys (default: a new Ed25519 and a
	// new ECDSA P-256 key). The host-key-mismatch case signs with another
	// key of the same type.
	HostKeys []ssh.Signer
	// Timeout bounds each connection (default 10 s).
	Timeout time.Duration
	// Idle ends the run when the client under test runs no case for this
	// long (0: never; the run ends when every case has run or ctx is
	// done). Connections of other clients, and connections that are not
	// SSH, do not count as activity.
	Idle time.Duration
	// ClientAddr and ClientVersion select the client under test: the
	// source IP address its connections come from, and its identification
	// line (RFC 4253 §4.2), compared exactly. Empty: those of the first
	// client that sends an identification line. Connections from another
	// address or with another line take no case; once the address is
	// known (given, or fixed by the first client), a connection from
	// another address is closed as it is accepted, before it takes one of
	// the maxConcurrent slots.
	ClientAddr, ClientVersion string
	// Progress, if set, is called with each result as it is known.
	Progress func(Result)
	// Log, if set, receives a line for each connection that ran no case
	// (peer bytes escaped).
	Log func(string)
	// Notice, if set, is told the methods the client under test offers
	// once its first KEXINIT is read, and how many cases that leaves.
	// Progress, Log and Notice are called from the cases' goroutines,
	// one call at a time.
	Notice func(string)

	// Cases, if set, are the only cases run: "METHOD/CASE", or "CASE"
	// for that case of every method (ParseCases checks them).
	Cases []string
	// TranscriptDir, if set, is where each case's transcript is written,
	// as TranscriptDir/METHOD/CASE.txt (transcript.go; Result.Transcript
	// names it); Tool names the program in its header.
	TranscriptDir, Tool string

	only []string // the case ids to run (nil: all), for tests
}

// maxConcurrent bounds the connections served at once: a connection that
// says nothing holds one slot until its timeout, not the whole run.
const maxConcurrent = 16

// ClientReport is what CheckClients found.
type ClientReport struct {
	Addr string `json:"listen"`
	// Client is the client under test: its address and identification
	// line, escaped.
	ClientAddr    string `json:"client_addr,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	// Versions are the identification lines of the clients that ran a
	// case (the client under test's), escaped.
	Versions []string `json:"peer_versions"`
	Methods  []string `json:"methods"`
	Results  []Result `json:"results"`
	// Refused counts the connections that took no case because they came
	// from another client.
	Refused int `json:"refused_connections"`
	// Offered is the key exchange list of the client under test's first
	// KEXINIT, escaped; nil if none was read. A client that offers none
	// of Methods ends the run at its first KEXINIT: each method is then
	// one NotApplicable result.
	Offered []string `json:"kex_offered,omitempty"`
}

// pending is a case waiting for a client.
type pending struct {
	m  *method
	cs clientCase
}

// schedule is the cases of a CheckClients run: free, taken by a
// connection that runs it, or done. Its methods are safe for concurrent
// use.
type schedule struct {
	mu      sync.Mutex
	queue   []pending
	taken   []bool
	done    []bool
	results []caseResult
	left    int
	learned bool     // the client under test's key exchanges are known
	offered []string // and they are these (escaped)
	notice  func(string)
	// transcripts: each connection keeps a transcript (see serveCase).
	transcripts bool
}

func newSchedule(queue []pending) *schedule {
	return &schedule{queue: queue, taken: make([]bool, len(queue)), done: make([]bool, len(queue)),
		results: make([]caseResult, len(queue)), left: len(queue)}
}

// offer is the methods with free cases, in queue order.
func (s *schedule) offer() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for i, p := range s.queue {
		if !s.taken[i] && !s.done[i] && !slices.Contains(names, p.m.name) {
			names = append(names, p.m.name)
		}
	}
	return names
}

// take reserves the first free case of the key exchange kex.
func (s *schedule) take(kex string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.queue {
		if !s.taken[i] && !s.done[i] && p.m.name == kex {
			s.taken[i] = true
			return i, true
		}
	}
	return -1, false
}

// release frees case i, taken by a connection that did not run it.
func (s *schedule) release(i int) {
	s.mu.Lock()
	s.taken[i] = false
	s.mu.Unlock()
}

// remaining is the number of cases not done.
func (s *schedule) remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.left
}

// learn restricts the run, on the first call, to the key exchanges the
// client under test offers in its KEXINIT: the other methods' cases are
// not applicable. It says what is left through s.notice.
func (s *schedule) learn(clientKex []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.learned {
		return
	}
	s.learned = true
	s.offered = []string{}
	for _, k := range clientKex {
		s.offered = append(s.offered, sshwire.Printable(k, 64))
	}
	var lacks, has []string
	for i, p := range s.queue {
		if slices.Contains(clientKex, p.m.name) {
			if !slices.Contains(has, p.m.name) {
				has = append(has, p.m.name)
			}
			continue
		}
		if !slices.Contains(lacks, p.m.name) {
			lacks = append(lacks, p.m.name)
		}
		if !s.done[i] && !s.taken[i] {
			s.done[i] = true
			s.results[i] = caseResult{Result: Result{Method: p.m.name, Case: AllCases, Verdict: NotApplicable,
				Detail: "the client does not offer " + p.m.name}}
			s.left--
		}
	}
	if s.notice == nil {
		return
	}
	if len(has) == 0 {
		s.notice("the client offers none of the methods checked (" + strings.Join(lacks, ", ") + "): no case can run; the run ends")
		return
	}
	msg := fmt.Sprintf("the client offers %d of the methods: %s; %d cases, one connection each", len(has), strings.Join(has, ", "), s.left)
	if len(lacks) > 0 {
		msg += "; not applicable: " + strings.Join(lacks, ", ")
	}
	s.notice(msg)
}

// complete records case i's result and returns how many cases are left.
func (s *schedule) complete(i int, r caseResult) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken[i], s.done[i], s.results[i] = false, true, r
	s.left--
	return s.left
}

// binding is the client under test: the address and identification line
// that the first client to send one fixes, unless given.
type binding struct {
	mu            sync.Mutex
	addr, version string
}

// admit reports whether a connection from ip with identification line
// version is the client under test's, fixing them on the first call.
func (b *binding) admit(ip, version string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.addr == "" {
		b.addr = ip
	}
	if b.version == "" {
		b.version = version
	}
	return ip == b.addr && version == b.version
}

// other reports whether a connection from ip is another client's, by
// its address alone: false until the address of the client under test
// is known.
func (b *binding) other(ip string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addr != "" && ip != b.addr
}

// CheckClients answers each client that connects to opts.Listener with
// the next case of the method negotiated (the client's first preference
// among the methods with cases left), one case per connection, until
// every case has run, opts.Idle passes without a case run, or ctx is
// done. Connections are served concurrently (at most maxConcurrent), and
// only those of the client under test (opts.ClientAddr, ClientVersion)
// take cases. Cases that did not run are reported with the verdict
// NotRun.
func CheckClients(ctx context.Context, opts ClientOptions) (*ClientReport, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	names := opts.Methods
	if len(names) == 0 {
		names = Methods()
	}
	var queue []pending
	for _, name := range names {
		m := lookupMethod(name)
		if m == nil {
			return nil, fmt.Errorf("pqkex check does not know the key exchange %q", name)
		}
		for _, cs := range clientCases(m) {
			if (opts.only == nil || slices.Contains(opts.only, cs.id)) && selected(opts.Cases, m.name, cs.id) {
				queue = append(queue, pending{m, cs})
			}
		}
	}
	keys, err := newHostKeys(opts.HostKeys)
	if err != nil {
		return nil, err
	}
	rep := &ClientReport{Addr: opts.Listener.Addr().String(), Methods: names}
	serializeCallbacks(&opts)
	sched := newSchedule(queue)
	sched.notice = opts.Notice
	if ip := net.ParseIP(opts.ClientAddr); ip != nil {
		opts.ClientAddr = ip.String() // as hostOf writes it
	}
	sched.transcripts = opts.TranscriptDir != ""
	bind := &binding{addr: opts.ClientAddr, version: opts.ClientVersion}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { opts.Listener.Close() })
	defer stop()
	type outcome struct {
		idx  int
		r    caseResult
		line string
	}
	outcomes := make(chan outcome)
	slots := make(chan struct{}, maxConcurrent)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer opts.Listener.Close()
	wg.Add(1) // the accept loop, so that wg never reaches zero while it may add
	go func() {
		defer wg.Done()
		for {
			nc, err := opts.Listener.Accept()
			if err != nil {
				return
			}
			if from := hostOf(nc.RemoteAddr()); bind.other(from) {
				// Not the client under test's address: closed before it
				// can hold a slot, so that other sources cannot crowd the
				// client under test out.
				nc.Close()
				o := outcome{-1, caseResult{err: errNotUnderTest}, nc.RemoteAddr().String() + ": no case ran: refused: " + from + " is not the client under test's address"}
				select {
				case outcomes <- o:
				case <-ctx.Done():
					return
				}
				continue
			}
			select {
			case slots <- struct{}{}:
			default:
				nc.Close() // too many at once: a client under test retries
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				// The run's end closes connections still open (a client
				// that never speaks does not keep the run waiting).
				defer context.AfterFunc(ctx, func() { nc.Close() })()
				i, r, line := serveCase(nc, sched, keys, opts.Timeout, bind.admit)
				select {
				case outcomes <- outcome{i, r, line}:
				case <-ctx.Done():
					if i >= 0 {
						sched.release(i)
					}
				}
			}()
		}
	}()
	var idle <-chan time.Time
	resetIdle := func() {
		if opts.Idle > 0 {
			idle = time.After(opts.Idle)
		}
	}
	resetIdle()
	for sched.remaining() > 0 {
		var o outcome
		select {
		case o = <-outcomes:
		case <-idle:
			cancel()
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if o.idx < 0 {
			if errors.Is(o.r.err, errNotUnderTest) {
				rep.Refused++
			}
			if opts.Log != nil {
				opts.Log(o.line)
			}
			continue
		}
		if o.r.rec != nil {
			info := transcriptInfo{tool: opts.Tool, role: "client under test; pqkex check is the server"}
			if path, err := o.r.rec.write(opts.TranscriptDir, info, &o.r.Result); err != nil {
				if opts.Log != nil {
					opts.Log("writing the transcript of " + o.r.Method + " " + o.r.Case + ": " + err.Error())
				}
			} else {
				o.r.Transcript = path
			}
			o.r.rec = nil
		}
		sched.complete(o.idx, o.r)
		resetIdle()
		if v := sshwire.Printable(o.r.peer, 255); !slices.Contains(rep.Versions, v) {
			rep.Versions = append(rep.Versions, v)
		}
		if opts.Progress != nil {
			opts.Progress(o.r.Result)
		}
	}
	cancel()
	rep.ClientAddr, rep.ClientVersion = bind.addr, sshwire.Printable(bind.version, 255)
	sched.mu.Lock()
	defer sched.mu.Unlock()
	rep.Offered = sched.offered
	for i, p := range queue {
		r := sched.results[i]
		switch {
		case !sched.done[i]:
			r.Result = Result{Method: p.m.name, Case: p.cs.id, Clause: p.cs.clause, Expected: p.cs.expect, Verdict: NotRun,
				Detail: "no client that offers " + p.m.name + " connected for this case"}
		case r.Case == AllCases && slices.ContainsFunc(rep.Results, func(x Result) bool { return x.Method == p.m.name && x.Case == AllCases }):
			continue // one row for a method the client does not offer
		}
		rep.Results = append(rep.Results, r.Result)
	}
	return rep, nil
}

// errNotUnderTest marks a connection from another client than the one
// under test.
var errNotUnderTest = errors.New("not the client under test")

// caseResult is a result with the identification line of the client.
type caseResult struct {
	Result
	peer string
	err  error     // why no case ran, for connections that ran none
	rec  *recorder // its transcript, if sched.transcripts
}

// hostKeys are the server's keys by algorithm, and one other key of each
// type (for host-key-mismatch).
type hostKeys struct {
	algos  []string
	signer map[string]ssh.AlgorithmSigner
	other  map[string]ssh.AlgorithmSigner
}

func newHostKeys(given []ssh.Signer) (*hostKeys, error) {
	gen := func(typ string) (ssh.Signer, error) {
		var priv any
		var err error
		switch typ {
		case ssh.KeyAlgoED25519:
			_, priv, err = ed25519.GenerateKey(rand.Reader)
		case ssh.KeyAlgoECDSA256:
			priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		case ssh.KeyAlgoECDSA384:
			priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		case ssh.KeyAlgoECDSA521:
			priv, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
		case ssh.KeyAlgoRSA:
			priv, err = rsa.GenerateKey(rand.Reader, 3072)
		default:
			return nil, fmt.Errorf("cannot make a host key of type %s for host-key-mismatch", typ)
		}
		if err != nil {
			return nil, err
		}
		return ssh.NewSignerFromKey(priv)
	}
	if len(given) == 0 {
		for _, typ := range []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256} {
			s, err := gen(typ)
			if err != nil {
				return nil, err
			}
			given = append(given, s)
		}
	}
	hk := &hostKeys{signer: map[string]ssh.AlgorithmSigner{}, other: map[string]ssh.AlgorithmSigner{}}
	for _, s := range given {
		as, ok := s.(ssh.AlgorithmSigner)
		if !ok {
			return nil, errors.New("a host key is not an ssh.AlgorithmSigner")
		}
		typ := s.PublicKey().Type()
		other, err := gen(typ)
		if err != nil {
			return nil, err
		}
		algos := []string{typ}
		if typ == ssh.KeyAlgoRSA {
			algos = []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256}
		}
		for _, a := range algos {
			hk.algos = append(hk.algos, a)
			hk.signer[a] = as
			hk.other[a] = other.(ssh.AlgorithmSigner)
		}
	}
	return hk, nil
}

// serveCase runs the SSH transport as a server on nc up to the client's
// SSH_MSG_KEX_ECDH_INIT, offering the methods with free cases in sched,
// and runs the next case of the method negotiated. admit (nil: any)
// decides from the client's address and identification line whether it
// is the client under test. It returns the case's index and result, or
// -1 and a log line when the connection ran no case (the case it took,
// if any, is released).
func serveCase(nc net.Conn, sched *schedule, keys *hostKeys, timeout time.Duration, admit func(ip, version string) bool) (idx int, r caseResult, logLine string) {
	defer nc.Close()
	start := time.Now()
	nc.SetDeadline(start.Add(timeout))
	from := nc.RemoteAddr().String()
	c := newConn(nc)
	c.deadline = start.Add(timeout)
	var rec *recorder
	if sched.transcripts {
		rec = newRecorder()
		rec.attach(c, from)
	}
	idx = -1
	noCase := func(format string, args ...any) (int, caseResult, string) {
		if idx >= 0 {
			sched.release(idx)
		}
		return -1, caseResult{}, from + ": no case ran: " + fmt.Sprintf(format, args...)
	}
	if err := c.writeVersion(version); err != nil {
		return noCase("sending the identification line: %v", err)
	}
	peer, err := c.readVersion()
	if err != nil {
		return noCase("reading the client's identification line: %s", sshwire.Printable(err.Error(), 200))
	}
	if admit != nil && !admit(hostOf(nc.RemoteAddr()), peer) {
		c.write(disconnectMsg(12, "pqkex check: this run is testing another client"))
		i, r, line := noCase("%s is not the client under test", sshwire.Printable(peer, 255))
		r.err = errNotUnderTest
		return i, r, line
	}
	// Our KEXINIT offers every method with cases left (the client's
	// preference picks one, RFC 4253 §7.1), so that it need not wait for
	// the client's: some clients read the server's first.
	offer := sched.offer()
	if len(offer) == 0 {
		return noCase("no case left to run")
	}
	ki := newKexInit(append(offer, strictServer), keys.algos)
	ours, theirs, clientInit, err := c.exchangeKexInit(ki, "client")
	if err != nil {
		return noCase("%v", err)
	}
	// Before negotiating: a client that offers none of the methods must
	// end the run here rather than be asked again and again.
	sched.learn(clientInit.KexAlgos)
	algs, err := negotiate(clientInit, ki)
	if err != nil {
		c.write(disconnectMsg(3, "pqkex check: "+err.Error()+" (offered: key exchanges with cases left)"))
		return noCase("negotiating with %s: %v", sshwire.Printable(peer, 255), err)
	}
	if clientInit.FirstKexFollows && (clientInit.KexAlgos[0] != ki.KexAlgos[0] || clientInit.HostKeyAlgos[0] != ki.HostKeyAlgos[0]) {
		// The client guessed wrong and sends its guess's first key
		// exchange packet anyway: it must be ignored (RFC 4253 §7).
		if ev := c.next(algs.strict); ev.kind != evPacket {
			return noCase("waiting for the client's guessed key exchange packet: %s", describe(ev))
		}
	}
	var ok bool
	if idx, ok = sched.take(algs.kex); !ok { // taken meanwhile by another connection
		return noCase("negotiated %s, which has no case left", sshwire.Quote(algs.kex, 100))
	}
	p := sched.queue[idx]
	r = caseResult{Result: Result{Method: p.m.name, Case: p.cs.id, Clause: p.cs.clause, Expected: p.cs.expect, Attempts: 1,
		Peer: from + " " + sshwire.Printable(peer, 255)}, peer: peer, rec: rec}
	defer r.finish(start)
	ev := c.next(algs.strict)
	if ev.kind == evTimeout {
		// Negotiated, then silent: the case's finding, not a case
		// that could not run (it would wait for the next connection,
		// which a silent client makes silent again).
		r.Verdict, r.Detail = Hung, "after negotiating, the client sent "+describe(ev)+" where its SSH_MSG_KEX_ECDH_INIT was due"
		silentIf(&r.Result, "SSH_MSG_KEX_ECDH_INIT")
		return idx, r, ""
	}
	if ev.kind != evPacket || ev.payload[0] != sshwire.MsgKexECDHInit {
		return noCase("%s sent %s instead of SSH_MSG_KEX_ECDH_INIT", sshwire.Printable(peer, 255), describe(ev))
	}
	qc, err := sshwire.ParseKexECDHInit(ev.payload)
	if err != nil {
		r.Verdict, r.Detail = Malformed, "the client's SSH_MSG_KEX_ECDH_INIT: "+err.Error()
		return idx, r, ""
	}
	t := &transcript{m: p.m, peer: peer, theirs: theirs, ours: ours, qc: qc, algo: algs.hostKey,
		shown: keys.signer[algs.hostKey], signer: keys.signer[algs.hostKey], c: c}
	k, H, err := p.cs.reply(t, keys.other[algs.hostKey])
	if err != nil {
		r.Verdict, r.Detail = Failed, err.Error()
		if errors.Is(err, errCannotRun) {
			r.Verdict = NotRun
		}
		return idx, r, ""
	}
	defer clear(k)
	defer clear(t.kSigned)
	if err := c.write(t.replyMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_KEX_ECDH_REPLY: "+err.Error()
		return idx, r, ""
	}
	if err := c.write([]byte{msgNewKeys}); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_NEWKEYS: "+err.Error()
		return idx, r, ""
	}
	ev = c.next(algs.strict)
	if p.cs.session == nil && p.cs.resume == nil {
		judgeRejection(c, algs, t, H, ev, &r.Result)
		r.Detail = "sent " + p.cs.what + "; got " + r.Detail
		return idx, r, ""
	}
	// The honest exchange, and the cases that need it to complete first:
	// the client's SSH_MSG_NEWKEYS, then its first encrypted packet under
	// keys from K and H.
	if ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		decide(&r.Result, ev, msgNewKeys)
		if r.Verdict != Hung {
			r.Verdict = Failed
		}
		r.Detail = "an honest KEX_ECDH_REPLY got " + r.Detail
		silentIf(&r.Result, "SSH_MSG_NEWKEYS")
		return idx, r, ""
	}
	if algs.strict {
		c.readSeq, c.writeSeq = 0, 0
	}
	if c.in, err = c.cipher(algs, p.m.hash, k, H, H, sshwire.ClientToServer); err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return idx, r, ""
	}
	if c.out, err = c.cipher(algs, p.m.hash, k, H, H, sshwire.ServerToClient); err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return idx, r, ""
	}
	if p.cs.resume != nil {
		p.cs.resume(&reexchange{c: c, algs: algs, t: t, sessionID: H}, &r.Result)
	} else {
		p.cs.session(c, algs, &r.Result)
	}
	c.write(disconnectMsg(11, "pqkex check: case complete"))
	return idx, r, ""
}

// judgeRejection decides a case whose reply the client must refuse (or,
// for ExpectEither, may take) from ev, what the client did after our
// KEX_ECDH_REPLY and SSH_MSG_NEWKEYS. SSH_MSG_NEWKEYS alone does not
// show the client took the reply: some clients (libssh 0.12) send it
// before they check the host key signature and abort after. So on
// SSH_MSG_NEWKEYS the next packet decides, read under the keys of the K
// and H that the reply was signed with (the keys a client that skipped
// the check derives): a packet is going on (Accepted), an end of the
// connection is a refusal, later than it could be (noted in the detail).
func judgeRejection(c *conn, algs algorithms, t *transcript, H []byte, ev event, r *Result) {
	if ev.kind != evPacket || ev.payload[0] != msgNewKeys {
		decide(r, ev, msgNewKeys)
		silentIf(r, "SSH_MSG_NEWKEYS")
		return
	}
	if algs.strict {
		c.readSeq = 0
	}
	c.note("the client sent SSH_MSG_NEWKEYS: its next packet is read under the keys of the K the reply was signed with")
	in, err := c.cipher(algs, t.m.hash, t.kSigned, H, H, sshwire.ClientToServer)
	if err != nil {
		r.Verdict, r.Detail = NotRun, err.Error()
		return
	}
	c.in = in
	next := c.next(false)
	switch {
	case next.kind == evPacket:
		r.Verdict = Accepted
		r.Detail = "SSH_MSG_NEWKEYS, then " + describe(next) + " under the keys of the K the reply was signed with: the client went on"
	case next.kind == evMalformed:
		// A packet not under the keys of the K the reply was signed
		// with: the client computed another K, and either went on with
		// it (then it waits for our answer to its request) or sent
		// SSH_MSG_DISCONNECT under its keys (then it closes).
		if closes(c) {
			r.Verdict = Closed
			r.Detail = "SSH_MSG_NEWKEYS, then a packet not under the keys of the K the reply was signed with (an SSH_MSG_DISCONNECT under the client's own keys?), then the connection closed"
			r.Note = "a late refusal: the client sent SSH_MSG_NEWKEYS before it had checked the reply, then ended the connection before using the new keys"
			return
		}
		r.Verdict = Accepted
		r.Detail = "SSH_MSG_NEWKEYS, then a packet not under the keys of the K the reply was signed with, and the connection stayed open: the client went on with keys of its own"
	default:
		decide(r, next, msgNewKeys)
		r.Detail = "SSH_MSG_NEWKEYS, then " + r.Detail + " before any packet under the new keys"
		if r.Verdict == Rejected || r.Verdict == Closed {
			r.Note = "a late refusal: the client sent SSH_MSG_NEWKEYS before it had checked the reply, then ended the connection before using the new keys"
		}
	}
}

// hostOf is the IP address of a connection's remote end.
func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// closes reports whether the peer closes the connection (before the
// deadline, having sent at most 64 KiB more), what a client does once it
// has sent SSH_MSG_DISCONNECT; one that went on waits for an answer.
func closes(c *conn) bool {
	buf := make([]byte, 4096)
	c.src.reset()
	defer func() {
		if c.rec != nil {
			c.rec.record('<', fmt.Sprintf("the bytes that followed, read without framing until the connection ended or 64 KiB, %d", len(c.src.kept)), c.src.kept)
		}
	}()
	for c.src.n < 64<<10 {
		if _, err := c.src.Read(buf); err != nil {
			return classify(err) == evClosed
		}
	}
	return false
}

// readServiceRequest reads the client's first packet under the new keys,
// which must be SSH_MSG_SERVICE_REQUEST protected with the
// client-to-server keys from K and H; otherwise it records the failure in
// r and returns false.
func readServiceRequest(c *conn, r *Result) bool {
	ev := c.next(false)
	switch {
	case ev.kind == evPacket && ev.payload[0] == msgServiceRequest:
		return true
	case ev.kind == evMalformed && errors.Is(ev.err, sshwire.ErrPacketAuth):
		r.Verdict, r.Detail = Failed, "the client's first encrypted packet does not authenticate under the client-to-server keys derived from K and H (RFC 4253 §7.2)"
	default:
		r.Verdict, r.Detail = Failed, "after SSH_MSG_NEWKEYS the client sent "+describe(ev)+", not SSH_MSG_SERVICE_REQUEST"
	}
	return false
}

// serviceAcceptMsg is SSH_MSG_SERVICE_ACCEPT for ssh-userauth (RFC 4253 §10).
var serviceAcceptMsg = sshwire.AppendString([]byte{msgServiceAccept}, []byte("ssh-userauth"))

// honestSession is the honest case after the key exchange: the client's
// SSH_MSG_SERVICE_REQUEST under the client-to-server keys, our
// SSH_MSG_SERVICE_ACCEPT under the server-to-client keys, and the
// client's next message, SSH_MSG_USERAUTH_REQUEST (RFC 4252 §5), which a
// client sends only once it has decrypted and authenticated the accept:
// one that could not (server-to-client keys not derived from K and H, as
// RFC 4253 §7.2 requires) ends the connection instead. That the client
// checks the packet's MAC at all is shown by the case packet-tampered,
// which sends the same accept with one bit of its MAC flipped.
func honestSession(c *conn, algs algorithms, r *Result) {
	if !readServiceRequest(c, r) {
		return
	}
	if err := c.write(serviceAcceptMsg); err != nil {
		r.Verdict, r.Detail = NotRun, "sending SSH_MSG_SERVICE_ACCEPT: "+err.Error()
		return
	}
	ev := c.next(false)
	if ev.kind != evPacket || ev.payload[0] != msgUserAuthRequest {
		r.Verdict, r.Detail = Failed, "to our SSH_MSG_SERVICE_ACCEPT, protected with the server-to-client keys from K and H, the client answered "+
			describe(ev)+", not SSH_MSG_USERAUTH_REQUEST: it did not derive those keys as RFC 4253 §7.2 says"
		return
	}
	r.Verdict = Completed
	r.Detail = fmt.Sprintf("the client accepted the %s signature over H; it sent SSH_MSG_NEWKEYS and SSH_MSG_SERVICE_REQUEST protected with "+
		"the client-to-server keys from K and H, and answered our SSH_MSG_SERVICE_ACCEPT under the server-to-client keys (%s) "+
		"with SSH_MSG_USERAUTH_REQUEST", algs.hostKey, algs.cipherSC)
}

// tamperedSession is the case packet-tampered after the key exchange: as
// honestSession, but the SSH_MSG_SERVICE_ACCEPT has the last bit of its
// MAC (or AEAD tag) flipped, which the client must not take. RFC 4253
// does not require a client whose server authenticated explicitly (by a
// signature) to wait for the accept before SSH_MSG_USERAUTH_REQUEST, and
// some (dropbear's dbclient) send it at once: so before the forged packet
// the client is given pipelineWait to send what it sends unprompted.
// Waiting takes nothing from the stream (conn.waitData): a client that
// waits for the accept and answers the forged one with
// SSH_MSG_DISCONNECT sends it under its new keys (RFC 4253 §7.3: "All
// messages sent after this message MUST use the new keys and
// algorithms"), and it must be read with the next sequence number.
//
// A client that sent nothing must end the connection instead of
// answering the forged accept with SSH_MSG_USERAUTH_REQUEST. A client
// that did send (its request is out, it waits for the answer) would not
// show whether it took a forged accept: the forged packet it gets is
// SSH_MSG_GLOBAL_REQUEST keepalive@openssh.com with want reply, which a
// client that takes it answers (RFC 4254 §4: SSH_MSG_REQUEST_SUCCESS or
// _FAILURE; or SSH_MSG_UNIMPLEMENTED naming it, RFC 4253 §11.4). Either
// way, a client that neither answers nor ends the connection has not
// shown it took the packet: hung, with the finding packet-mac-silent
// (macSilent), not packet-mac.
func tamperedSession(c *conn, algs algorithms, r *Result) {
	if !readServiceRequest(c, r) {
		r.Verdict, r.Detail = NotRun, "the exchange before the tampered packet did not complete (see the honest case): "+r.Detail
		return
	}
	var early event
	pipelined := false
	if c.waitData(pipelineWait) {
		early = c.next(false)
		if early.kind != evPacket {
			decide(r, early, msgUserAuthRequest)
			r.Verdict, r.Detail = NotRun, "the client ended the connection before the tampered packet was sent: "+r.Detail
			return
		}
		pipelined = true
	}
	if !pipelined {
		if err := c.writeTampered(serviceAcceptMsg); err != nil {
			r.Verdict, r.Detail = NotRun, "sending the tampered SSH_MSG_SERVICE_ACCEPT: "+err.Error()
			return
		}
		decide(r, c.next(false), msgUserAuthRequest)
		if r.Verdict == Replied {
			r.Verdict = Accepted
		}
		r.Detail = "sent SSH_MSG_SERVICE_ACCEPT with one bit of its MAC flipped (" + algs.cipherSC + "); got " + r.Detail
		macSilent(r, "SSH_MSG_USERAUTH_REQUEST", "the accept with its MAC intact is answered with one (the honest case)")
		return
	}
	// The client sent early.payload before our accept: the forged
	// packet is one it must answer if it takes it.
	seq := c.writeSeq
	if err := c.writeTampered(keepaliveRequest); err != nil {
		r.Verdict, r.Detail = NotRun, "sending the tampered SSH_MSG_GLOBAL_REQUEST: "+err.Error()
		return
	}
	what := "sent SSH_MSG_GLOBAL_REQUEST keepalive@openssh.com (want reply) with one bit of its MAC flipped (" + algs.cipherSC +
		"), the client having sent " + messageName(early.payload[0]) + " without waiting for the accept, as RFC 4253 allows; got "
	ev := c.next(false)
	answer := ""
	for i := 0; ev.kind == evPacket && i < maxSkipped; i++ {
		if answer = keepaliveAnswer(ev.payload, seq); answer != "" {
			break
		}
		ev = c.next(false)
	}
	if answer != "" {
		r.Verdict, r.Detail = Accepted, what+answer+": the client took the forged request"
		return
	}
	decide(r, ev, 0)
	if r.Verdict == Ignored {
		r.Verdict = Hung // packets that answer nothing, then no end of the connection
		r.Detail = fmt.Sprintf("%d packets that do not answer the request, then no end of the connection", maxSkipped)
	}
	r.Detail = what + r.Detail
	macSilent(r, "answer to the request", "a client that takes the request answers it (RFC 4254 §4, RFC 4253 §11.4)")
}

// pipelineWait is how long packet-tampered waits for what a client sends
// after SSH_MSG_SERVICE_REQUEST without waiting for the accept.
const pipelineWait = 300 * time.Millisecond

// transcript is what goes into the exchange hash of one connection, and
// the KEX_ECDH_REPLY a case builds from it.
type transcript struct {
	m            *method
	peer         string // V_C
	theirs, ours []byte // I_C, I_S
	qc           []byte
	algo         string              // the negotiated host key algorithm
	shown        ssh.Signer          // K_S
	signer       ssh.AlgorithmSigner // signs H
	replyMsg     []byte
	kSigned      []byte // the K that H was computed with (secret)
	// c is the connection, for its record of the values derived; half
	// is the answer respondWhere picked (secret), recorded by sign.
	c    *conn
	half *serverHalf
}

// sign builds KEX_ECDH_REPLY with S_REPLY qs and H computed with kHashed
// as K, signed by t.signer, and returns H.
func (t *transcript) sign(qs, kHashed []byte) ([]byte, error) { return t.signAs(qs, qs, kHashed) }

// signAs is sign with an S_REPLY sent that is not the one hashed into H:
// the signature is the one a client that reads sent as hashed would
// verify (a wrong-length S_REPLY, clientcases.go).
func (t *transcript) signAs(sent, hashed, kHashed []byte) ([]byte, error) {
	ks := t.shown.PublicKey().Marshal()
	H := kexhash.ExchangeHash(t.m.hash, []byte(t.peer), []byte(version), t.theirs, t.ours, ks, t.qc, hashed, kHashed)
	t.kSigned = append(t.kSigned[:0], kHashed...)
	if t.c != nil && t.c.rec != nil {
		if h := t.half; h != nil {
			t.c.derived("our "+t.m.curve+" private key", h.priv.Bytes())
			t.c.derived("K_PQ", h.kPQ)
			t.c.derived("K_CL", h.kCL)
			k := t.m.combine(h.kPQ, h.kCL)
			t.c.derived("K = string(HASH(K_PQ || K_CL))", k)
			clear(k)
		}
		t.c.derived("K hashed into H, the one the reply is signed with", kHashed)
		t.c.derived("H", H)
	}
	sig, err := t.signer.SignWithAlgorithm(rand.Reader, H, t.algo)
	if err != nil {
		return nil, err
	}
	t.replyMsg = sshwire.AppendKexECDHReply(nil, ks, sent, ssh.Marshal(sig))
	return H, nil
}

// serializeCallbacks makes opts' callbacks take turns: cases run on
// goroutines of their own, and a caller's callbacks share its state.
func serializeCallbacks(opts *ClientOptions) {
	mu := new(sync.Mutex)
	if f := opts.Progress; f != nil {
		opts.Progress = func(r Result) { mu.Lock(); defer mu.Unlock(); f(r) }
	}
	for _, f := range []*func(string){&opts.Log, &opts.Notice} {
		if g := *f; g != nil {
			*f = func(s string) { mu.Lock(); defer mu.Unlock(); g(s) }
		}
	}
}
