package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
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
	Deadline string               `json:"deadline,omitempty"`
	Ident    string               `json:"ident,omitempty"`
	Offered  []string             `json:"kex_offered,omitempty"`
	Strict   *bool                `json:"strict_kex,omitempty"`
	Methods  []string             `json:"methods"`
	Results  []conformance.Result `json:"results"`
	Summary  conformance.Summary  `json:"summary"`
	Error    string               `json:"error,omitempty"`
	// Baselined lists the results ("METHOD CASE") whose finding the
	// -baseline file accepts.
	Baselined []string `json:"baselined,omitempty"`
	elapsed   time.Duration
	base      *baseline
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
		runClient:         fs.String("run", "", "with -listen: run this client command once per case, until every case has run ({host}, {port} and {addr} are replaced by the listening address; each run is bounded by twice -timeout)"),
		clientVersion:     fs.String("client-version", "", "with -listen: the identification line of the client under test, e.g. SSH-2.0-OpenSSH_10.0 (default: the first client's)"),
		soak:              fs.Int("soak", 0, "checking a server: also run N honest exchanges per method (paced for OpenSSH's PerSourcePenalties) and count those whose K_PQ or K_CL starts with a zero byte; a server that drops it escapes N exchanges with probability (255/256)^N"),
		hostKey:           fs.String("hostkey", "", "with -listen: host key file (OpenSSH or PEM private key; default: new Ed25519 and ECDSA P-256 keys)"),
		baselineFile:      fs.String("baseline", "", "accept the findings listed in FILE (FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX] a line): exit 0 when only they remain, 1 on a new one or on an entry that matches nothing"),
		writeBaselineFile: fs.String("write-baseline", "", "write the findings of this run to FILE as a baseline"),
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
		fmt.Fprintln(stderr, "pqkex check: -soak N (N >= 0) applies to checking a server, not to -listen (as a server check chooses its values: the cases k-pq-00, k-pq-0000 and k-cl-00)")
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
	if len(*opt.cases) > 0 {
		named, err := conformance.ParseCases(*opt.cases, *listen == "")
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
	f, isFile := stderr.(*os.File)
	tty := isFile && isTerminal(f)
	progress := func(r conformance.Result) {
		done++
		if tty && !*verbose && total > 0 {
			fmt.Fprintf(stderr, "\rcase %d/%d %-60.60s", done, total, r.Method+" "+r.Case)
			if done >= total {
				fmt.Fprintf(stderr, "\r%80s\r", "")
			}
		}
		if *verbose {
			by := ""
			if r.Peer != "" {
				by = " [" + r.Peer + "]"
			}
			fmt.Fprintf(stderr, "%-36s %-26s %-9s %s%s\n", r.Method, r.Case, mark(r, false), r.Detail, by)
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
		who := "the first client to connect"
		if *clientAddr != "" || *clientVersion != "" {
			who = strings.TrimSpace("the client " + *clientAddr + " " + *clientVersion)
		}
		fmt.Fprintf(stderr, "pqkex check: listening on %s; connect a client once per case (one connection runs one case; "+
			"cases are run only by %s; the run ends when every case has run, after %v without a case, or on SIGINT/SIGTERM)\n", ln.Addr(), who, *idle)
		listenCtx, stopListen := context.WithCancel(ctx)
		defer stopListen()
		if *runClient != "" {
			go runClientLoop(listenCtx, *runClient, ln.Addr().(*net.TCPAddr), 2**timeout, stderr)
		}
		cr, err := conformance.CheckClients(listenCtx, conformance.ClientOptions{
			Listener: ln, Methods: methods, HostKeys: keys, Timeout: *timeout, Idle: *idle, Progress: progress,
			ClientAddr: *clientAddr, ClientVersion: *clientVersion,
			Cases: *opt.cases, TranscriptDir: transcripts(""), Tool: pqkexVersion(),
			Log:    func(line string) { fmt.Fprintln(stderr, "pqkex check:", line) },
			Notice: func(msg string) { total = countPrefix(msg); fmt.Fprintln(stderr, "pqkex check:", msg) },
		})
		stopListen()
		if err != nil {
			fmt.Fprintln(stderr, "pqkex check:", err)
			return 2
		}
		rep = checkReport{Role: "client", Listen: cr.Addr, Versions: cr.Versions, Methods: cr.Methods, Results: cr.Results,
			ClientAddr: cr.ClientAddr, ClientVersion: cr.ClientVersion, Refused: cr.Refused}
		rep.elapsed = time.Since(start)
		reps = append(reps, &rep)
	case *listen == "" && fs.NArg() >= 1:
		for _, target := range fs.Args() {
			start := time.Now()
			var rep checkReport
			total, done = 0, 0
			addr := target
			if _, _, err := net.SplitHostPort(addr); err != nil {
				addr = net.JoinHostPort(addr, "22")
			}
			rep = checkReport{Role: "server", Target: addr}
			sr, err := conformance.CheckServer(ctx, conformance.ServerOptions{
				Addr: addr, Methods: methods, Timeout: *timeout, Pause: *pause, Deadline: *deadline, Ident: *ident, NoPacing: *noPacing,
				Progress: progress, Cases: *opt.cases, TranscriptDir: transcripts(addr), Tool: pqkexVersion(), Soak: *opt.soak,
				SoakProgress: func(method string, i, n int) {
					if tty && !*verbose {
						fmt.Fprintf(stderr, "\rsoak %d/%d %-60.60s", i, n, method)
					}
				},
				Planned: func(n int, least time.Duration) {
					total = n
					fmt.Fprintf(stderr, "pqkex check: %d cases, one connection each; expected to take %v or more (at most -deadline %v)\n",
						n, (least + time.Duration(n)*100*time.Millisecond).Round(time.Second), *deadline)
				},
				Notice: func(msg string) {
					if tty {
						fmt.Fprint(stderr, "\n")
					}
					fmt.Fprintln(stderr, "pqkex check:", msg)
				},
			})
			if sr != nil {
				rep.Version, rep.Offered, rep.Strict, rep.Methods, rep.Results = sr.Version, sr.Offered, &sr.Strict, sr.Methods, sr.Results
				rep.Deadline, rep.Ident = sr.Deadline, sr.Ident
			}
			if err != nil {
				rep.Error = err.Error()
			} else if len(rep.Methods) == 0 {
				rep.Error = "the server offers none of the key exchanges pqkex check knows (" + strings.Join(conformance.Methods(), ", ") + ")"
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
		rep.Schema, rep.Tool, rep.base = checkSchema, pqkexVersion(), base
		if rep.Methods == nil {
			rep.Methods = []string{}
		}
		if rep.Results == nil {
			rep.Results = []conformance.Result{}
		}
		rep.Summary = conformance.Summarize(rep.Results)
		for _, res := range rep.Results {
			if rep.baselined(res) {
				rep.Baselined = append(rep.Baselined, res.Method+" "+res.Case)
			}
		}
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

// worse is the combined exit status of two checks: a finding (1) before
// a check that could not run (3) before success (0).
func worse(a, b int) int {
	rank := func(c int) int { return map[int]int{0: 0, checkNotRun: 1, checkNonConforming: 2}[c] }
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// baselined reports whether the report's baseline accepts res.
func (r *checkReport) baselined(res conformance.Result) bool {
	return !res.Conforms && r.base.accepts(r.peerVersion(), res)
}

// exitStatus is the status one report calls for: 1 for a finding the
// baseline does not accept, 3 when a case or the check could not run or
// nothing was checked, 0 otherwise. It prints the report's error on
// stderr unless asJSON.
func (rep *checkReport) exitStatus(asJSON bool, stderr io.Writer) int {
	nonconforming := 0
	for _, res := range rep.Results {
		if !res.Conforms && res.Verdict != conformance.NotRun && res.Verdict != conformance.NotApplicable && !rep.baselined(res) {
			nonconforming++
		}
	}
	switch {
	case nonconforming > 0:
		return checkNonConforming
	case rep.Error != "":
		if !asJSON {
			fmt.Fprintln(stderr, "pqkex check:", rep.Error)
		}
		return checkNotRun
	case rep.Summary.NotRun > 0 || rep.Summary.Conforming+rep.Summary.NonConforming == 0:
		return checkNotRun // something could not run, or nothing was checked
	}
	return 0
}

// runClientLoop runs command (with sh -c, {host}, {port} and {addr}
// replaced by addr's) again and again until ctx is done, each run killed
// after limit: the client under test of check -listen -run.
func runClientLoop(ctx context.Context, command string, addr *net.TCPAddr, limit time.Duration, stderr io.Writer) {
	r := strings.NewReplacer("{host}", addr.IP.String(), "{port}", strconv.Itoa(addr.Port), "{addr}", addr.String())
	line := r.Replace(command)
	for ctx.Err() == nil {
		runCtx, cancel := context.WithTimeout(ctx, limit)
		cmd := exec.CommandContext(runCtx, "sh", "-c", line)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, io.Discard, io.Discard
		cmd.WaitDelay = time.Second
		start := time.Now()
		err := cmd.Run()
		cancel()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) && ctx.Err() == nil {
			fmt.Fprintf(stderr, "pqkex check: -run: %v\n", err)
			return
		}
		if time.Since(start) < 50*time.Millisecond { // a client that fails at once: do not spin
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
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
