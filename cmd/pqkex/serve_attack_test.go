//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
)

// The attacks of issue 24, each against "pqkex serve" with its default
// limits in a child process on loopback: the attacker connects from
// 127.0.0.1, an honest client from 127.0.0.2 (bound explicitly; on Linux
// all of 127.0.0.0/8 is local).

const (
	attacker = "127.0.0.1"
	honest   = "127.0.0.2"
)

// dialFrom is sshtest.DialFrom.
var dialFrom = sshtest.DialFrom

// sshFrom logs in to addr from src as user.
func sshFrom(src, addr, user string) (*ssh.Client, error) {
	return sshtest.LoginFrom(src, addr, &ssh.ClientConfig{User: user, HostKeyCallback: ssh.InsecureIgnoreHostKey()})
}

// honestKex logs in from src and runs a command; it returns the answer.
func honestKex(src, addr string) (string, error) {
	c, err := sshFrom(src, addr, "honest")
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	out, err := sess.Output("kex")
	if err != nil {
		return "", fmt.Errorf("command: %w", err)
	}
	if !strings.HasPrefix(string(out), "kex=") {
		return "", fmt.Errorf("answer %q", out)
	}
	return strings.TrimSpace(string(out)), nil
}

// memKiB returns a /proc/PID/status field in KiB: VmRSS (resident now)
// or VmHWM (peak resident).
func memKiB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestServeChannelFlood: one logged-in connection opens 256 session
// channels and writes 4 MiB into each without reading. At most
// -max-sessions (10) are accepted; their data is read and discarded, so
// all of it goes through while the server's peak resident memory grows
// by less than the stated bound (10 windows of 2 MiB), and a client from
// another source is served meanwhile. The second case sends 1-byte
// packets, 1 MiB of them in all, x/crypto's costliest way to buffer a
// window (each packet is kept in its own allocation, about 48 bytes per
// byte: a server that left them unread would grow by some 48 MiB, twice
// the bound). Its packets leave the attacker in one write a millisecond
// (coalescedConn), so that the test's CPU goes to SSH, not to a system
// call per packet; the server receives the same bytes either way.
func TestServeChannelFlood(t *testing.T) {
	t.Run("256 channels of 4 MiB", func(t *testing.T) { channelFlood(t, 256, 4<<20, 32<<10, 10*time.Second) })
	t.Run("1-byte packets", func(t *testing.T) { channelFlood(t, 10, 100<<10, 1, 20*time.Second) })
}

func channelFlood(t *testing.T, channels, perChannel, chunk int, limit time.Duration) {
	srv := startServe(t, 0, "-listen 127.0.0.1:0")
	pid := srv.cmd.Process.Pid
	if _, err := honestKex(honest, srv.addr); err != nil { // warm up
		t.Fatal(err)
	}
	before := memKiB(t, pid, "VmRSS")

	nc, err := dialFrom(attacker, srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sshtest.Login(coalesce(nc), srv.addr, &ssh.ClientConfig{User: "flood", HostKeyCallback: ssh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var opened, refused int
	var sent atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(limit) // old servers stop reading: give up then
	for range channels {
		ch, reqs, err := c.OpenChannel("session", nil)
		if err != nil {
			var oce *ssh.OpenChannelError
			if !errors.As(err, &oce) || oce.Reason != ssh.ResourceShortage {
				t.Fatalf("channel %d: %v", opened+refused, err)
			}
			refused++
			continue
		}
		opened++
		go ssh.DiscardRequests(reqs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, chunk)
			for n := 0; n < perChannel && time.Now().Before(stop); n += len(buf) {
				if _, err := ch.Write(buf); err != nil {
					return
				}
				sent.Add(int64(len(buf)))
			}
		}()
	}
	answer, herr := honestKex(honest, srv.addr)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(stop) + time.Second):
		c.Close() // unblocks the writers
		<-done
	}
	peak := memKiB(t, pid, "VmHWM")
	growth := peak - before
	t.Logf("%d channels opened, %d refused; %.1f MiB sent in %d-byte packets; server resident %d MiB before, peak %d MiB (+%d MiB); honest client from %s: %q %v",
		opened, refused, float64(sent.Load())/(1<<20), chunk, before>>10, peak>>10, growth>>10, honest, answer, herr)
	if herr != nil {
		t.Errorf("honest client during the flood: %v", herr)
	}
	if opened > 10 {
		t.Errorf("%d session channels accepted on one connection; want at most 10 (-max-sessions)", opened)
	}
	if want := int64(opened) * int64(perChannel); sent.Load() != want {
		t.Errorf("the server took %d bytes of channel data in %v, want all %d: it does not read and discard it", sent.Load(), limit, want)
	}
	// The bound: 10 channels' 2 MiB windows (20 MiB), plus 4 MiB for the
	// runtime's slack.
	if growth > 24<<10 {
		t.Errorf("server resident memory grew by %d MiB under the flood; the bound is 10 windows of 2 MiB", growth>>10)
	}
}

// coalescedConn gathers the writes of an x/crypto client and sends them
// a millisecond after the first one, or at once when 64 KiB are waiting.
// A write that the socket holds up holds up the writer too, as without it.
type coalescedConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
	err error
}

func coalesce(nc net.Conn) net.Conn { return &coalescedConn{Conn: nc} }

func (c *coalescedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if len(c.buf) == 0 {
		time.AfterFunc(time.Millisecond, c.flush)
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) >= 64<<10 {
		c.flushLocked()
	}
	return len(p), nil
}

func (c *coalescedConn) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *coalescedConn) flushLocked() {
	if len(c.buf) > 0 && c.err == nil {
		_, c.err = c.Conn.Write(c.buf)
		c.buf = c.buf[:0]
	}
}

// TestServeStartupFlood: 100 connections from one source that never
// finish the handshake. Only -per-source-max-startups (16) are held, so a
// client from another source is served at once, not after the login
// grace time; the refusals are summarised, not logged one by one.
func TestServeStartupFlood(t *testing.T) {
	srv := startServe(t, 0, "-listen 127.0.0.1:0 -login-grace-time 20s")
	var flood []net.Conn
	for i := range 100 {
		c, err := dialFrom(attacker, srv.addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer c.Close()
		flood = append(flood, c)
	}
	time.Sleep(200 * time.Millisecond) // let the server accept them all
	start := time.Now()
	answer, err := honestKex(honest, srv.addr)
	took := time.Since(start)
	held := 0
	for _, c := range flood { // refused ones read EOF; held ones the server's version
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			held++
		}
	}
	log := srv.stop()
	refusals, summaries := countLines(log, ": refused: "), countLines(log, "more refused connections")
	t.Logf("held %d of 100 from %s; honest client from %s: %q, %v after %v; log: %d refusal lines, %d summary:\n%s",
		held, attacker, honest, answer, err, took.Round(time.Millisecond), refusals, summaries, strings.Join(grepLines(log, "refused"), "\n"))
	if err != nil || took > 5*time.Second {
		t.Errorf("honest client from %s during the flood: %v after %v", honest, err, took)
	}
	if held != 16 {
		t.Errorf("%d of the flood's connections held; want 16 (-per-source-max-startups)", held)
	}
	if refusals > 5 || summaries != 1 || !strings.Contains(strings.Join(log, "\n"), "127.0.0.1/32: 79 more refused connections") {
		t.Errorf("want 5 refusal lines and one summary counting the other 79")
	}
}

// TestServeNetBlock: with -per-source-net-block-size 8, 127.0.0.1 and
// 127.0.0.2 are one source, so the flood's share is the honest client's
// too and it is refused. (With the default, 32, TestServeStartupFlood
// shows them apart.)
func TestServeNetBlock(t *testing.T) {
	srv := startServe(t, 0, "-listen 127.0.0.1:0 -per-source-max-startups 4 -per-source-net-block-size 8:64")
	for i := range 4 {
		c, err := dialFrom(attacker, srv.addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := honestKex(honest, srv.addr); err == nil {
		t.Fatalf("client from %s served while %s holds the /8's 4 unauthenticated slots", honest, attacker)
	}
	if l := grepLines(srv.collect(200*time.Millisecond), "refused"); len(l) == 0 || !strings.Contains(l[0], "from 127.0.0.0/8 (per-source-max-startups 4)") {
		t.Errorf("refusal lines %q", l)
	}
}

// TestServeStartupFloodIPv6: the same flood over ::1 (the only IPv6
// loopback address, so no second source): 16 held, the rest refused,
// the source named as an IPv6 block.
func TestServeStartupFloodIPv6(t *testing.T) {
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no IPv6 loopback in CI: %v", err)
		}
		t.Skipf("no IPv6 loopback: %v", err)
	}
	l.Close()
	srv := startServe(t, 0, "-listen [::1]:0 -per-source-net-block-size 32:64")
	held := 0
	for range 20 {
		c, err := dialFrom("::1", srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			held++
		}
	}
	log := strings.Join(srv.collect(200*time.Millisecond), "\n")
	if held != 16 || !strings.Contains(log, "unauthenticated connections from ::/64 (per-source-max-startups 16)") {
		t.Errorf("held %d of 20 from ::1, want 16; log:\n%s", held, log)
	}
}

// TestServeSmallLimits: with -max-conns 20 (as serve fits it to
// "ulimit -n 36"), the per-source caps are a quarter of the fitted
// limits, so one source holding every connection it can, each with a
// session channel in use, or every unauthenticated slot it can, leaves
// room for a client from another source.
func TestServeSmallLimits(t *testing.T) {
	t.Run("logged-in connections with active channels", func(t *testing.T) {
		srv := startServe(t, 0, "-listen 127.0.0.1:0 -max-conns 20")
		quit := make(chan struct{})
		var wg sync.WaitGroup
		defer func() { close(quit); wg.Wait() }()
		held := 0
		for range 20 {
			c, err := sshFrom(attacker, srv.addr, "holder")
			if err != nil {
				continue
			}
			ch, reqs, err := c.OpenChannel("session", nil)
			if err != nil {
				c.Close()
				continue
			}
			go ssh.DiscardRequests(reqs)
			held++
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-quit:
						return
					case <-tick.C:
						if _, err := ch.Write([]byte("x")); err != nil {
							return
						}
					}
				}
			}()
		}
		answer, err := honestKex(honest, srv.addr)
		limits := grepLines(srv.collect(200*time.Millisecond), "limits: ")
		t.Logf("%s holds %d of 20 logged-in connections with active channels; honest client from %s: %q, %v; %q", attacker, held, honest, answer, err, limits)
		if held != 5 || err != nil {
			t.Errorf("want 5 held (a quarter of -max-conns 20) and the honest client served")
		}
	})
	t.Run("unauthenticated connections", func(t *testing.T) {
		srv := startServe(t, 0, "-listen 127.0.0.1:0 -max-startups 10 -login-grace-time 20s")
		held := 0
		for range 10 {
			c, err := dialFrom(attacker, srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := c.Read(make([]byte, 1)); err == nil { // the server's version line: held
				held++
			}
		}
		answer, err := honestKex(honest, srv.addr)
		t.Logf("%s holds %d of 10 unauthenticated slots; honest client from %s: %q, %v", attacker, held, honest, answer, err)
		if held != 2 || err != nil {
			t.Errorf("want 2 held (a quarter of -max-startups 10) and the honest client served")
		}
	})
}

// TestServeKeepaliveHolders: logged-in connections that only send
// keepalives. One source holds at most -per-source-max-conns (64 of
// 256); and when the server is full, a new client takes the slot of the
// connection unused longest once it has been unused for
// -unused-connection-timeout.
func TestServeKeepaliveHolders(t *testing.T) {
	hold := func(t *testing.T, addr string, n int) (held int, closed *atomic.Int32, stop func()) {
		closed = new(atomic.Int32)
		quit := make(chan struct{})
		var wg sync.WaitGroup
		for range n {
			c, err := sshFrom(attacker, addr, "holder")
			if err != nil {
				continue
			}
			held++
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if sshtest.KeepAlive(c, 200*time.Millisecond, quit) {
					closed.Add(1)
				}
			}()
		}
		return held, closed, func() { close(quit); wg.Wait() }
	}
	t.Run("per-source share", func(t *testing.T) {
		srv := startServe(t, 0, "-listen 127.0.0.1:0")
		held, _, stop := hold(t, srv.addr, 100)
		defer stop()
		answer, err := honestKex(honest, srv.addr)
		t.Logf("%s holds %d of 100 logged-in connections; honest client from %s: %q, %v", attacker, held, honest, answer, err)
		if held != 64 || err != nil {
			t.Errorf("want 64 held (-per-source-max-conns) and the honest client served")
		}
	})
	t.Run("server full", func(t *testing.T) {
		srv := startServe(t, 0, "-listen 127.0.0.1:0 -max-conns 20 -per-source-max-conns 0 -unused-connection-timeout 1s")
		held, closed, stop := hold(t, srv.addr, 20)
		defer stop()
		if held != 20 {
			t.Fatalf("%d of 20 held", held)
		}
		start := time.Now()
		var err error
		var answer string
		for time.Since(start) < 5*time.Second {
			if answer, err = honestKex(honest, srv.addr); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		took := time.Since(start)
		time.Sleep(500 * time.Millisecond) // a keepalive round
		evicted := grepLines(srv.collect(200*time.Millisecond), "unused for")
		t.Logf("server full of %d keepalive connections; honest client from %s: %q, %v after %v; %d holders closed; log: %q",
			held, honest, answer, err, took.Round(10*time.Millisecond), closed.Load(), evicted)
		if err != nil {
			t.Fatalf("honest client not served within %v of a full server: %v", took, err)
		}
		if took > 3*time.Second || closed.Load() < 1 || len(evicted) < 1 {
			t.Errorf("want the honest client in within about 1s, by closing an unused connection")
		}
	})
}

// fakeLine is what an attacker wants the log to show.
const fakeLine = `2099/01/01 00:00:00 client "SSH-2.0-OpenSSH_9.9" kex=mlkem768x25519-sha256 hostkey=ssh-ed25519`

// TestServeLogInjection: peer-controlled text with newlines (a KEXINIT's
// names, the user name), a terminal escape, DEL, a C1 control and the
// Unicode line separator (the version lines) never starts a log line; 200 failing handshakes from one source write 5 lines and a
// summary.
func TestServeLogInjection(t *testing.T) {
	srv := startServe(t, 0, "-listen 127.0.0.1:0")
	evil := func() error {
		c, err := dialFrom(attacker, srv.addr)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "SSH-2.0-evil\x1b[2J\r\n"); err != nil {
			return err
		}
		if _, err := c.Write(kexinit("nope\n" + fakeLine + "\r\n" + fakeLine + "\u2028x")); err != nil {
			return err
		}
		io.Copy(io.Discard, c) // until the server closes
		return nil
	}
	for i := range 200 {
		if err := evil(); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	forged := &ssh.ClientConfig{User: "root\n" + fakeLine, ClientVersion: "SSH-2.0-evil\u2028" + fakeLine + "\x7f\u009b", HostKeyCallback: ssh.InsecureIgnoreHostKey()}
	if c, err := sshtest.LoginFrom(honest, srv.addr, forged); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	log := srv.stop()
	all := strings.Join(log, "\n")
	for _, l := range log {
		if strings.HasPrefix(l, "2099/") || strings.ContainsAny(l, "\x1b\r\x7f\u2028\u009b") {
			t.Errorf("peer text reached the log unescaped: %q", l)
		}
	}
	failed := grepLines(log, "handshake failed")
	t.Logf("log after 200 injection attempts from %s and a login with a forged user name from %s (%d lines):\n%s", attacker, honest, len(log), firstLines(all, 20))
	if len(failed) != 5 || !strings.Contains(failed[0], `peer offered: [nope\n2099/01/01`) {
		t.Errorf("want 5 handshake failure lines with the peer's names quoted, got %q", failed)
	}
	if !strings.Contains(all, "127.0.0.1/32: 195 more handshake failures") {
		t.Errorf("no summary of the other 195 failures")
	}
	if !strings.Contains(all, `client "SSH-2.0-evil\u20282099/01/01 00:00:00 client \"SSH-2.0-OpenSSH_9.9\" kex=mlkem768x25519-sha256 hostkey=ssh-ed25519\x7f\u009b" kex=`) || !strings.Contains(all, `user="root\n2099/01/01`) {
		t.Errorf("no login line with the version and user quoted")
	}
}

func countLines(log []string, sub string) int { return len(grepLines(log, sub)) }

func grepLines(log []string, sub string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}
