package peertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// StartTimeout bounds starting a server peer until it listens (~150 ms
// normally).
const StartTimeout = 15 * time.Second

// Server is a server peer started by scripts/peer-server.sh in
// --foreground mode, which execs the server in its own process.
type Server struct {
	Kind string
	Addr string // 127.0.0.1:PORT
	Port int
	Log  string // PEER_LOG: the server's debug log (sshd -E, or its stderr)
}

// StartServer starts the peer-server.sh server kind (openssh10,
// openssh92, openssh106, dropbear, tinysshd) on 127.0.0.1 with the host
// key and authorized_keys files given and further peer-server.sh start
// options args, waits until it listens, and kills it when the test ends.
func StartServer(t *testing.T, kind, hostKey, authorizedKeys string, args ...string) *Server {
	t.Helper()
	script := Need(t, "PQKEX_PEER_SERVER")
	dir := t.TempDir() // registered before any process: removed after they are killed
	var errs []error
	// peer-server.sh picks a random free port; in the unlikely case that
	// another process takes it first the server exits, and we retry.
	for attempt := 1; attempt <= 3; attempt++ {
		s, err := tryStartServer(t, script, kind, hostKey, authorizedKeys, filepath.Join(dir, fmt.Sprintf("state%d", attempt)), args...)
		if err == nil {
			return s
		}
		errs = append(errs, fmt.Errorf("attempt %d: %w", attempt, err))
	}
	t.Fatalf("starting %s: %v", kind, errors.Join(errs...))
	return nil
}

func tryStartServer(t *testing.T, script, kind, hostKey, authKeys, stateDir string, args ...string) (*Server, error) {
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
	s := &Server{Kind: kind}
	exited := make(chan struct{}) // closed when cmd.Wait returned
	// The script prints PEER_* lines and closes its stdout before it execs
	// the server. If it hangs instead, kill it.
	watchdog := time.AfterFunc(StartTimeout, func() { cmd.Process.Kill() })
	out, readErr := io.ReadAll(stdout)
	go func() { cmd.Wait(); close(exited) }() // only after all reads from stdout
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	fail := func(format string, args ...any) (*Server, error) {
		watchdog.Stop()
		stop()
		msg := fmt.Sprintf(format, args...)
		return nil, fmt.Errorf("%s\nscript stderr:\n%s\nserver log:\n%s", msg, Tail(stderr.String()), ReadTail(s.Log))
	}
	if readErr != nil {
		return fail("reading peer-server.sh output: %v", readErr)
	}
	env := map[string]string{}
	for _, l := range Lines(string(out)) {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	s.Log = env["PEER_LOG"]
	s.Port, err = strconv.Atoi(env["PEER_PORT"])
	if err != nil || s.Log == "" {
		return fail("peer-server.sh printed no PEER_PORT/PEER_LOG: %q", out)
	}
	if pid := env["PEER_PID"]; pid != strconv.Itoa(cmd.Process.Pid) {
		return fail("PEER_PID=%s is not the process we started (%d)", pid, cmd.Process.Pid)
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))

	// Poll until our process (not some other one) listens on the port.
	deadline := time.Now().Add(StartTimeout)
	for {
		select {
		case <-exited:
			watchdog.Stop()
			return nil, fmt.Errorf("%s exited before listening on %s: %v\nscript stderr:\n%s\nserver log:\n%s",
				kind, s.Addr, cmd.ProcessState, Tail(stderr.String()), ReadTail(s.Log))
		default:
		}
		ports, err := ListeningPorts(cmd.Process.Pid)
		if err != nil {
			return fail("checking the listener: %v", err)
		}
		if slices.Contains(ports, s.Port) {
			break
		}
		if time.Now().After(deadline) {
			return fail("%s does not listen on %s after %v", kind, s.Addr, StartTimeout)
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
		if ok, err := Listening(s.Port); err == nil && ok {
			t.Errorf("something still listens on %s after killing %s", s.Addr, kind)
		}
	})
	return s, nil
}
