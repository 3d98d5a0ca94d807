package examples

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
	"github.com/pqkex/pqkex/sshkex"
)

// opensshClient is a real OpenSSH client (scripts/peer-env.sh names it).
type opensshClient struct {
	name    string
	env     string   // PQKEX_* variable of its ssh binary
	version string   // prefix of its version string, as the server logs it
	kexs    []string // pqkex's methods it implements (its ssh -Q kex must agree)
	// defaultKex is what its own KexAlgorithms order picks from a server
	// offering Register's defaults: the first of its list the server has.
	defaultKex string
}

var opensshClients = []opensshClient{
	{"openssh10", "PQKEX_OPENSSH10_SSH", "SSH-2.0-OpenSSH_10.0", []string{mlkem, sntrup, sntrupAlias}, mlkem},
	// Debian's 9.2 puts the plain sntrup name first (scripts/README.md);
	// upstream 9.0-9.8 have the @openssh.com name only.
	{"openssh92", "PQKEX_OPENSSH92_SSH", "SSH-2.0-OpenSSH_9.2", []string{sntrup, sntrupAlias}, sntrup},
	// 10.6 implements mlkem768nistp256-sha256 but does not offer it by
	// default.
	{"openssh106", "PQKEX_OPENSSH106_SSH", "SSH-2.0-OpenSSH_10.6", []string{mlkem, sntrup, sntrupAlias, nistp256}, mlkem},
}

// wrapper is an example server program: it answers a session with
// "kex=NAME" and logs "ADDR "VERSION": key exchange NAME", both read from
// the connection's x/crypto metadata on the server's side.
var wrappers = []string{"gliderlabs", "wish"}

// TestWrappersWithOpenSSH runs each OpenSSH client against the gliderlabs/ssh
// and wish example servers, which call sshkex.Register and nothing else:
// with each of pqkex's methods the client implements forced by
// -o KexAlgorithms (and curve25519-sha256, a classical control), and with
// the client's own defaults, where the negotiated method must be the
// post-quantum one the client's order picks. Each case checks the
// negotiated method three ways: the server's answer and its log line (the
// server's side) and the client's "debug1: kex: algorithm:" line; and it
// checks the server's KEXINIT offer, from the client's debug output,
// against sshkex.RecommendedKeyExchanges: Register's defaults reached the
// server.
func TestWrappersWithOpenSSH(t *testing.T) {
	for _, w := range wrappers {
		t.Run(w, func(t *testing.T) {
			for _, c := range opensshClients {
				t.Run(c.name, func(t *testing.T) {
					bin := needPeer(t, c.env)
					checkImplemented(t, bin, c)
					for _, kex := range slices.Concat([]string{""}, c.kexs, []string{curve25519}) {
						name := kex
						if kex == "" {
							name = "default"
						}
						t.Run(name, func(t *testing.T) {
							got := wrapperCase(t, w, c, bin, kex)
							t.Logf("TABLE | %s | %s | %s | %s |", w, c.name, name, got)
						})
					}
				})
			}
		})
	}
}

// checkImplemented compares c.kexs with the client's ssh -Q kex.
func checkImplemented(t *testing.T, bin string, c opensshClient) {
	t.Helper()
	out, err := exec.Command(bin, "-Q", "kex").CombinedOutput()
	if err != nil {
		t.Fatalf("%s -Q kex: %v\n%s", bin, err, out)
	}
	var has []string
	for _, name := range pqNames {
		if slices.Contains(peertest.Lines(string(out)), name) {
			has = append(has, name)
		}
	}
	want := slices.Sorted(slices.Values(c.kexs))
	if slices.Sort(has); !slices.Equal(has, want) {
		t.Fatalf("%s implements %v of pqkex's methods, the test expects %v", c.name, has, want)
	}
}

// wrapperCase starts the wrapper's example server, runs the client
// against it (forcing kex unless it is ""), checks everything and returns
// the negotiated method as the server reported it.
func wrapperCase(t *testing.T, wrapper string, c opensshClient, bin, kex string) string {
	dir := t.TempDir()
	hostKey, hostKeyFile := newKey(t, dir, "host_ed25519")
	srv := startServer(t, exec.Command(program(t, wrapper), "-listen", "127.0.0.1:0", "-hostkey", hostKeyFile))

	answer, clientLog, err := runOpenSSH(bin, srv.port, knownHosts(t, dir, srv.port, hostKey.PublicKey()), kex)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s\nserver:\n%s", c.name, err, answer, clientLog, srv.log)
	}

	// The server's side: the session's answer and the server's log line.
	got, ok := strings.CutPrefix(answer, "kex=")
	if !ok || got == "" {
		t.Fatalf("the %s server answered %q, want kex=NAME\nclient:\n%s\nserver:\n%s", wrapper, answer, clientLog, srv.log)
	}
	if _, err := srv.waitLog(fmt.Sprintf(`"%s`, c.version), ": key exchange "+got); err != nil {
		t.Error(err)
	}
	// The client's side.
	if _, ok := findLine(clientLog, "debug1: kex: algorithm: "+got); !ok {
		t.Errorf("the server reports %s, the client's log has no \"debug1: kex: algorithm: %s\":\n%s", got, got, clientLog)
	}

	// The server's offer: Register's defaults, plus what x/crypto adds on
	// the wire (curve25519-sha256@libssh.org after curve25519-sha256, and
	// the markers kex-strict-s-v00@openssh.com and ext-info-s, which
	// negotiate nothing).
	offer, ok := lineAfter(clientLog, "debug2: peer server KEXINIT proposal", "debug2: KEX algorithms: ")
	if !ok {
		t.Fatalf("no server KEXINIT proposal in the client's log:\n%s", clientLog)
	}
	offered := strings.Split(offer, ",")
	defaults := slices.DeleteFunc(slices.Clone(offered), func(n string) bool {
		return n == "curve25519-sha256@libssh.org" || n == "ext-info-s" || strings.HasPrefix(n, "kex-strict-s-")
	})
	if want := sshkex.RecommendedKeyExchanges(); !slices.Equal(defaults, want) {
		t.Errorf("the %s server offered %s\nwant Register's defaults %q", wrapper, offer, want)
	}

	want := kex
	if kex == "" {
		// The client picks the first of its own list that the server
		// offers (RFC 4253 section 7.1): a post-quantum method, and the
		// one the table expects.
		proposal, ok := lineAfter(clientLog, "debug2: local client KEXINIT proposal", "debug2: KEX algorithms: ")
		if !ok {
			t.Fatalf("no client KEXINIT proposal in the client's log:\n%s", clientLog)
		}
		first := ""
		for _, n := range strings.Split(proposal, ",") {
			if slices.Contains(offered, n) {
				first = n
				break
			}
		}
		if first != c.defaultKex || !slices.Contains(pqNames, first) {
			t.Fatalf("%s proposes %s; its first method the server offers is %q, the test expects %s", c.name, proposal, first, c.defaultKex)
		}
		want = first
	}
	if got != want {
		t.Errorf("%s against the %s server negotiated %s, want %s", c.name, wrapper, got, want)
	}
	return got
}

// runOpenSSH runs the OpenSSH client bin with -vv against 127.0.0.1:port,
// checking the host key strictly against knownHostsFile and forcing kex
// unless it is "", with the command "kex". It returns the command's output
// (trimmed) and the client's debug log.
func runOpenSSH(bin string, port int, knownHostsFile, kex string) (answer, log string, err error) {
	args := peertest.OpenSSH{Verbose: "-vv", KnownHosts: knownHostsFile, Kex: kex, User: "user", Port: port}.Args("kex")
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), stderr.String(), fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), errors.Join(err, ctx.Err()))
	}
	return strings.TrimSpace(stdout.String()), stderr.String(), nil
}
