//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// serveChildEnv makes the test binary run "pqkex serve" with its
// descriptor limit lowered to serveChildFDs, in TestServeDescriptorLimit.
const (
	serveChildEnv = "PQKEX_TEST_SERVE_CHILD"
	serveChildFDs = 64
)

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(serveChildEnv); ok {
		rl := syscall.Rlimit{Cur: serveChildFDs, Max: serveChildFDs}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			panic(err)
		}
		os.Exit(runServe(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
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
		{"defaults", "", []string{"limits: 32 unauthenticated, 48 connections", "refused "}},
		{"limits above the descriptor limit", "-max-conns 1000 -max-startups 1000", []string{"too many open files; retrying in "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), serveChildEnv+"=-listen 127.0.0.1:0 -login-grace-time 60s "+tc.args)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			lines := make(chan string, 1000)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				exited <- cmd.Wait()
			}()
			defer func() {
				cmd.Process.Signal(os.Interrupt)
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
				}
			}()
			var log []string
			addr := ""
			for addr == "" {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("serve exited before listening: %q", log)
					}
					log = append(log, l)
					if a, ok := strings.CutPrefix(l, "listening on "); ok {
						addr, _, _ = strings.Cut(a, ",")
					}
				case <-time.After(30 * time.Second):
					t.Fatal("serve did not start")
				}
			}

			var flood []net.Conn
			for range 100 {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Fatalf("connection %d: %v", len(flood), err)
				}
				flood = append(flood, c)
			}
			time.Sleep(1500 * time.Millisecond) // several rounds of backoff
			select {
			case err := <-exited:
				t.Fatalf("serve exited under the flood (%v): %q", err, log)
			default:
			}
			for _, c := range flood {
				c.Close()
			}

			// A real client now: it must be served.
			cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
			var c *ssh.Client
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
			// Collect the log so far.
			for done := false; !done; {
				select {
				case l := <-lines:
					log = append(log, l)
				case <-time.After(200 * time.Millisecond):
					done = true
				}
			}
			all := strings.Join(log, "\n")
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
