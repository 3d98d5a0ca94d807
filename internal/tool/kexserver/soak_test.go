package kexserver

import (
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// soakTime is how long the soak runs: a long run (tier.Long), which
// .ci/run runs.
const soakTime = 2 * time.Minute

// TestSoak runs every attack of issue 24 at once for soakTime against
// a server with serve's kinds of limits (scaled down), each from its own
// loopback source, while honest clients from 127.0.0.2 keep logging in
// and running a command:
//
//   - 127.0.0.3: two connections flooding 16 channels each (10 accepted)
//     with data and extended data, reconnecting every 5 s;
//   - 127.0.0.5: 40 connections that never speak, redialled when closed;
//   - 127.0.0.4 and 127.0.0.6: 24 logged-in connections each that only
//     send keepalives (together they fill MaxConns), reconnecting when
//     closed;
//   - 127.0.0.7: KEXINITs with a forged log line in the names.
//
// Every honest client must be served within 5 s (retrying while the
// server is full of keepalive connections younger than
// UnusedConnectionTimeout); no log line may start with the forged text
// or hold a control character, and the log stays within its per-interval
// bound; afterwards goroutines, descriptors and heap return to the
// baseline.
func TestSoak(t *testing.T) {
	tier.SkipUnlessLong(t, "every attack at once for 2 minutes")
	d := soakTime
	before := baseline(t)

	var logMu sync.Mutex
	var logLines []string
	var peakHeap, honestOK, honestRetries atomic.Uint64
	var latencies []time.Duration
	func() {
		s, cfg := start(t, func(s *Server) {
			s.MaxStartupsBegin, s.MaxStartupsRate, s.MaxStartups = 16, 30, 32
			s.PerSourceMaxStartups, s.PerSourceMaxConns, s.MaxConns = 8, 24, 48
			s.MaxSessions, s.UnusedConnectionTimeout = 10, 2*time.Second
			s.LoginGraceTime, s.IdleTimeout = 3*time.Second, 30*time.Second
			s.Log = func(l string) { logMu.Lock(); logLines = append(logLines, l); logMu.Unlock() }
		})
		addr := s.Addr().String()
		end := time.Now().Add(d)
		quit := make(chan struct{})
		time.AfterFunc(d, func() { close(quit) })
		var wg sync.WaitGroup
		loop := func(n int, f func()) {
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Now().Before(end) {
						f()
					}
				}()
			}
		}
		sleep := func(d time.Duration) {
			select {
			case <-quit:
			case <-time.After(d):
			}
		}
		login := func(src string, cfg *ssh.ClientConfig) (*ssh.Client, error) { return sshtest.LoginFrom(src, addr, cfg) }
		// loopLogin runs n loops that log in from src and use each
		// connection (connected); loopDial does the same with bare
		// connections.
		loopLogin := func(n int, src string, use func(c *ssh.Client)) {
			loop(n, connected(sleep, func() (*ssh.Client, error) { return login(src, cfg) }, use))
		}
		loopDial := func(n int, src string, use func(nc net.Conn)) {
			loop(n, connected(sleep, func() (net.Conn, error) { return dialSource(src, addr) }, use))
		}

		// Channel flooders.
		loopLogin(2, "127.0.0.3", func(c *ssh.Client) {
			stop := time.After(5 * time.Second)
			for range 16 {
				ch, reqs, err := c.OpenChannel("session", nil)
				if err != nil {
					continue
				}
				go ssh.DiscardRequests(reqs)
				for _, w := range []io.Writer{ch, ch.Stderr()} {
					go func() {
						buf := make([]byte, 32<<10)
						for {
							if _, err := w.Write(buf); err != nil {
								return
							}
						}
					}()
				}
			}
			select {
			case <-stop:
			case <-quit:
			}
		})
		// Connections that never speak.
		loopDial(40, "127.0.0.5", func(nc net.Conn) {
			nc.SetReadDeadline(end)
			io.Copy(io.Discard, nc)
			sleep(100 * time.Millisecond)
		})
		// Keepalive holders.
		for _, src := range []string{"127.0.0.4", "127.0.0.6"} {
			loopLogin(24, src, func(c *ssh.Client) {
				if sshtest.KeepAlive(c, 500*time.Millisecond, quit) {
					sleep(200 * time.Millisecond)
				}
			})
		}
		// Log injection.
		loopDial(1, "127.0.0.7", func(nc net.Conn) {
			nc.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(nc, "SSH-2.0-evil\x1b[2J\r\n")
			nc.Write(soakKexinit("nope\n2099/01/01 00:00:00 forged\r\n"))
			io.Copy(io.Discard, nc)
			sleep(20 * time.Millisecond)
		})
		// Heap sampler.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peakHeap.Load() {
					peakHeap.Store(m.HeapInuse)
				}
				sleep(time.Second)
			}
		}()

		// Honest clients: let the attacks build up first.
		sleep(3 * time.Second)
		var latMu sync.Mutex
		var honestFailed atomic.Int32
		loop(2, func() {
			t0 := time.Now()
			var err error
			for tries := 0; ; tries++ {
				var c *ssh.Client
				if c, err = login("127.0.0.2", cfg); err == nil {
					err = runKex(c)
					c.Close()
				}
				if err == nil || time.Since(t0) > 5*time.Second {
					honestRetries.Add(uint64(tries))
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				if honestFailed.Add(1) <= 3 {
					t.Errorf("honest client not served within 5 s: %v", err)
				}
				return
			}
			honestOK.Add(1)
			latMu.Lock()
			latencies = append(latencies, time.Since(t0))
			latMu.Unlock()
			sleep(50 * time.Millisecond)
		})
		wg.Wait()
		if !waitFor(15*time.Second, func() bool { open, _ := s.Conns(); return open == 0 }) {
			open, pre := s.Conns()
			t.Errorf("after the soak: %d connections still open (%d unauthenticated)", open, pre)
		}
		s.Close() // (the cleanup's Close is then a no-op)
	}()
	after := before.checkReturned(t, "soak", 15*time.Second, 0)

	logMu.Lock()
	defer logMu.Unlock()
	logBytes := 0
	for _, l := range logLines {
		logBytes += len(l) + 1
		if strings.HasPrefix(l, "2099/") || !printableLine(l) {
			t.Errorf("forged or unescaped log line: %q", l)
			break
		}
	}
	intervals := int(d/LogInterval) + 2
	if maxLines := intervals * (logMaxFull + logMaxKeys + 1); len(logLines) > maxLines {
		t.Errorf("%d log lines in %v; the bound is %d", len(logLines), d, maxLines)
	}
	if maxBytes := intervals * LogBytesPerInterval; logBytes > maxBytes {
		t.Errorf("%d bytes of log in %v; the bound is %d", logBytes, d, maxBytes)
	}
	slices.Sort(latencies)
	pct := func(p int) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[(len(latencies)-1)*p/100].Round(time.Millisecond)
	}
	if honestOK.Load() == 0 {
		t.Error("no honest client served")
	}
	t.Logf("%v: %d honest clients served (%d retries), latency p50 %v p99 %v max %v; peak heap in use %d MiB (before %d MiB, after %d MiB); goroutines %d -> %d, descriptors %d -> %d; %d log lines",
		d, honestOK.Load(), honestRetries.Load(), pct(50), pct(99), pct(100), peakHeap.Load()>>20, before.heap>>20, after.heap>>20,
		before.goroutines, after.goroutines, before.fds, after.fds, len(logLines))
	for _, l := range logLines {
		if strings.Contains(l, "not logged one by one") {
			t.Logf("e.g. %s", l)
			break
		}
	}
}

// connected returns a loop body that connects and uses the connection,
// closed when use returns; after a failed connection it waits 200 ms
// (with sleep, which returns early when the soak ends).
func connected[C io.Closer](sleep func(time.Duration), connect func() (C, error), use func(C)) func() {
	return func() {
		c, err := connect()
		if err != nil {
			sleep(200 * time.Millisecond)
			return
		}
		defer c.Close()
		use(c)
	}
}

// dialSource is sshtest.DialFrom.
var dialSource = sshtest.DialFrom

// soakKexinit returns a cleartext SSH_MSG_KEXINIT (RFC 4253 sections 6
// and 7.1) offering kex as its key exchange name-list.
func soakKexinit(kex string) []byte {
	p := append([]byte{20}, make([]byte, 16)...)
	for _, l := range []string{kex, "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""} {
		p = binary.BigEndian.AppendUint32(p, uint32(len(l)))
		p = append(p, l...)
	}
	p = append(p, 0, 0, 0, 0, 0)
	pad := 8 - (5+len(p))%8
	if pad < 4 {
		pad += 8
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(1+len(p)+pad))
	out = append(append(append(out, byte(pad)), p...), make([]byte, pad)...)
	return out
}
