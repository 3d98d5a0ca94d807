//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

// serveChildEnv makes the test binary run "pqkex serve" with the
// variable's value as arguments, and serveFDsEnv, if set, with its
// descriptor limit lowered to that many.
const (
	serveChildEnv = "PQKEX_TEST_SERVE_CHILD"
	serveFDsEnv   = "PQKEX_TEST_SERVE_FDS"
)

func TestMain(m *testing.M) {
	if kex, ok := os.LookupEnv(clientChildEnv); ok {
		os.Exit(testClient(kex, os.Args[len(os.Args)-1]))
	}
	if args, ok := os.LookupEnv(serveChildEnv); ok {
		if n, err := strconv.ParseUint(os.Getenv(serveFDsEnv), 10, 64); err == nil {
			rl := syscall.Rlimit{Cur: n, Max: n}
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
				panic(err)
			}
		}
		os.Exit(runServe(strings.Fields(args), os.Stdout, os.Stderr))
	}
	// "pqkex serve" without -hostkey keeps its key under the user's
	// configuration directory: the tests' go to a directory of their own.
	dir, err := os.MkdirTemp("", "pqkex-cmd-test-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	builtDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// clientChildEnv makes the test binary an SSH client (x/crypto with
// sshkex.Register) that offers the variable's key exchanges and connects
// once to the address its last argument gives: a client under test for
// check -listen -run.
const clientChildEnv = "PQKEX_TEST_CLIENT_CHILD"

// testClient connects once to addr offering kex (comma-separated) and
// returns 0 whatever the key exchange's outcome: check judges it.
func testClient(kex, addr string) int {
	if err := sshkex.Register(); err != nil {
		return 1
	}
	cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
	cfg.KeyExchanges = strings.Split(kex, ",")
	if c, err := ssh.Dial("tcp", addr, cfg); err == nil {
		c.Wait() // until check ends the case (rekey starts a re-exchange after authentication)
		c.Close()
	}
	return 0
}

// clientChild is a -run command that runs the test binary as a client
// (testClient) offering kex.
func clientChild(t *testing.T, kex string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return clientChildEnv + "=" + kex + " " + shellQuote(exe) + " -test.run=^$ {addr}"
}

// serveChild is "pqkex serve" running in a child process.
type serveChild struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	lines  chan string
	exited chan error
	log    []string // lines read so far
	waited bool     // exited was read: err is cmd.Wait's result
	err    error
}

// startServe runs "pqkex serve ARGS" in a child process (with its
// descriptor limit lowered to fds, if not 0) and waits for it to listen.
// The cleanup interrupts it.
func startServe(t *testing.T, fds int, args string) *serveChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveChildEnv+"="+args)
	if fds > 0 {
		cmd.Env = append(cmd.Env, serveFDsEnv+"="+strconv.Itoa(fds))
	}
	stdout := sshtest.Start(t, cmd)
	c := &serveChild{t: t, cmd: cmd, lines: make(chan string, 100000), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { c.stop() })
	for c.addr == "" {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("serve exited before listening: %q", c.log)
			}
			c.log = append(c.log, l)
			if a, ok := strings.CutPrefix(l, "listening on "); ok {
				c.addr, _, _ = strings.Cut(a, ",")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not start")
		}
	}
	return c
}

// stop interrupts serve, waits for it to exit and collects its last log
// lines; it returns the whole log.
func (c *serveChild) stop() []string {
	if c.waited {
		return c.log
	}
	c.cmd.Process.Signal(os.Interrupt)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.err, c.waited = <-c.exited, true
				return c.log
			}
			c.log = append(c.log, l)
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			c.t.Errorf("serve did not exit after an interrupt")
			return c.log
		}
	}
}

// collect reads log lines until none has come for quiet; it returns the
// whole log so far.
func (c *serveChild) collect(quiet time.Duration) []string {
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return c.log
			}
			c.log = append(c.log, l)
		case <-time.After(quiet):
			return c.log
		}
	}
}

// running fails the test if serve has exited.
func (c *serveChild) running() {
	c.t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err
		c.t.Fatalf("serve exited (%v): %q", err, c.log)
	default:
	}
}

// TestServeDescriptorLimit runs "pqkex serve" in a child process whose
// descriptor limit is 64 and opens 100 connections to it that never
// speak: with the default limits the server refuses what it cannot
// afford; with limits above the descriptor limit Accept fails with
// EMFILE and the server retries. Either way it must still be running and
// complete a handshake once the flood is gone.
func TestServeDescriptorLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test lowers RLIMIT_NOFILE and counts on Linux's accept errors")
	}
	for _, tc := range []struct {
		name, args string
		wantLog    []string
	}{
		{"defaults", "", []string{"limits: max-startups 32:30:48, per-source-max-startups 12, per-source-max-conns 12, per-source-net-block-size 32:128, max-conns 48,", "refused: 12 connections from 127.0.0.1/32 (per-source-max-conns 12)"}},
		{"limits above the descriptor limit", "-max-conns 1000 -max-startups 1000 -per-source-max-startups 0 -per-source-max-conns 0", []string{"too many open files; retrying in "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServe(t, 64, "-listen 127.0.0.1:0 -login-grace-time 60s "+tc.args)
			addr := srv.addr
			var flood []net.Conn
			for range 100 {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Fatalf("connection %d: %v", len(flood), err)
				}
				flood = append(flood, c)
			}
			time.Sleep(1500 * time.Millisecond) // several rounds of backoff
			srv.running()
			for _, c := range flood {
				c.Close()
			}

			// A real client now: it must be served.
			cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
			var c *ssh.Client
			var err error
			deadline := time.Now().Add(20 * time.Second)
			for c == nil {
				if c, err = ssh.Dial("tcp", addr, cfg); err != nil && time.Now().After(deadline) {
					t.Fatalf("no handshake after the flood: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			defer c.Close()
			sess, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			out, err := sess.Output("kex")
			if err != nil || !strings.HasPrefix(string(out), "kex=") {
				t.Fatalf("command: %q, %v", out, err)
			}
			all := strings.Join(srv.collect(200*time.Millisecond), "\n")
			for _, want := range tc.wantLog {
				if !strings.Contains(all, want) {
					t.Errorf("log lacks %q:\n%s", want, all)
				}
			}
			t.Logf("served %q after the flood; log:\n%s", strings.TrimSpace(string(out)), firstLines(all, 6))
		})
	}
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}
