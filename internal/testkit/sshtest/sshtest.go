// Package sshtest holds the loopback servers and keys that the tests of
// several packages share: a listener that hands every connection to a
// function, an x/crypto/ssh server that completes handshakes and refuses
// every channel, clients from a chosen loopback source and keepalives,
// "pqkex serve" started from a built binary, and Ed25519 host keys. It is test machinery: only tests import it. Nothing here is
// secret beyond the lifetime of a test.
package sshtest

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// Serve listens on 127.0.0.1 until t ends and runs handle on every
// connection in a goroutine of its own, closing the connection when
// handle returns. It returns the listener's address.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return l.Addr().String()
}

// XCryptoServer serves cfg with Serve and ServeConn, each connection
// within deadline.
func XCryptoServer(t testing.TB, cfg *ssh.ServerConfig, deadline time.Duration) string {
	t.Helper()
	return Serve(t, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(deadline))
		ServeConn(nc, cfg, nil)
	})
}

// ServeConn runs x/crypto/ssh's server with cfg on nc: the handshake,
// whose error (nil on success) it sends to handshake if not nil, then the
// global requests discarded and the channels refused until the client
// leaves.
func ServeConn(nc net.Conn, cfg *ssh.ServerConfig, handshake chan<- error) {
	c, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if handshake != nil {
		handshake <- err
	}
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	go func() {
		for ch := range chans {
			ch.Reject(ssh.Prohibited, "")
		}
	}()
	c.Wait()
}

// DialFrom connects to addr from the local address src (an address of
// the loopback network other than 127.0.0.1 shows a server's per-source
// limits), within 5 seconds.
func DialFrom(src, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return d.Dial("tcp", addr)
}

// LoginFrom completes an x/crypto/ssh client handshake with cfg from src
// to addr (DialFrom), within 10 seconds.
func LoginFrom(src, addr string, cfg *ssh.ClientConfig) (*ssh.Client, error) {
	nc, err := DialFrom(src, addr)
	if err != nil {
		return nil, err
	}
	return Login(nc, addr, cfg)
}

// Login completes an x/crypto/ssh client handshake with cfg on nc, a
// connection to addr, within 10 seconds; on failure it closes nc.
func Login(nc net.Conn, addr string, cfg *ssh.ClientConfig) (*ssh.Client, error) {
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// KeepAlive sends a keepalive@openssh.com global request on c every
// interval until quit is closed or c's connection ends, and reports
// whether it ended. The requests do not want a reply: x/crypto v0.52.0's
// SendRequest spins if the connection closes while it waits for one. The
// server sees traffic all the same.
func KeepAlive(c *ssh.Client, interval time.Duration, quit <-chan struct{}) (ended bool) {
	gone := make(chan struct{})
	go func() { c.Wait(); close(gone) }()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return false
		case <-gone:
			return true
		case <-tick.C:
			c.SendRequest("keepalive@openssh.com", false, nil)
		}
	}
}

// HostKey returns a new Ed25519 signer.
func HostKey(t testing.TB) ssh.Signer {
	t.Helper()
	_, s := Ed25519Key(t)
	return s
}

// Ed25519Key returns a new Ed25519 private key and its signer.
func Ed25519Key(t testing.TB) (ed25519.PrivateKey, ssh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return priv, s
}

// Start starts cmd, its standard error going to the test binary's, and
// returns its standard output.
func Start(t testing.TB, cmd *exec.Cmd) io.ReadCloser {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout
}

// StartServe runs "bin serve -listen 127.0.0.1:0 args..." until t ends
// and returns the address from its "listening on ADDR, ..." line; onLine,
// if not nil, gets every later line of its output.
func StartServe(t testing.TB, bin string, onLine func(string), args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "-listen", "127.0.0.1:0"}, args...)...)
	// Without -hostkey, serve keeps its key under the user's
	// configuration directory: a directory of the test's own here.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	stdout := Start(t, cmd)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			addr, _, _ := strings.Cut(rest, ",")
			go func() {
				for sc.Scan() {
					if onLine != nil {
						onLine(sc.Text())
					}
				}
				io.Copy(io.Discard, stdout)
			}()
			return addr
		}
	}
	t.Fatal("pqkex serve printed no address")
	return ""
}
