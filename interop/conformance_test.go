package interop

// pqkex check against every server and client the project installs: the
// observed verdicts must match the matrix committed in
// docs/conformance.md (PQKEX_UPDATE_CONFORMANCE=1 rewrites it), and
// pqkex's own server and client must conform in every case.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// checkResult is the part of one result of pqkex check -json that the
// matrix and the audit tests read, decoded here from the command's output
// (its documented format) rather than from the engine's own type.
type checkResult struct {
	Method           string `json:"method"`
	Case             string `json:"case"`
	Clause           string `json:"clause"`
	Expected         string `json:"expected"`
	Verdict          string `json:"verdict"`
	Conforms         bool   `json:"conforms"`
	Detail           string `json:"detail"`
	DisconnectReason uint32 `json:"disconnect_reason"`
}

// The verdicts the tests tell apart (docs/conformance.md).
const (
	verdictNotRun        = "not run"
	verdictNotApplicable = "not applicable"
)

// Observed is the verdict as the matrix shows it: the reason code of an
// SSH_MSG_DISCONNECT after "rejected".
func (r checkResult) Observed() string {
	if r.Verdict == "rejected" {
		return r.Verdict + "(" + strconv.FormatUint(uint64(r.DisconnectReason), 10) + ")"
	}
	return r.Verdict
}

// checkMethods are the methods pqkex check tests, in the order of its
// output and of the matrix rows. It is written out, not taken from a
// column: check -listen reports a client's cases in the order clients
// took them, so no client column need list the methods in this order.
var checkMethods = []string{mlkem768x25519.Name, sntrup761x25519.Name, sntrup761x25519.AliasName, mlkem768nistp256.Name, mlkem1024nistp384.Name}

// checkReport is the part of pqkex check -json the matrix needs.
type checkReport struct {
	Role     string        `json:"role"`
	Version  string        `json:"peer_version"`
	Versions []string      `json:"peer_versions"`
	Results  []checkResult `json:"results"`
	Error    string        `json:"error"`
	// Baselined are the results ("METHOD CASE") a -baseline accepts.
	Baselined []string `json:"baselined"`
}

// column is one peer's results in the matrix.
type column struct {
	name    string
	own     bool // pqkex's own: must conform in every case
	results []checkResult
}

const conformanceDoc = "../docs/conformance.md"

// runCheck runs pqkex check with args and decodes its -json output.
func runCheck(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *checkReport) {
	t.Helper()
	cmd := exec.CommandContext(ctx, pqkexCommand(t), append([]string{"check", "-json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var rep checkReport
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil {
		t.Fatalf("pqkex check %s: %v; output %q: %v\nstderr:\n%s", strings.Join(args, " "), err, stdout.Bytes(), jerr, stderr.Bytes())
	}
	if rep.Error != "" || len(rep.Results) == 0 {
		t.Fatalf("pqkex check %s: %v: %s (%d results)\nstderr:\n%s", strings.Join(args, " "), err, rep.Error, len(rep.Results), stderr.Bytes())
	}
	return cmd, &rep
}

func TestConformance(t *testing.T) {
	needRoot(t)
	var mu sync.Mutex
	var servers, clients []column
	var missing []string // peers not installed (their subtests skipped)
	add := func(list *[]column, c column) {
		mu.Lock()
		defer mu.Unlock()
		*list = append(*list, c)
	}
	skipped := func(t *testing.T) {
		if t.Skipped() {
			mu.Lock()
			defer mu.Unlock()
			missing = append(missing, strings.TrimPrefix(t.Name(), "TestConformance/"))
		}
	}
	t.Run("servers", func(t *testing.T) {
		for _, p := range conformanceServers {
			t.Run(p.name, func(t *testing.T) {
				defer skipped(t)
				// The server lets root in with id: check authenticates with
				// it in the case rekey, and so re-exchanges after user
				// authentication, where every server here takes one.
				id := newKey(t)
				idFile := writeFile(t, filepath.Join(t.TempDir(), "id_ed25519"), id.openSSH(t))
				addr := p.start(t, id)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				_, rep := runCheck(t, ctx, "-timeout", "10s", "-user", "root", "-identity", idFile, addr)
				if !strings.HasPrefix(rep.Version, p.version) {
					t.Errorf("server version %q, want %s...", rep.Version, p.version)
				}
				add(&servers, column{p.name, p.own, rep.Results})
			})
		}
	})
	t.Run("clients", func(t *testing.T) {
		for _, p := range conformanceClients {
			t.Run(p.name, func(t *testing.T) {
				defer skipped(t)
				rep := checkClient(t, p)
				if len(rep.Versions) != 1 || !strings.HasPrefix(rep.Versions[0], p.version) {
					t.Errorf("client versions %q, want one %s...", rep.Versions, p.version)
				}
				add(&clients, column{p.name, p.own, rep.Results})
			})
		}
	})
	if t.Failed() {
		return
	}
	for _, cols := range [][]column{servers, clients} {
		for _, c := range cols {
			for _, r := range c.results {
				if c.own && !r.Conforms && r.Verdict != verdictNotApplicable {
					t.Errorf("pqkex's own %s does not conform: %s %s: %s: %s", c.name, r.Method, r.Case, r.Observed(), r.Detail)
				}
				if r.Verdict == verdictNotRun {
					t.Errorf("%s: %s %s did not run: %s", c.name, r.Method, r.Case, r.Detail)
				}
			}
		}
	}
	if len(missing) > 0 {
		// Outside CI a peer that is not installed skips its column; the
		// matrix can only be compared whole.
		t.Skipf("pqkex's own server and client conform; the matrix is not compared, for want of %s", strings.Join(missing, ", "))
	}
	order := func(cols []column, names []string) []column {
		slices.SortFunc(cols, func(a, b column) int { return slices.Index(names, a.name) - slices.Index(names, b.name) })
		return cols
	}
	var sn, cn []string
	for _, p := range conformanceServers {
		sn = append(sn, p.name)
	}
	for _, p := range conformanceClients {
		cn = append(cn, p.name)
	}
	compareMatrix(t, map[string]string{
		"servers": matrixTable(order(servers, sn)),
		"clients": matrixTable(order(clients, cn)),
	})
}

// matrixTable renders columns as a markdown table: a row per method and
// case (in pqkex check's order), a cell per peer with the observed
// verdict, in bold where it does not conform, "–" where the peer does not
// implement the method.
func matrixTable(cols []column) string {
	type row struct{ method, id, clause, expected string }
	var rows []row
	seen := map[string]bool{}
	cells := make([]map[string]checkResult, len(cols))
	for i, c := range cols {
		cells[i] = map[string]checkResult{}
		for _, r := range c.results {
			key := r.Method + " " + r.Case
			cells[i][key] = r
			if !seen[key] {
				seen[key] = true
				rows = append(rows, row{r.Method, r.Case, r.Clause, r.Expected})
			}
		}
	}
	methods := checkMethods
	slices.SortStableFunc(rows, func(a, b row) int { return slices.Index(methods, a.method) - slices.Index(methods, b.method) })
	var b strings.Builder
	b.WriteString("| method | case | spec | expected |")
	for _, c := range cols {
		b.WriteString(" " + c.name + " |")
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", r.method, r.id, r.clause, r.expected)
		for i := range cols {
			res, ok := cells[i][r.method+" "+r.id]
			switch {
			case !ok:
				b.WriteString(" – |")
			case res.Conforms || res.Verdict == verdictNotApplicable:
				b.WriteString(" " + res.Observed() + " |")
			default:
				b.WriteString(" **" + res.Observed() + "** |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// compareMatrix checks each table against its block in docs/conformance.md
// (between "<!-- BEGIN name -->" and "<!-- END name -->"), or rewrites the
// blocks with PQKEX_UPDATE_CONFORMANCE=1.
func compareMatrix(t *testing.T, tables map[string]string) {
	doc, err := os.ReadFile(conformanceDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	update := os.Getenv("PQKEX_UPDATE_CONFORMANCE") == "1"
	for _, name := range []string{"servers", "clients"} {
		begin, end := "<!-- BEGIN "+name+" -->\n", "<!-- END "+name+" -->"
		i, j := strings.Index(text, begin), strings.Index(text, end)
		if i < 0 || j < i {
			t.Fatalf("%s has no %q ... %q block", conformanceDoc, begin, end)
		}
		committed := text[i+len(begin) : j]
		if committed == tables[name] || !update && sameAborts(committed) == sameAborts(tables[name]) {
			continue
		}
		if update {
			text = text[:i+len(begin)] + tables[name] + text[j:]
			continue
		}
		t.Errorf("the observed %s matrix differs from %s (rerun with PQKEX_UPDATE_CONFORMANCE=1 to rewrite it, and explain the change):\n%s",
			name, conformanceDoc, lineDiff(committed, tables[name]))
	}
	if update && text != string(doc) {
		if err := os.WriteFile(conformanceDoc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", conformanceDoc)
	}
}

// rejectedCell is a cell of a peer that sent SSH_MSG_DISCONNECT, in bold
// where that does not conform (a refused re-exchange, rekey-preauth).
var rejectedCell = regexp.MustCompile(`\| (\*\*)?rejected\(\d+\)(\*\*)? `)

// sameAborts is a matrix with every abort written as "closed": the two
// conforming ways to abort compare equal. Whether a DISCONNECT sent just
// before the close reaches us is a race on some peers (libssh's server
// after a bad MAC: its close can reset the connection before the
// message is read), and the difference is only the informational note.
func sameAborts(table string) string {
	return rejectedCell.ReplaceAllString(table, "| ${1}closed${2} ")
}

// lineDiff lists the lines only in a and only in b.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range al {
		if !slices.Contains(bl, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// ---------------------------------------------------------------- servers

type conformanceServer struct {
	name, version string
	own           bool
	start         func(t *testing.T, id key) string // authorizes id for root; returns host:port
}

// fromPeer starts the peer-server.sh kind of serverPeers.
func fromPeer(kind string) func(t *testing.T, id key) string {
	return func(t *testing.T, id key) string {
		for _, p := range serverPeers {
			if p.kind != kind {
				continue
			}
			needRoot(t)
			for _, v := range p.vars {
				needPeer(t, v)
			}
			s := startPeerServer(t, p.kind, newKey(t), id.pub(), p.args...)
			return s.addr
		}
		t.Fatalf("no server peer %s", kind)
		return ""
	}
}

var conformanceServers = []conformanceServer{
	{"openssh-10.0", "SSH-2.0-OpenSSH_10.0", false, fromPeer("openssh10")},
	{"openssh-10.6", "SSH-2.0-OpenSSH_10.6", false, fromPeer("openssh106")},
	{"openssh-9.2", "SSH-2.0-OpenSSH_9.2", false, fromPeer("openssh92")},
	{"dropbear-2025.89", "SSH-2.0-dropbear_2025.89", false, fromPeer("dropbear")},
	{"tinysshd-20250501", "SSH-2.0-tinyssh ", false, fromPeer("tinysshd")},
	{"libssh-0.12", "SSH-2.0-libssh_0.12", false, fromPeer("libssh")},
	{"x/crypto+sshkex", "SSH-2.0-Go", true, startXCryptoServer},
	{"pqkex serve", "SSH-2.0-Go", true, startPQKEXServe},
}

// startXCryptoServer serves x/crypto/ssh's server with sshkex's defaults
// (TestMain registered them): no client authentication, or id's.
func startXCryptoServer(t *testing.T, id key) string {
	cfg := &ssh.ServerConfig{NoClientAuth: true, PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if !bytes.Equal(k.Marshal(), id.pub().Marshal()) {
			return nil, errors.New("not the test's key")
		}
		return nil, nil
	}}
	cfg.AddHostKey(newKey(t).signer)
	return sshtest.XCryptoServer(t, cfg, caseTimeout)
}

// startPQKEXServe runs the pqkex serve command (which lets any key in).
func startPQKEXServe(t *testing.T, _ key) string { return sshtest.StartServe(t, pqkexCommand(t), nil) }

// ---------------------------------------------------------------- clients

type conformanceClient struct {
	name, version string
	own           bool
	kexs          []string
	peer          string // clientPeers name; "" for the x/crypto client
}

var conformanceClients = []conformanceClient{
	{"openssh-10.0", "SSH-2.0-OpenSSH_10.0", false, allKex, "openssh10"},
	{"openssh-10.6", "SSH-2.0-OpenSSH_10.6", false, []string{nistp256, mlkem, sntrup, sntrupAlias}, "openssh106"},
	{"openssh-9.2", "SSH-2.0-OpenSSH_9.2", false, []string{sntrup, sntrupAlias}, "openssh92"},
	{"dbclient-2025.89", "SSH-2.0-dropbear_2025.89", false, allKex, "dbclient"},
	{"plink-0.85", "SSH-2.0-PuTTY_Release_0.85", false, allFive, "plink"},
	{"libssh-0.12", "SSH-2.0-libssh_0.12", false, allFive, "libssh"},
	{"x/crypto+sshkex", "SSH-2.0-Go", true, allFive, ""},
}

// checkClient runs pqkex check -listen for c's methods and connects the
// client to it once per case until the check ends.
func checkClient(t *testing.T, c conformanceClient) *checkReport {
	hostKey, clientKey := newKey(t), newKey(t)
	var p clientPeer
	var bin string
	if c.peer != "" {
		for _, cp := range clientPeers {
			if cp.name == c.peer {
				p = cp
			}
		}
		bin = needClient(t, p)
	}
	hk := writeFile(t, filepath.Join(t.TempDir(), "hostkey"), hostKey.openSSH(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pqkexCommand(t), "check", "-json", "-listen", "127.0.0.1:0", "-hostkey", hk,
		"-kex", strings.Join(c.kexs, ","), "-timeout", "10s", "-idle", "60s")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var addr string
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "pqkex check: listening on "); ok {
			addr, _, _ = strings.Cut(rest, ";")
			break
		}
	}
	if addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("pqkex check -listen printed no address")
	}
	var logs bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&logs, stderr); close(copied) }()
	_, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)

	exited := make(chan error, 1)
	go func() { <-copied; exited <- cmd.Wait() }()
	kex := strings.Join(c.kexs, ",")
	// A password to retry and the smallest RekeyThreshold make x/crypto's
	// client start a re-exchange in rekey-by-client, whose failed
	// authentications it answers: the one real client here that starts
	// one on its own.
	xcfg := &ssh.ClientConfig{User: "root", HostKeyCallback: ssh.FixedHostKey(hostKey.pub()), Timeout: caseTimeout,
		Auth: []ssh.AuthMethod{ssh.RetryableAuthMethod(ssh.Password("pqkex check"), 16)}}
	xcfg.KeyExchanges = c.kexs
	xcfg.RekeyThreshold = 256
	report := func(err error) *checkReport {
		var rep checkReport
		if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil || len(rep.Results) == 0 {
			t.Fatalf("pqkex check -listen: %v; output %q: %v\nstderr:\n%s", err, stdout.Bytes(), jerr, logs.Bytes())
		}
		return &rep
	}
	var lastErr error // the x/crypto client's last failed handshake
	for runs := 0; ; runs++ {
		if errors.Is(lastErr, syscall.ECONNREFUSED) {
			// Once every case has run, the check closes its listener
			// and writes its report: it is ending, so wait for it
			// instead of counting refused runs (a loaded machine
			// counted hundreds).
			select {
			case err := <-exited:
				rep := report(err)
				t.Logf("%d client runs for %d cases", runs, len(rep.Results))
				return rep
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("pqkex check -listen refused connections for 30 s but did not exit\nstderr:\n%s", logs.Bytes())
			}
		}
		select {
		case err := <-exited:
			rep := report(err)
			t.Logf("%d client runs for %d cases", runs, len(rep.Results))
			return rep
		default:
		}
		if runs > 400 {
			cmd.Process.Kill()
			<-exited // logs is complete
			t.Fatalf("pqkex check -listen did not end after %d client runs (the last x/crypto client error: %v)\nstderr:\n%s", runs, lastErr, logs.Bytes())
		}
		if c.peer == "" {
			conn, err := ssh.Dial("tcp", addr, xcfg)
			if err == nil {
				conn.Wait() // until check ends the case (rekey starts a re-exchange after authentication)
				conn.Close()
			}
			lastErr = err
			continue
		}
		force := kex
		if p.proof == nil {
			force = "" // dbclient cannot choose
		}
		runClient(t, p, bin, port, hostKey, clientKey, force)
	}
}
