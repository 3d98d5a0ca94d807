package examples

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

const (
	startTimeout = 15 * time.Second // a server until it listens
	caseTimeout  = 30 * time.Second // one client run
)

// binDir holds the example programs, built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(os.Stderr, "sshkex.Register:", err)
		os.Exit(1)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// program returns the path of the example program name (gliderlabs, wish,
// client), building all three on first use with the go command that runs
// the tests (GOTOOLCHAIN included).
func program(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "pqkex-examples-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./gliderlabs", "./wish", "./client").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

// ---------------------------------------------------------------- peers

// needPeer returns the file named by the environment variable name (set by
// scripts/peer-env.sh). Without it the test skips, or fails under CI=true.
func needPeer(t *testing.T, name string) string {
	t.Helper()
	unavailable := t.Skipf
	if os.Getenv("CI") == "true" {
		unavailable = t.Fatalf
	}
	if euid := os.Geteuid(); euid != 0 {
		unavailable("the OpenSSH peers need root, running as euid %d", euid)
	}
	p := os.Getenv(name)
	if p == "" {
		unavailable("%s is not set: install the peers with scripts/install-peers.sh, then "+
			`eval "$(bash scripts/peer-env.sh --require --export)"`, name)
	}
	if _, err := os.Stat(p); err != nil {
		unavailable("%s=%s: %v", name, p, err)
	}
	return p
}

// ---------------------------------------------------------------- keys

// newKey returns a fresh ed25519 signer and its unencrypted OpenSSH
// private key file in dir.
func newKey(t *testing.T, dir, name string) (ssh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
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
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-s.exited:
			t.Fatalf("%s exited before listening (%v):\n%s", cmd.Path, cmd.ProcessState, s.log)
		default:
		}
		ports, err := listeningPorts(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(ports) == 1 {
			s.port = ports[0]
			return s
		}
		if len(ports) > 1 || time.Now().After(deadline) {
			t.Fatalf("%s listens on ports %v after %v:\n%s", cmd.Path, ports, startTimeout, s.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitLog waits up to 5 s for a line of the server's output that contains
// every string of want, and returns it.
func (s *server) waitLog(want ...string) (string, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := s.log.String()
		if l, ok := findLine(out, want...); ok {
			return l, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no line with %q in the server's output:\n%s", want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listeningPorts returns the TCP ports that process pid listens on, from
// its descriptors and /proc/net/tcp{,6} (Linux). Reading the owner, not
// dialing, means no other process's port is mistaken for the server's.
func listeningPorts(pid int) ([]int, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return nil, nil // exited meanwhile; the caller sees that
	}
	inodes := map[string]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var ports []int
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) && f == "/proc/net/tcp6" {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				ports = append(ports, int(p))
			}
		}
	}
	return ports, nil
}

// ---------------------------------------------------------------- output

// lines splits output into lines, dropping the \r of OpenSSH's \r\n.
func lines(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
}

// findLine returns the first line of out containing every string of want.
func findLine(out string, want ...string) (string, bool) {
next:
	for _, l := range lines(out) {
		for _, w := range want {
			if !strings.Contains(l, w) {
				continue next
			}
		}
		return l, true
	}
	return "", false
}

// lineAfter returns the first line starting with prefix that follows the
// line equal to marker (as in ssh -vv's "debug2: peer server KEXINIT
// proposal", then "debug2: KEX algorithms: ...").
func lineAfter(out, marker, prefix string) (string, bool) {
	seen := false
	for _, l := range lines(out) {
		if l == marker {
			seen = true
		} else if v, ok := strings.CutPrefix(l, prefix); ok && seen {
			return v, true
		}
	}
	return "", false
}
