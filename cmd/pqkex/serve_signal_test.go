//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
)

// TestServeSignals builds the pqkex command and stops "pqkex serve" the
// way a daemon is stopped (SIGTERM: systemd, docker stop, kill) and from a
// terminal (SIGINT). Before the signal, 50 handshakes fail from 127.0.0.1,
// more than the log writes one by one, and a client stays logged in with
// a session open. Each signal must stop the server within 5 s with exit
// status 0, after writing the summary of the failures not yet logged and
// closing the open connection.
func TestServeSignals(t *testing.T) {
	bin := builtCommand(t)
	const failures = 50
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "-listen", "127.0.0.1:0", "-kex", "mlkem768x25519-sha256")
			stdout := sshtest.Start(t, cmd)
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
			defer cmd.Process.Kill()
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

			// Handshakes that fail: the server offers only mlkem768x25519.
			bad := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
				Config: ssh.Config{KeyExchanges: []string{"curve25519-sha256"}}}
			for i := range failures {
				if c, err := ssh.Dial("tcp", addr, bad); err == nil {
					c.Close()
					t.Fatalf("handshake %d with curve25519-sha256 succeeded", i)
				}
			}
			// A client logged in, its session waiting for a command.
			good := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
			client, err := ssh.Dial("tcp", addr, good)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			if _, err := client.NewSession(); err != nil {
				t.Fatal(err)
			}
			clientDone := make(chan error, 1)
			go func() { clientDone <- client.Wait() }()
			// Every failure has reached the log (or its count) before the
			// signal: the login line comes after them.
			for !strings.Contains(strings.Join(log, "\n"), `kex=mlkem768x25519-sha256 `) {
				select {
				case l := <-lines:
					log = append(log, l)
				case <-time.After(10 * time.Second):
					t.Fatalf("no login line: %q", log)
				}
			}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			signaled, before := time.Now(), len(log)
			var waitErr error
		collect:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						waitErr = <-exited
						break collect
					}
					log = append(log, l)
				case <-time.After(5*time.Second - time.Since(signaled)):
					t.Fatalf("serve still running 5 s after %v; its log:\n%s", sig, strings.Join(log, "\n"))
				}
			}
			took := time.Since(signaled)
			if waitErr != nil {
				t.Errorf("after %v serve exited with %v (%v), want exit status 0", sig, waitErr, cmd.ProcessState)
			}
			select {
			case <-clientDone:
			case <-time.After(time.Second):
				t.Errorf("the logged-in client's connection is still open after serve exited")
			}
			// Every failure is logged one by one or counted in a summary,
			// and a summary of the pending ones is written after the
			// signal (one written before it, if the 10 s window ended
			// meanwhile, does not count).
			logged, summarized, pending := 0, 0, 0
			for i, l := range log {
				var n int
				if strings.Contains(l, ": handshake failed: ") {
					logged++
				} else if _, err := fmt.Sscanf(l, "127.0.0.1/32: %d more handshake failures", &n); err == nil {
					summarized += n
					if i >= before {
						pending += n
					}
				}
			}
			if logged+summarized != failures || pending == 0 {
				t.Errorf("after %v: of %d failures %d logged one by one, %d in summaries, %d in a summary written after the signal; log:\n%s",
					sig, failures, logged, summarized, pending, strings.Join(log, "\n"))
			}
			t.Logf("%v: exited after %v with %v; %d failures logged one by one, %d in the summary written on the way out; last lines:\n%s",
				sig, took.Round(time.Millisecond), cmd.ProcessState, logged, pending, strings.Join(log[max(0, len(log)-3):], "\n"))
		})
	}
}

// TestServeSignalAtOnce: SIGINT sent the moment serve prints its address
// stops it with exit status 0, also when serve was started with SIGINT
// ignored, as a script's background job or nohup starts it (the parent
// ignores SIGINT here, and an ignored signal stays ignored across exec).
// Before serve caught its signals ahead of printing the address, such a
// signal was lost and serve ran on; without the ignoring, it killed serve
// before its log summaries.
func TestServeSignalAtOnce(t *testing.T) {
	signal.Ignore(os.Interrupt)
	defer signal.Reset(os.Interrupt)
	for i := range 5 {
		c := startServe(t, 0, "-listen 127.0.0.1:0 -hostkey=")
		c.stop()
		if !c.waited || c.err != nil {
			t.Fatalf("start %d: SIGINT at once: serve exited: %v, with %v; want exit status 0", i+1, c.waited, c.err)
		}
	}
}
