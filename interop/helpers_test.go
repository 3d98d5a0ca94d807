package interop

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/kexserver"
	"github.com/pqkex/pqkex/internal/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

const (
	// caseTimeout bounds one handshake plus command, so that a hung peer
	// fails its case instead of hanging CI.
	caseTimeout = 30 * time.Second
	// startTimeout bounds starting a server peer until it listens (~150 ms
	// normally).
	startTimeout = 15 * time.Second
	// logTimeout bounds waiting for a peer's log line that is written
	// asynchronously (after a refused handshake, say).
	logTimeout = 5 * time.Second
)

// The key exchanges under test.
const (
	mlkem        = sshkex.KeyExchangeMLKEM768X25519         // "mlkem768x25519-sha256"
	sntrup       = sshkex.KeyExchangeSNTRUP761X25519        // "sntrup761x25519-sha512"
	sntrupAlias  = sshkex.KeyExchangeSNTRUP761X25519OpenSSH // "sntrup761x25519-sha512@openssh.com"
	nistp256     = sshkex.KeyExchangeMLKEM768NISTP256       // "mlkem768nistp256-sha256"
	nistp384     = sshkex.KeyExchangeMLKEM1024NISTP384      // "mlkem1024nistp384-sha384"
	noCommonKex  = "no common algorithm for key exchange"   // x/crypto's negotiation error
	opensshNoKex = "no matching key exchange method found"  // OpenSSH's
)

// allKex are the X25519-based names, which every OpenSSH >= 10.0 has;
// allFive adds the NIST-curve hybrids (PuTTY >= 0.83 has all five,
// OpenSSH 10.5 and later mlkem768nistp256-sha256 but not
// mlkem1024nistp384-sha384).
var (
	allKex  = []string{mlkem, sntrup, sntrupAlias}
	allFive = []string{nistp256, nistp384, mlkem, sntrup, sntrupAlias}
)

func TestMain(m *testing.M) {
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(os.Stderr, "sshkex.Register:", err)
		os.Exit(1)
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// ---------------------------------------------------------------- skipping

// inCI reports whether a missing peer must fail the test instead of
// skipping it.
func inCI() bool { return os.Getenv("CI") == "true" }

// unavailable skips the test, or fails it under CI=true.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if inCI() {
		t.Fatalf("CI=true and %s", msg)
	}
	t.Skip(msg)
}

// needRoot skips (fails under CI=true) unless the test runs as root, which
// the peers need (chroot, mount namespaces, logging in as root).
func needRoot(t *testing.T) {
	t.Helper()
	if euid := os.Geteuid(); euid != 0 {
		unavailable(t, "the interop peers need root, running as euid %d", euid)
	}
}

// needPeer returns the file named by the environment variable name, which
// scripts/peer-env.sh sets for installed peers. It skips the test (fails it
// under CI=true) if the variable is empty or the file does not exist.
func needPeer(t *testing.T, name string) string {
	t.Helper()
	p := os.Getenv(name)
	if p == "" {
		unavailable(t, "%s is not set (install the peers with scripts/install-peers.sh, then "+
			`eval "$(bash scripts/peer-env.sh --export)")`, name)
	}
	if _, err := os.Stat(p); err != nil {
		unavailable(t, "%s=%s does not exist: %v", name, p, err)
	}
	return p
}

// ---------------------------------------------------------------- keys

type key struct {
	priv   ed25519.PrivateKey
	signer ssh.Signer
}

func newKey(t *testing.T) key {
	t.Helper()
	priv, s := sshtest.Ed25519Key(t)
	return key{priv: priv, signer: s}
}

func (k key) pub() ssh.PublicKey { return k.signer.PublicKey() }

// openSSH returns the unencrypted OpenSSH-format private key.
func (k key) openSSH(t *testing.T) []byte {
	t.Helper()
	b, err := ssh.MarshalPrivateKey(k.priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(b)
}

// dropbear returns the private key in dropbear's format (scripts/README.md):
// string "ssh-ed25519" || string(seed || public key), 83 bytes.
func (k key) dropbear() []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(ssh.KeyAlgoED25519)))
	b = append(b, ssh.KeyAlgoED25519...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(k.priv)))
	return append(b, k.priv...)
}

// authorizedKey returns the authorized_keys / known_hosts form
// "ssh-ed25519 AAAA..." with a newline.
func (k key) authorizedKey() []byte { return ssh.MarshalAuthorizedKey(k.pub()) }

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ---------------------------------------------------------------- logs

// lines splits output into lines, dropping the \r of OpenSSH's \r\n.
func lines(b []byte) []string {
	return strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n")
}

func findLine(b []byte, match func(string) bool) (string, bool) {
	for _, l := range lines(b) {
		if match(l) {
			return l, true
		}
	}
	return "", false
}

// waitLogLine polls the file path until a line satisfies match, for up to
// logTimeout, and returns that line.
func waitLogLine(path string, match func(string) bool) (string, error) {
	deadline := time.Now().Add(logTimeout)
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		if l, ok := findLine(data, match); ok {
			return l, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no matching line in %s after %v; it holds:\n%s", path, logTimeout, tail(data))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tail returns the last 60 lines of b for error messages.
func tail(b []byte) string {
	ls := lines(bytes.TrimRight(b, "\r\n"))
	if len(ls) > 60 {
		ls = append([]string{"..."}, ls[len(ls)-60:]...)
	}
	return strings.Join(ls, "\n")
}

// exactLine matches a line equal to want.
func exactLine(want string) func(string) bool {
	return func(l string) bool { return l == want }
}

// containsLine matches a line containing want.
func containsLine(want string) func(string) bool {
	return func(l string) bool { return strings.Contains(l, want) }
}

// ---------------------------------------------------------------- server peers

// peerServer is a server peer started by scripts/peer-server.sh in
// --foreground mode: cmd is the server process itself.
type peerServer struct {
	kind   string
	addr   string // 127.0.0.1:PORT
	log    string // PEER_LOG: the server's debug log (sshd -E, or its stderr)
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd.Wait returned
}

// startPeerServer starts the server peer kind (openssh10, openssh92,
// openssh106, dropbear, tinysshd) on 127.0.0.1 with hostKey and the single
// authorized client key and further peer-server.sh options args, waits
// until it listens, and kills it when the test ends.
func startPeerServer(t *testing.T, kind string, hostKey key, client ssh.PublicKey, args ...string) *peerServer {
	t.Helper()
	script := needPeer(t, "PQKEX_PEER_SERVER")
	dir := t.TempDir() // registered before any process: removed after they are killed
	hk := writeFile(t, filepath.Join(dir, "hostkey"), hostKey.openSSH(t))
	ak := writeFile(t, filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(client))
	var errs []error
	// peer-server.sh picks a random free port; in the unlikely case that
	// another process takes it first the server exits, and we retry.
	for attempt := 1; attempt <= 3; attempt++ {
		s, err := tryStartPeerServer(t, script, kind, hk, ak, filepath.Join(dir, fmt.Sprintf("state%d", attempt)), args...)
		if err == nil {
			return s
		}
		errs = append(errs, fmt.Errorf("attempt %d: %w", attempt, err))
	}
	t.Fatalf("starting %s: %v", kind, errors.Join(errs...))
	return nil
}

func tryStartPeerServer(t *testing.T, script, kind, hostKey, authKeys, stateDir string, args ...string) (*peerServer, error) {
	cmd := exec.Command("bash", append([]string{script, "start", kind, "--foreground",
		"--hostkey", hostKey, "--authorized-keys", authKeys, "--dir", stateDir}, args...)...)
	// The script's own errors come before it execs the server; after that
	// the server's stdout and stderr go to PEER_LOG.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &peerServer{kind: kind, cmd: cmd, exited: make(chan struct{})}
	// The script prints PEER_* lines and closes its stdout before it execs
	// the server. If it hangs instead, kill it.
	watchdog := time.AfterFunc(startTimeout, func() { cmd.Process.Kill() })
	out, readErr := io.ReadAll(stdout)
	go func() { cmd.Wait(); close(s.exited) }() // only after all reads from stdout
	stop := func() {
		cmd.Process.Kill()
		<-s.exited
	}
	fail := func(format string, args ...any) (*peerServer, error) {
		watchdog.Stop()
		stop()
		msg := fmt.Sprintf(format, args...)
		return nil, fmt.Errorf("%s\nscript stderr:\n%s\nserver log:\n%s", msg, tail(stderr.Bytes()), readTail(s.log))
	}
	if readErr != nil {
		return fail("reading peer-server.sh output: %v", readErr)
	}
	env := map[string]string{}
	for _, l := range lines(out) {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	s.log = env["PEER_LOG"]
	port, err := strconv.Atoi(env["PEER_PORT"])
	if err != nil || s.log == "" {
		return fail("peer-server.sh printed no PEER_PORT/PEER_LOG: %q", out)
	}
	if pid := env["PEER_PID"]; pid != strconv.Itoa(cmd.Process.Pid) {
		return fail("PEER_PID=%s is not the process we started (%d)", pid, cmd.Process.Pid)
	}
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	// Poll until our process (not some other one) listens on the port.
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-s.exited:
			watchdog.Stop()
			return nil, fmt.Errorf("%s exited before listening on %s: %v\nscript stderr:\n%s\nserver log:\n%s",
				kind, s.addr, cmd.ProcessState, tail(stderr.Bytes()), readTail(s.log))
		default:
		}
		ok, err := ownsListener(cmd.Process.Pid, port)
		if err != nil {
			return fail("checking the listener: %v", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return fail("%s does not listen on %s after %v", kind, s.addr, startTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	watchdog.Stop()
	t.Cleanup(func() {
		// Let the server's per-connection processes (sshd's session
		// processes, tcpserver's tinysshd) finish and be reaped by the
		// server first: killed before them, the server would orphan them.
		pid := cmd.Process.Pid
		deadline := time.Now().Add(3 * time.Second)
		for len(liveDescendants(pid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		for _, d := range liveDescendants(pid) {
			t.Logf("killing %s's leftover process %d", kind, d)
			if p, err := os.FindProcess(d); err == nil {
				p.Kill()
			}
		}
		stop()
		if l, err := listenInodes(port); err == nil && len(l) > 0 {
			t.Errorf("something still listens on %s after killing %s", s.addr, kind)
		}
	})
	return s, nil
}

// liveDescendants returns the processes below pid that have not exited
// (zombies are left out: they are dead, and their parent reaps them).
func liveDescendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...", where comm may hold spaces and ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(stat[i+1:]))
		if len(fs) < 2 || fs[0] == "Z" || fs[0] == "X" {
			continue
		}
		if pp, err := strconv.Atoi(fs[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

func readTail(path string) string {
	if path == "" {
		return "(none)"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(b)
}

// listenInodes returns the socket inodes of TCP listeners on port, from
// /proc/net/tcp{,6}.
func listenInodes(port int) (map[string]bool, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			if f == "/proc/net/tcp6" && errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) < 10 || fs[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
				inodes[fs[9]] = true
			}
		}
	}
	return inodes, nil
}

// ownsListener reports whether process pid has a socket listening on port.
// Checking the owner (not just dialing the port) means a port collision
// cannot be mistaken for our server, and polling makes no connection the
// server would log.
func ownsListener(pid, port int) (bool, error) {
	inodes, err := listenInodes(port)
	if err != nil || len(inodes) == 0 {
		return false, err
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return false, nil // exited meanwhile; the caller sees that
	}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// dialPeer logs in to addr as root with client's key, offering only kex and
// accepting only hostKey. The connection's deadline is caseTimeout.
func dialPeer(addr, kex string, hostKey ssh.PublicKey, client ssh.Signer) (*ssh.Client, error) {
	cfg := &ssh.ClientConfig{
		User:              "root",
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(client)},
		HostKeyCallback:   ssh.FixedHostKey(hostKey),
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
	}
	cfg.KeyExchanges = []string{kex}
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(caseTimeout))
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// ---------------------------------------------------------------- Go server

// goServer is a kexserver on 127.0.0.1:0 that records its log lines.
type goServer struct {
	srv  *kexserver.Server
	port int
	mu   sync.Mutex
	logs []string
}

func startGoServer(t *testing.T, hostKey key, kexs []string) *goServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &goServer{srv: kexserver.New(l, kexserver.Config([]ssh.Signer{hostKey.signer}, kexs))}
	g.port = l.Addr().(*net.TCPAddr).Port
	g.srv.Log = func(s string) {
		g.mu.Lock()
		g.logs = append(g.logs, s)
		g.mu.Unlock()
	}
	served := make(chan struct{})
	go func() { g.srv.Serve(); close(served) }()
	t.Cleanup(func() { g.srv.Close(); <-served })
	return g
}

// waitLog waits up to logTimeout for a log line containing all of want.
func (g *goServer) waitLog(want ...string) (string, error) {
	deadline := time.Now().Add(logTimeout)
	for {
		g.mu.Lock()
		logs := append([]string(nil), g.logs...)
		g.mu.Unlock()
	next:
		for _, l := range logs {
			for _, w := range want {
				if !strings.Contains(l, w) {
					continue next
				}
			}
			return l, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the Go server logged no line containing %q; it logged %q", want, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
