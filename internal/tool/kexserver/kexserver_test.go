package kexserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

var raceEnabled bool // set by race_test.go

func hostKey(t testing.TB) ssh.Signer { return sshtest.HostKey(t) }

// start runs a server with pqkex's key exchanges on loopback; configure
// sets its limits before Serve.
func start(t testing.TB, configure func(*Server)) (*Server, *ssh.ClientConfig) {
	t.Helper()
	if err := sshkex.Register(); err != nil {
		t.Fatal(err)
	}
	key := hostKey(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(l, Config([]ssh.Signer{key}, nil))
	if configure != nil {
		configure(s)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	// No Auth methods: the client tries "none", which the server accepts.
	return s, &ssh.ClientConfig{User: "u", HostKeyCallback: ssh.FixedHostKey(key.PublicKey()), Timeout: 10 * time.Second}
}

func dial(s *Server, cfg *ssh.ClientConfig) (*ssh.Client, error) {
	return ssh.Dial("tcp", s.Addr().String(), cfg)
}

// runKex runs a command and checks the server's answer.
func runKex(c *ssh.Client) error {
	sess, err := c.NewSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	out, err := sess.Output("kex")
	if err != nil {
		return err
	}
	if want := "kex=" + sshkex.KeyExchangeMLKEM768X25519 + "\n"; string(out) != want {
		return fmt.Errorf("answer %q, want %q", out, want)
	}
	return nil
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleLoggedIn fills the server with logged-in connections that do
// nothing: one more is refused, the idle timeout then closes them all,
// and the server serves again. A connection that keeps talking is not
// idle.
func TestIdleLoggedIn(t *testing.T) {
	const max = 20
	const idle = 2 * time.Second
	s, cfg := start(t, func(s *Server) { s.MaxConns, s.MaxStartups, s.IdleTimeout = max, max, idle })

	busy, err := dial(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	var idles []*ssh.Client
	for range max - 1 {
		c, err := dial(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idles = append(idles, c)
	}
	// The client's Dial returns when it has the server's answer to "none";
	// the server counts the login just after.
	if !waitFor(5*time.Second, func() bool { open, pre := s.Conns(); return open == max && pre == 0 }) {
		open, pre := s.Conns()
		t.Fatalf("Conns() = %d, %d; want %d logged in", open, pre, max)
	}
	if c, err := dial(s, cfg); err == nil {
		c.Close()
		t.Fatalf("connection %d accepted with MaxConns %d", max+1, max)
	}

	// The busy client runs a command every idle/8 for 2*idle; the idle
	// ones are closed by the server meanwhile. (idle/3 was too little
	// margin: on CI's loaded machine one gap between the busy client's
	// commands exceeded 1.5 s.)
	start := time.Now()
	for time.Since(start) < 2*idle {
		if err := runKex(busy); err != nil {
			t.Fatalf("busy connection: %v after %v", err, time.Since(start))
		}
		time.Sleep(idle / 8)
	}
	for i, c := range idles {
		errc := make(chan error, 1)
		go func() { errc <- c.Wait() }()
		select {
		case <-errc:
		case <-time.After(5 * time.Second):
			t.Fatalf("idle connection %d still open after %v", i, time.Since(start))
		}
	}
	if !waitFor(5*time.Second, func() bool { open, _ := s.Conns(); return open == 1 }) {
		open, pre := s.Conns()
		t.Fatalf("Conns() = %d, %d after the idle timeout; want only the busy one", open, pre)
	}
	c, err := dial(s, cfg)
	if err != nil {
		t.Fatalf("after the idle ones were closed: %v", err)
	}
	defer c.Close()
	if err := runKex(c); err != nil {
		t.Fatal(err)
	}
}

// TestMaxStartups: connections that never finish the handshake take the
// unauthenticated slots; one more is closed at once (while logged-in
// clients keep working), and the slots come back at LoginGraceTime.
func TestMaxStartups(t *testing.T) {
	const max = 5
	const grace = 2 * time.Second
	s, cfg := start(t, func(s *Server) { s.MaxStartups, s.LoginGraceTime = max, grace })
	in, err := dial(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var raw []net.Conn
	for range max {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		raw = append(raw, c)
	}
	if !waitFor(5*time.Second, func() bool { _, pre := s.Conns(); return pre == max }) {
		open, pre := s.Conns()
		t.Fatalf("Conns() = %d, %d; want %d unauthenticated", open, pre, max)
	}
	start := time.Now()
	if c, err := dial(s, cfg); err == nil {
		c.Close()
		t.Fatal("handshake beyond MaxStartups accepted")
	} else if time.Since(start) > grace/2 {
		t.Fatalf("refused only after %v: %v", time.Since(start), err)
	}
	if err := runKex(in); err != nil {
		t.Fatalf("logged-in client while at MaxStartups: %v", err)
	}
	for i, c := range raw {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 64)
		for {
			if _, err := c.Read(buf); err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("raw connection %d not closed after the login grace time", i)
				}
				break
			}
		}
	}
	if !waitFor(5*time.Second, func() bool { _, pre := s.Conns(); return pre == 0 }) {
		t.Fatal("unauthenticated slots not released")
	}
	c, err := dial(s, cfg)
	if err != nil {
		t.Fatalf("after the grace time: %v", err)
	}
	c.Close()
}

// flakyListener fails Accept with err the first n times.
type flakyListener struct {
	net.Listener
	err error
	n   atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.n.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

// TestAcceptRetry: errors a flood causes are retried with backoff; any
// other Accept error ends Serve.
func TestAcceptRetry(t *testing.T) {
	for _, tc := range []struct {
		err   error
		retry bool
	}{
		{&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}, true},
		{&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.ENFILE)}, true},
		{&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.ECONNABORTED)}, true},
		{&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EINVAL)}, false},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			fl := &flakyListener{Listener: l, err: tc.err}
			fl.n.Store(6) // 5+10+20+40+80+160 ms of backoff
			key := hostKey(t)
			s := New(fl, Config([]ssh.Signer{key}, nil))
			var mu sync.Mutex
			var logged []string
			s.Log = func(l string) { mu.Lock(); logged = append(logged, l); mu.Unlock() }
			done := make(chan error, 1)
			go func() { done <- s.Serve() }()
			defer s.Close()
			if !tc.retry {
				select {
				case err := <-done:
					if !errors.Is(err, syscall.EINVAL) {
						t.Fatalf("Serve returned %v", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Serve kept going after a permanent error")
				}
				return
			}
			start := time.Now()
			c, err := ssh.Dial("tcp", l.Addr().String(), &ssh.ClientConfig{User: "u", HostKeyCallback: ssh.FixedHostKey(key.PublicKey())})
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if el := time.Since(start); el < 300*time.Millisecond {
				t.Errorf("served after %v: no backoff between the failing Accepts", el)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logged) == 0 || len(logged) > 2 {
				t.Errorf("log lines %q: want the first error and at most one more per second", logged)
			}
		})
	}
}

// TestLoad runs thousands of handshakes, dozens at a time, some abandoned
// halfway and some running a command, then checks that goroutines,
// descriptors and heap come back to where they were.
func TestLoad(t *testing.T) {
	total, workers := 2000, 32
	if testing.Short() || raceEnabled {
		total = 200
	}
	before := baseline(t)

	func() {
		s, cfg := start(t, func(s *Server) { s.MaxStartups, s.MaxConns, s.IdleTimeout = 2*workers, 2*workers, 5*time.Second })
		var next atomic.Int32
		var failed atomic.Int32
		var wg sync.WaitGroup
		t0 := time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1))
					if i > total {
						return
					}
					var err error
					switch {
					case i%10 == 0: // abandoned after the version exchange
						var c net.Conn
						if c, err = net.Dial("tcp", s.Addr().String()); err == nil {
							buf := make([]byte, 32)
							_, err = c.Read(buf)
							c.Close()
						}
					default:
						var c *ssh.Client
						if c, err = dial(s, cfg); err == nil {
							if i%5 == 0 {
								err = runKex(c)
							}
							c.Close()
						}
					}
					if err != nil && failed.Add(1) <= 3 {
						t.Errorf("connection %d: %v", i, err)
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%d connections, %d at a time, in %v", total, workers, time.Since(t0))
		if !waitFor(10*time.Second, func() bool { open, _ := s.Conns(); return open == 0 }) {
			open, pre := s.Conns()
			t.Errorf("after the load: %d connections still open (%d unauthenticated)", open, pre)
		}
	}() // the cleanup closes the server at the end of the test; close it now
	if t.Failed() {
		return
	}

	// Goroutines and descriptors: back to the baseline (the server is
	// still listening until cleanup: one descriptor, one goroutine).
	after := before.checkReturned(t, "load", 10*time.Second, 1)
	t.Logf("goroutines %d -> %d, descriptors %d -> %d, heap in use %d -> %d KiB",
		before.goroutines, after.goroutines, before.fds, after.fds, before.heap>>10, after.heap>>10)
}
