package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	osuser "os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
	"golang.org/x/crypto/ssh"
)

// checkReport is what check prints with -json (the schema is in doc.go).
type checkReport struct {
	Schema  string `json:"schema"`
	Tool    string `json:"tool"`
	Role    string `json:"role"` // what was checked: "server" or "client"
	Target  string `json:"target,omitempty"`
	Listen  string `json:"listen,omitempty"`
	Version string `json:"peer_version,omitempty"`
	// Versions are the clients' identification lines (role client).
	Versions []string `json:"peer_versions,omitempty"`
	// ClientAddr and ClientVersion are the client under test (role
	// client); Refused counts other clients' connections.
	ClientAddr    string `json:"client_addr,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Refused       int    `json:"refused_connections,omitempty"`
	// Deadline bounds a server check; Ident is the identification line
	// it sent (role server).
	Deadline string `json:"deadline,omitempty"`
	Ident    string `json:"ident,omitempty"`
	// Offered is the peer's key exchange list (the server's, or the
	// client under test's first KEXINIT's), escaped.
	Offered []string            `json:"kex_offered,omitempty"`
	Strict  *bool               `json:"strict_kex,omitempty"`
	Methods []string            `json:"methods"`
	Results []checkResult       `json:"results"`
	Summary conformance.Summary `json:"summary"`
	Error   string              `json:"error,omitempty"`
	// Baselined lists the results ("METHOD CASE") whose finding the
	// -baseline file accepts.
	Baselined []string `json:"baselined,omitempty"`
	elapsed   time.Duration
	base      *baseline
}

// checkResult is a case's result as check reports it: with whether the
// -baseline file accepts its finding, and the entry that does ("FILE:LINE:
// ENTRY").
type checkResult struct {
	conformance.Result
	Accepted   bool   `json:"accepted,omitempty"`
	AcceptedBy string `json:"accepted_by,omitempty"`
}

// results wraps conformance results.
func results(rs []conformance.Result) []checkResult {
	out := make([]checkResult, len(rs))
	for i, r := range rs {
		out[i].Result = r
	}
	return out
}

const checkSchema = "pqkex-check/1"

// Exit statuses of check besides 0 (every case ran and conformed) and 2
// (usage).
const (
	checkNonConforming = 1 // a case did not conform
	checkNotRun        = 3 // a case, or the whole check, could not run
)

// checkFlags are "pqkex check"'s flags.
type checkFlags struct {
	kex               *string
	listen            *string
	allowRemote       *bool
	timeout           *time.Duration
	pause             *time.Duration
	idle              *time.Duration
	deadline          *time.Duration
	noPacing          *bool
	ident             *string
	clientAddr        *string
	runClient         *string
	clientVersion     *string
	hostKey           *string
	user              *string
	identity          *string
	soak              *int
	baselineFile      *string
	writeBaselineFile *string
	junitFile         *string
	asJSON            *bool
	verbose           *bool
	transcriptDir     *string
	cases             *[]string
}

func newCheckFlags(fs *flag.FlagSet) *checkFlags {
	return &checkFlags{
		kex:               fs.String("kex", "", "comma-separated key exchanges to check (default: every hybrid the server offers; with -listen, all five)"),
		listen:            fs.String("listen", "", "check clients instead: listen on ADDR (host:port) and answer each connection with the next case"),
		allowRemote:       fs.Bool("allow-remote", false, "with -listen: allow a non-loopback address"),
		timeout:           fs.Duration("timeout", 10*time.Second, "timeout of each connection"),
		pause:             fs.Duration("pause", 0, "wait between connections to a server (for servers that penalize many short connections, such as OpenSSH's PerSourcePenalties)"),
		idle:              fs.Duration("idle", 5*time.Minute, "with -listen: stop after this long without a case run by the client under test"),
		deadline:          fs.Duration("deadline", conformance.DefaultDeadline, "bound of the whole check of a server"),
		noPacing:          fs.Bool("no-pacing", false, "do not wait out a server that refuses connections from this source (OpenSSH's PerSourcePenalties); such cases do not run"),
		ident:             fs.String("ident", "", "identification line to send to a server (default: a common client's, chosen at random)"),
		clientAddr:        fs.String("client-addr", "", "with -listen: the IP address of the client under test (default: the first client's)"),
		runClient:         fs.String("run", "", "with -listen: run this client command (sh -c) once per case, until every case has run ({host}, {port} and {addr} are replaced by the listening address, quoted for sh; each run is a process group, killed after twice -timeout or when sh ends; only the address its connections come from runs cases unless -client-addr says otherwise)"),
		clientVersion:     fs.String("client-version", "", "with -listen: the identification line of the client under test, e.g. SSH-2.0-OpenSSH_10.0 (default: the first client's)"),
		soak:              fs.Int("soak", 0, "checking a server: also run N honest exchanges per method (paced for OpenSSH's PerSourcePenalties) and count those whose K_PQ or K_CL starts with a zero byte; a server that drops it escapes N exchanges with probability (255/256)^N"),
		hostKey:           fs.String("hostkey", "", "with -listen: host key file (OpenSSH or PEM private key; default: new Ed25519 and ECDSA P-256 keys)"),
		identity:          fs.String("identity", "", "checking a server: authenticate with this private key file (OpenSSH or PEM, unencrypted, readable by its owner only) before the case rekey, which then re-exchanges after user authentication, where OpenSSH, libssh and tinysshd take a re-exchange (without it, before; they refuse: rekey-preauth)"),
		user:              fs.String("user", "", "with -identity: the user to authenticate as (default: this process's user)"),
		baselineFile:      fs.String("baseline", "", "accept the findings listed in FILE (FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX] a line): exit 0 when only they remain, 1 on a new one or on an entry that matches nothing"),
		writeBaselineFile: fs.String("write-baseline", "", "write the findings of this run to FILE as a baseline, each for its peer's release series (e.g. SSH-2.0-OpenSSH_10.0)"),
		junitFile:         fs.String("junit", "", "write the results to FILE as JUnit XML (a failure per finding)"),
		asJSON:            fs.Bool("json", false, "print the results as JSON (an array when several servers are checked)"),
		verbose:           fs.Bool("v", false, "print each case on stderr as it finishes, and every case's detail"),
		transcriptDir:     fs.String("transcript", "", "write each case's transcript to DIR/METHOD/CASE.txt (DIR/HOST_PORT/... when several servers are checked): every message sent and received, and pqkex check's own values of the test connection, its throwaway secrets included"),
		cases:             repeatedList(fs, "case", "run only this case, METHOD/CASE or CASE (that case of every method); repeatable or comma-separated"),
	}
}

// repeatedList defines a flag that may be given several times, each a
// comma-separated list.
func repeatedList(fs *flag.FlagSet, name, usage string) *[]string {
	var l []string
	fs.Func(name, usage, func(s string) error {
		l = append(l, splitList(s)...)
		return nil
	})
	return &l
}

// runCheck implements "pqkex check".
func runCheck(args []string, stdout, stderr io.Writer) int {
	opt, fs, status, parsed := parseVerb("check", newCheckFlags, args, stdout, stderr)
	if parsed {
		return status
	}
	kex, listen, allowRemote, timeout, pause, idle, deadline, noPacing, ident, clientAddr, runClient, clientVersion, hostKey, baselineFile, writeBaselineFile, junitFile, asJSON, verbose := opt.kex, opt.listen, opt.allowRemote, opt.timeout, opt.pause, opt.idle, opt.deadline, opt.noPacing, opt.ident, opt.clientAddr, opt.runClient, opt.clientVersion, opt.hostKey, opt.baselineFile, opt.writeBaselineFile, opt.junitFile, opt.asJSON, opt.verbose
	if *opt.soak < 0 || *opt.soak > 0 && *listen != "" {
		printWrapped(stderr, "pqkex check: -soak N (N >= 0) applies to checking a server, not to -listen (as a server check "+
			"chooses its values: the cases k-pq-00, k-pq-0000 and k-cl-00)", "  ")
		return 2
	}
	var methods []string
	if *kex != "" {
		methods = splitList(*kex)
		for _, m := range methods {
			if !slices.Contains(conformance.Methods(), m) {
				fmt.Fprintf(stderr, "pqkex check: -kex: %q is not a key exchange pqkex check knows (%s)\n", m, strings.Join(conformance.Methods(), ","))
				return 2
			}
		}
	}
	if *opt.user != "" && *opt.identity == "" || *opt.identity != "" && *listen != "" {
		printWrapped(stderr, "pqkex check: -identity FILE (and -user NAME with it) applies to checking a server, whose case rekey "+
			"then authenticates before its re-exchange; not to -listen", "  ")
		return 2
	}
	var identity ssh.Signer
	user := *opt.user
	if *opt.identity != "" {
		var err error
		if identity, err = loadIdentity(*opt.identity); err != nil {
			printWrapped(stderr, "pqkex check: -identity: "+err.Error(), "  ")
			return 2
		}
		if user == "" {
			if user = currentUser(); user == "" {
				fmt.Fprintln(stderr, "pqkex check: -identity: no user name known for this process; give -user NAME")
				return 2
			}
		}
	}
	if len(*opt.cases) > 0 {
		named, err := conformance.ParseCases(*opt.cases, *listen == "", methods, *opt.soak > 0)
		if err != nil {
			fmt.Fprintln(stderr, "pqkex check: -case:", err)
			return 2
		}
		if methods == nil {
			methods = named // the methods of the cases named (nil: every one)
		}
	}
	transcripts := func(target string) string { return *opt.transcriptDir }
	if *opt.transcriptDir != "" && fs.NArg() > 1 {
		transcripts = func(target string) string {
			return filepath.Join(*opt.transcriptDir, strings.NewReplacer(":", "_", "/", "_", "\\", "_").Replace(target))
		}
	}
	var base *baseline
	if *baselineFile != "" {
		var err error
		if base, err = readBaseline(*baselineFile); err != nil {
			fmt.Fprintln(stderr, "pqkex check: -baseline:", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	total, done := 0, 0
	peer := "" // the identification line of the server being checked
	f, isFile := stderr.(*os.File)
	tty := isFile && isTerminal(f)
	// note prints a message of check's on stderr, within 100 columns.
	note := func(msg string) { printWrapped(stderr, "pqkex check: "+msg, "  ") }
	progress := func(r conformance.Result) {
		done++
		if tty && !*verbose && total > 0 {
			fmt.Fprintf(stderr, "\rcase %d/%d %-60.60s", done, total, r.Method+" "+r.Case)
			if done >= total {
				fmt.Fprintf(stderr, "\r%80s\r", "")
			}
		}
		if *verbose {
			by, version := "", peer
			if r.Peer != "" {
				by = " [" + r.Peer + "]"
				_, version, _ = strings.Cut(r.Peer, " ")
			}
			_, accepted := base.accepting(version, r)
			fmt.Fprintf(stderr, "%-36s %-26s %-9s %s%s\n", r.Method, r.Case, mark(r, accepted), r.Detail, by)
		}
	}
	var reps []*checkReport
	switch {
	case *listen != "" && fs.NArg() == 0:
		start := time.Now()
		var rep checkReport
		if err := checkListen(*listen, *allowRemote); err != nil {
			fmt.Fprintln(stderr, "pqkex check:", err)
			return 2
		}
		var keys []ssh.Signer
		if *hostKey != "" {
			k, err := loadHostKey(*hostKey)
			if err != nil {
				fmt.Fprintln(stderr, "pqkex check:", err)
				return 1
			}
			keys = []ssh.Signer{k}
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			fmt.Fprintln(stderr, "pqkex check:", err)
			return checkNotRun
		}
		lnAddr := ln.Addr().(*net.TCPAddr)
		who := "the first client to connect"
		bound := *clientAddr
		if *runClient != "" && bound == "" {
			// The command's connections come from this machine, from the
			// address its connections to the listener have: no other
			// address can take the run.
			if bound = runSource(lnAddr); bound != "" {
				who = "the -run command's client, from " + bound
				if *clientVersion != "" {
					who += " " + *clientVersion
				}
			}
		}
		if *clientAddr != "" || *clientVersion != "" {
			who = strings.TrimSpace("the client " + *clientAddr + " " + *clientVersion)
		}
		note(fmt.Sprintf("listening on %s; connect a client once per case (one connection runs one case; "+
			"cases are run only by %s; the run ends when every case has run, after %v without a case, or on SIGINT/SIGTERM)", ln.Addr(), who, *idle))
		listenCtx, stopListen := context.WithCancel(ctx)
		defer stopListen()
		loopDone := make(chan struct{})
		if *runClient != "" {
			go func() {
				defer close(loopDone)
				runClientLoop(listenCtx, *runClient, lnAddr, 2**timeout, stderr)
			}()
		} else {
			close(loopDone)
		}
		cr, err := conformance.CheckClients(listenCtx, conformance.ClientOptions{
			Listener: ln, Methods: methods, HostKeys: keys, Timeout: *timeout, Idle: *idle, Progress: progress,
			ClientAddr: bound, ClientVersion: *clientVersion,
			Cases: *opt.cases, TranscriptDir: transcripts(""), Tool: pqkexVersion(),
			Log:    func(line string) { note(line) },
			Notice: func(msg string) { total = countPrefix(msg); note(msg) },
		})
		stopListen()
		<-loopDone // the last run's processes are gone
		if err != nil {
			fmt.Fprintln(stderr, "pqkex check:", err)
			return 2
		}
		rep = checkReport{Role: "client", Listen: cr.Addr, Versions: cr.Versions, Methods: cr.Methods, Results: results(cr.Results),
			ClientAddr: cr.ClientAddr, ClientVersion: cr.ClientVersion, Refused: cr.Refused, Offered: cr.Offered}
		if cr.Offered != nil && !slices.ContainsFunc(cr.Methods, func(m string) bool { return slices.Contains(cr.Offered, m) }) {
			rep.Error = "the client offers none of the key exchanges checked (" + strings.Join(cr.Methods, ", ") + "); it offers " +
				strings.Join(cr.Offered, ", ")
			rep.Results = nil // the error's row stands for them
		}
		rep.elapsed = time.Since(start)
		reps = append(reps, &rep)
	case *listen == "" && fs.NArg() >= 1:
		for _, target := range fs.Args() {
			start := time.Now()
			var rep checkReport
			total, done, peer = 0, 0, ""
			addr := target
			if _, _, err := net.SplitHostPort(addr); err != nil {
				addr = net.JoinHostPort(addr, "22")
			}
			rep = checkReport{Role: "server", Target: addr}
			sr, err := conformance.CheckServer(ctx, conformance.ServerOptions{
				Addr: addr, Methods: methods, Timeout: *timeout, Pause: *pause, Deadline: *deadline, Ident: *ident, NoPacing: *noPacing,
				User: user, Identity: identity,
				Progress: progress, Identified: func(v string) { peer = v },
				Cases: *opt.cases, TranscriptDir: transcripts(addr), Tool: pqkexVersion(), Soak: *opt.soak,
				SoakProgress: func(method string, i, n int) {
					if tty && !*verbose {
						fmt.Fprintf(stderr, "\rsoak %d/%d %-60.60s", i, n, method)
					}
				},
				Planned: func(n, conns int, least time.Duration) {
					total = n
					note(planNote(plan{cases: n, connections: conns, soak: *opt.soak, probe: time.Since(start), least: least,
						version: peer, pause: *pause, noPacing: *noPacing, deadline: *deadline}))
				},
				Notice: func(msg string) {
					if tty {
						fmt.Fprint(stderr, "\n")
					}
					note(msg)
				},
			})
			if sr != nil {
				rep.Version, rep.Offered, rep.Strict, rep.Methods, rep.Results = sr.Version, sr.Offered, &sr.Strict, sr.Methods, results(sr.Results)
				rep.Deadline, rep.Ident = sr.Deadline, sr.Ident
			}
			checked := methods
			if checked == nil {
				checked = conformance.Methods()
			}
			if err != nil {
				rep.Error = err.Error()
			} else if !slices.ContainsFunc(rep.Results, func(r checkResult) bool { return r.Verdict != conformance.NotApplicable }) {
				rep.Error = "the server offers none of the key exchanges checked (" + strings.Join(checked, ", ") + "); it offers " +
					strings.Join(rep.Offered, ", ")
				rep.Results = nil // the error's row stands for them
			}
			rep.elapsed = time.Since(start)
			reps = append(reps, &rep)
			if ctx.Err() != nil {
				break
			}
		}
	default:
		fs.Usage()
		return 2
	}
	code := 0
	for _, rep := range reps {
		rep.finish(base)
		code = worse(code, rep.exitStatus(*asJSON, stderr))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if len(reps) == 1 {
			enc.Encode(reps[0])
		} else {
			enc.Encode(reps)
		}
	} else {
		for i, rep := range reps {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			printCheck(stdout, rep, *verbose)
		}
		printSummary(stdout, reps, base)
	}
	if base != nil && len(base.stale(reps)) > 0 {
		code = worse(code, checkNonConforming)
	}
	if *junitFile != "" {
		if err := writeJUnit(*junitFile, reps); err != nil {
			fmt.Fprintln(stderr, "pqkex check: -junit:", err)
			return 2
		}
	}
	if *writeBaselineFile != "" {
		if err := writeBaseline(*writeBaselineFile, reps); err != nil {
			fmt.Fprintln(stderr, "pqkex check: -write-baseline:", err)
			return 2
		}
	}
	return code
}

// currentUser is the name of the user this process runs as, as ssh
// takes it for a login name by default ("" if none is known).
func currentUser() string {
	if u, err := osuser.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// worse is the combined exit status of two checks: a finding (1) before
// a check that could not run (3) before success (0).
func worse(a, b int) int {
	rank := func(c int) int { return map[int]int{0: 0, checkNotRun: 1, checkNonConforming: 2}[c] }
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// finish completes a report for printing: its schema, tool and
// baseline, a result standing for the whole target when it could not be
// checked (Error: one row, in the table, the summary, JSON and JUnit
// alike), the summary, and which results the baseline accepts.
func (rep *checkReport) finish(base *baseline) {
	rep.Schema, rep.Tool, rep.base = checkSchema, pqkexVersion(), base
	if rep.Methods == nil {
		rep.Methods = []string{}
	}
	if rep.Error != "" && len(rep.Results) == 0 {
		rep.Results = []checkResult{{Result: conformance.Result{Method: conformance.AllCases, Case: conformance.AllCases,
			Verdict: conformance.NotRun, Detail: rep.Error}}}
	}
	if rep.Results == nil {
		rep.Results = []checkResult{}
	}
	plain := make([]conformance.Result, len(rep.Results))
	for i, res := range rep.Results {
		plain[i] = res.Result
	}
	rep.Summary = conformance.Summarize(plain)
	for i := range rep.Results {
		res := &rep.Results[i]
		if e, ok := base.accepting(rep.peerVersion(), res.Result); ok {
			res.Accepted, res.AcceptedBy = true, e.String()
			rep.Baselined = append(rep.Baselined, res.Method+" "+res.Case)
		}
	}
}

// exitStatus is the status one report calls for: 1 for a finding the
// baseline does not accept, 3 when a case or the check could not run or
// nothing was checked, 0 otherwise. It prints the report's error on
// stderr unless asJSON.
func (rep *checkReport) exitStatus(asJSON bool, stderr io.Writer) int {
	nonconforming := 0
	for _, res := range rep.Results {
		if !res.Conforms && res.Verdict != conformance.NotRun && res.Verdict != conformance.NotApplicable && !res.Accepted {
			nonconforming++
		}
	}
	switch {
	case nonconforming > 0:
		return checkNonConforming
	case rep.Error != "":
		if !asJSON {
			printWrapped(stderr, "pqkex check: "+rep.name()+": "+rep.Error, "  ")
		}
		return checkNotRun
	case rep.Summary.NotRun > 0 || rep.Summary.Conforming+rep.Summary.NonConforming == 0:
		return checkNotRun // something could not run, or nothing was checked
	}
	return 0
}

// penaltyFree is about how many connections that do not authenticate
// OpenSSH takes from a source before PerSourcePenalties refuses it (1 s
// of penalty each, enforced from 15 s on), and penaltyLift about how
// long check then waits for the refusal to lift.
const (
	penaltyFree = 15
	penaltyLift = 16 * time.Second
)

// plan is what check knows of a server check once the probe has run.
type plan struct {
	cases       int           // the cases to run
	connections int           // the connections they take at the least: one a case, the soak's -soak each
	soak        int           // -soak N (0: none)
	probe       time.Duration // the probe's connection
	least       time.Duration // the pauses between connections (conformance.ServerOptions.Planned)
	version     string        // the server's identification line, escaped
	pause       time.Duration // -pause
	noPacing    bool
	deadline    time.Duration
}

// planNote is what check says once it knows how many cases a server
// check runs: their number, the connections they take (more than one a
// case with -soak) and how long they should take, from the probe's time
// per connection (two per connection: a case exchanges more) and the
// pauses (least). A server known to refuse a source after a few
// connections that do not authenticate (OpenSSH 9.8 and later, whose
// PerSourcePenalties are on by default) adds the wait and the pacing
// check will need, unless -pause already paces the run or -no-pacing
// turns pacing off; with -soak, check paces such a server from the start
// (least then holds the pauses). For any other server the figure is a
// lower bound, which check corrects if a refusal comes.
func planNote(p plan) string {
	perConn := 2 * max(p.probe, time.Millisecond)
	est := p.least + time.Duration(p.connections)*perConn
	head := fmt.Sprintf("%d cases, one connection each; ", p.cases)
	if p.connections != p.cases {
		head = fmt.Sprintf("%d cases, %d connections (one a case, %d for each method's soak); ", p.cases, p.connections, p.soak)
	}
	major, minor, isOpenSSH := openSSHServerVersion(p.version)
	penalizing := isOpenSSH && (major > 9 || major == 9 && minor >= 8) && !p.noPacing && p.pause < conformance.PacePause
	switch {
	case penalizing && p.soak > 0:
		return head + fmt.Sprintf("expected to take about %s: OpenSSH %d.%d refuses a source after about %d connections that do not "+
			"authenticate (PerSourcePenalties, on by default since 9.8), so check leaves %v between connections from the start "+
			"(at most -deadline %v)", roughly(est), major, minor, penaltyFree, conformance.PacePause, p.deadline)
	case penalizing && p.connections > penaltyFree:
		est = time.Duration(penaltyFree)*perConn + penaltyLift + time.Duration(p.connections-penaltyFree)*(conformance.PacePause+perConn)
		return head + fmt.Sprintf("expected to take about %s: OpenSSH %d.%d refuses a source after about %d connections that do not "+
			"authenticate (PerSourcePenalties, on by default since 9.8), so check will wait for the refusal to lift, then leave %v "+
			"between connections (-pause %v from the start saves the wait; at most -deadline %v)",
			roughly(est), major, minor, penaltyFree, conformance.PacePause, conformance.PacePause, p.deadline)
	}
	return head + fmt.Sprintf("expected to take about %s or more: more if the server starts refusing connections "+
		"(check then says so, and how much longer; at most -deadline %v)", roughly(est), p.deadline)
}

// roughly formats an estimate.
func roughly(d time.Duration) string {
	if d < time.Second {
		return "a second"
	}
	return d.Round(time.Second).String()
}

// countPrefix is the number of cases in a notice "...; N cases, ...".
func countPrefix(msg string) int {
	i := strings.Index(msg, " cases, one connection each")
	if i < 0 {
		return 0
	}
	j := strings.LastIndex(msg[:i], " ")
	n, _ := strconv.Atoi(msg[j+1 : i])
	return n
}
