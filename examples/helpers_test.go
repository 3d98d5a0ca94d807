package examples

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// The key exchanges under test.
const (
	mlkem       = sshkex.KeyExchangeMLKEM768X25519         // "mlkem768x25519-sha256"
	sntrup      = sshkex.KeyExchangeSNTRUP761X25519        // "sntrup761x25519-sha512"
	sntrupAlias = sshkex.KeyExchangeSNTRUP761X25519OpenSSH // "sntrup761x25519-sha512@openssh.com"
	nistp256    = sshkex.KeyExchangeMLKEM768NISTP256       // "mlkem768nistp256-sha256"
	nistp384    = sshkex.KeyExchangeMLKEM1024NISTP384      // "mlkem1024nistp384-sha384"
	curve25519  = "curve25519-sha256"                      // a classical control
)

// pqNames are pqkex's post-quantum names.
var pqNames = []string{mlkem, sntrup, sntrupAlias, nistp256, nistp384}

// caseTimeout bounds one client run.
const caseTimeout = 30 * time.Second

// programs are the example programs, built on first use.
var programs = peertest.Programs{Packages: []string{"./gliderlabs", "./wish", "./client", "./gogit", "./sftp"}}

func TestMain(m *testing.M) { peertest.Main(m, sshkex.Register, &programs) }

// program returns the path of the example program name (gliderlabs,
// wish, client).
func program(t *testing.T, name string) string {
	t.Helper()
	return programs.Path(t, name)
}

// ---------------------------------------------------------------- peers

// needPeer returns the file named by the environment variable name (set by
// scripts/peer-env.sh). Without it, or without root, the test skips, or
// fails under CI=true.
func needPeer(t *testing.T, name string) string {
	t.Helper()
	peertest.NeedRoot(t)
	return peertest.Need(t, name)
}

// ---------------------------------------------------------------- keys

// newKey returns a fresh ed25519 signer and its unencrypted OpenSSH
// private key file in dir.
func newKey(t *testing.T, dir, name string) (ssh.Signer, string) {
	t.Helper()
	priv, s := sshtest.Ed25519Key(t)
	b, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(b), 0o600); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// knownHosts writes a known_hosts file in dir naming key for 127.0.0.1:port.
func knownHosts(t *testing.T, dir string, port int, key ssh.PublicKey) string {
	t.Helper()
	path := filepath.Join(dir, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s", port, ssh.MarshalAuthorizedKey(key))
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loginSSHD is a peer sshd that lets root log in with a fresh client key.
type loginSSHD struct {
	*peertest.Server
	Dir        string     // the test's temporary directory, holding the keys
	HostKey    ssh.Signer // the server's host key
	Identity   string     // the client's private key file
	KnownHosts string     // a known_hosts file naming HostKey for the server's port
}

// startLoginSSHD starts the peer sshd kind (peertest.StartServer, whose
// variable needPeer must already have checked) in a new temporary
// directory, with a fresh ed25519 host key and an authorized_keys file
// holding a fresh client key; kex, unless "", is its KexAlgorithms, and
// args are more peer-server.sh options.
func startLoginSSHD(t *testing.T, kind, kex string, args ...string) loginSSHD {
	t.Helper()
	dir := t.TempDir()
	hostKey, hostKeyFile := newKey(t, dir, "hostkey")
	clientKey, identity := newKey(t, dir, "id_ed25519")
	authKeys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(clientKey.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	if kex != "" {
		args = append(args, "--kex", kex)
	}
	sshd := peertest.StartServer(t, kind, hostKeyFile, authKeys, args...)
	return loginSSHD{Server: sshd, Dir: dir, HostKey: hostKey, Identity: identity,
		KnownHosts: knownHosts(t, dir, sshd.Port, hostKey.PublicKey())}
}

// login runs the example program name as a client of s, logging in as
// root with s's identity and known_hosts files, with args after those
// flags, bounded by caseTimeout; it returns the program's output and
// fails t with it and the tail of sshd's log if the program fails.
func (s loginSSHD) login(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	args = append([]string{"-user", "root", "-identity", s.Identity, "-known-hosts", s.KnownHosts}, args...)
	out, err := exec.CommandContext(ctx, program(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\nsshd log:\n%s", name, strings.Join(args, " "), errors.Join(err, ctx.Err()), out, peertest.ReadTail(s.Log))
	}
	return string(out)
}

// ---------------------------------------------------------------- processes

// syncBuffer collects a process's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a server process listening on 127.0.0.1.
type server struct {
	port   int
	log    *syncBuffer // its stdout and stderr
	exited chan struct{}
}

// startServer runs cmd, waits until it listens on a TCP port and returns
// that port. The test's cleanup kills it.
func startServer(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	s := &server{log: new(syncBuffer), exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.exited
	})
	deadline := time.Now().Add(peertest.StartTimeout)
	for {
		select {
		case <-s.exited:
			t.Fatalf("%s exited before listening (%v):\n%s", cmd.Path, cmd.ProcessState, s.log)
		default:
		}
		ports, err := peertest.ListeningPorts(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(ports) == 1 {
			s.port = ports[0]
			return s
		}
		if len(ports) > 1 || time.Now().After(deadline) {
			t.Fatalf("%s listens on ports %v after %v:\n%s", cmd.Path, ports, peertest.StartTimeout, s.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitLog waits up to peertest.LogTimeout for a line of the server's
// output that contains every string of want, and returns it.
func (s *server) waitLog(want ...string) (string, error) {
	return peertest.WaitLine("the server's output", func() (string, error) { return s.log.String(), nil }, peertest.ContainsAll(want...))
}

// ---------------------------------------------------------------- output

// findLine returns the first line of out containing every string of want.
func findLine(out string, want ...string) (string, bool) {
	return peertest.FindLine(out, peertest.ContainsAll(want...))
}

// lineAfter returns the first line starting with prefix that follows the
// line equal to marker (as in ssh -vv's "debug2: peer server KEXINIT
// proposal", then "debug2: KEX algorithms: ...").
func lineAfter(out, marker, prefix string) (string, bool) {
	seen := false
	for _, l := range peertest.Lines(out) {
		if l == marker {
			seen = true
		} else if v, ok := strings.CutPrefix(l, prefix); ok && seen {
			return v, true
		}
	}
	return "", false
}
