// Package kexserver is a minimal SSH server on golang.org/x/crypto/ssh for
// interoperability checks: it accepts any user without real
// authentication and answers every exec or shell request with one line,
// "kex=<negotiated key exchange>", and exit status 0. It backs `pqkex
// serve` and the interop tests.
package kexserver

import (
	"crypto/fips140"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// Config returns a server configuration that accepts any user with "none",
// password or public key authentication, with the given host keys and key
// exchanges (nil means x/crypto's defaults).
func Config(hostKeys []ssh.Signer, kexs []string) *ssh.ServerConfig {
	cfg := &ssh.ServerConfig{
		NoClientAuth: true,
		PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			return nil, nil
		},
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
			return nil, nil
		},
	}
	cfg.KeyExchanges = kexs
	OnlyModeAlgorithms(&cfg.Config)
	for _, k := range hostKeys {
		cfg.AddHostKey(k)
	}
	return cfg
}

// OnlyModeAlgorithms sets c's ciphers and MACs to aes256-ctr, aes128-ctr
// and hmac-sha2-256(-etm) under GODEBUG=fips140=only, where x/crypto/ssh's
// AES-GCM fails (the mode refuses GCM with caller-chosen nonces) although
// x/crypto offers it by default; otherwise it leaves c alone.
func OnlyModeAlgorithms(c *ssh.Config) {
	if fips140.Enforced() {
		c.Ciphers = []string{ssh.CipherAES256CTR, ssh.CipherAES128CTR}
		c.MACs = []string{ssh.HMACSHA256ETM, ssh.HMACSHA256}
	}
}

// Negotiated returns the algorithms negotiated on c, if x/crypto reports
// them. Pass the ssh.Conn itself (ServerConn.Conn, Client.Conn), not the
// struct embedding it.
func Negotiated(c ssh.ConnMetadata) (ssh.NegotiatedAlgorithms, bool) {
	if a, ok := c.(ssh.AlgorithmsConnMetadata); ok {
		return a.Algorithms(), true
	}
	return ssh.NegotiatedAlgorithms{}, false
}

// Server serves SSH connections until Close. Set the limits before
// Serve; their zero values mean no limit (LoginGraceTime: 30 s).
type Server struct {
	cfg *ssh.ServerConfig
	l   net.Listener
	// Log, if set, receives one line per connection with the negotiated
	// algorithms, or the handshake error, and one line per burst of
	// refused connections or accept errors.
	Log func(string)

	// MaxStartups caps the connections that have not finished the SSH
	// handshake and authentication (OpenSSH's MaxStartups, without the
	// random early drop): a connection beyond it is closed at once.
	MaxStartups int
	// MaxConns caps all open connections; beyond it a new connection is
	// closed at once.
	MaxConns int
	// LoginGraceTime bounds the time from accept to the end of
	// authentication (OpenSSH's LoginGraceTime).
	LoginGraceTime time.Duration
	// IdleTimeout closes a logged-in connection when nothing has been
	// received from the client, and nothing could be sent to it, for
	// that long.
	IdleTimeout time.Duration

	wg       sync.WaitGroup
	mu       sync.Mutex
	closed   bool
	conns    map[net.Conn]struct{}
	preauth  int
	refused  int       // connections refused since the last log line
	lastNote time.Time // time of the last refusal or accept error line
}

// New returns a server for l. Call Serve to start it.
func New(l net.Listener, cfg *ssh.ServerConfig) *Server {
	return &Server{cfg: cfg, l: l, conns: map[net.Conn]struct{}{}}
}

// Addr returns the listening address.
func (s *Server) Addr() net.Addr { return s.l.Addr() }

// Conns returns the number of open connections and, of those, the ones
// still in the handshake or authentication.
func (s *Server) Conns() (open, unauthenticated int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.preauth
}

// Accept backoff, as net/http's Server does for temporary errors.
const (
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// Serve accepts connections until the listener is closed. It returns nil
// after Close. Errors that a later Accept may not have (out of
// descriptors or buffers, a connection aborted before it was accepted,
// timeouts) are retried with exponential backoff instead of ending the
// server: they are what a flood of connections causes.
func (s *Server) Serve() error {
	backoff := time.Duration(0)
	for {
		nc, err := s.l.Accept()
		if err != nil {
			if s.isClosed() {
				return nil
			}
			if !temporary(err) {
				return err
			}
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			s.note(fmt.Sprintf("accept: %v; retrying in %v", err, backoff), false, false)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return nil
		}
		if (s.MaxConns > 0 && len(s.conns) >= s.MaxConns) || (s.MaxStartups > 0 && s.preauth >= s.MaxStartups) {
			open, pre := len(s.conns), s.preauth
			s.mu.Unlock()
			nc.Close()
			s.note(fmt.Sprintf("at a limit: %d open (max %d), %d unauthenticated (max %d)", open, s.MaxConns, pre, s.MaxStartups), true, true)
			continue
		}
		s.conns[nc] = struct{}{}
		s.preauth++
		s.wg.Add(1)
		pending := s.refused > 0 && time.Since(s.lastNote) >= time.Second
		s.mu.Unlock()
		if pending {
			s.note("now below the limits", true, false)
		}
		go func() {
			defer s.wg.Done()
			s.handle(nc)
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}()
	}
}

// temporary reports whether an Accept error may go away by itself.
func temporary(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED, syscall.ENOBUFS, syscall.ENOMEM, syscall.EINTR} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// note logs a line about refused connections (refusal) or an accept
// error, at most once a second, so that a flood cannot flood the log; a
// refusal line counts the refusals since the previous one. refused says
// whether a connection was just refused; Serve also calls note when it
// admits a connection after unreported refusals.
func (s *Server) note(line string, refusal, refused bool) {
	s.mu.Lock()
	if refused {
		s.refused++
	}
	now := time.Now()
	if now.Sub(s.lastNote) < time.Second {
		s.mu.Unlock()
		return
	}
	s.lastNote = now
	count := s.refused
	if refusal {
		s.refused = 0
	}
	s.mu.Unlock()
	if refusal {
		line = fmt.Sprintf("refused %d connection(s) since the last such line, %s", count, line)
	}
	s.logf("%s", line)
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops accepting, closes open connections and waits for their
// handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.l.Close()
	s.wg.Wait()
	return err
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, args...))
	}
}

// loggedIn moves a connection out of the unauthenticated count.
func (s *Server) loggedIn(counted *bool) {
	if *counted {
		s.mu.Lock()
		s.preauth--
		s.mu.Unlock()
		*counted = false
	}
}

func (s *Server) handle(nc net.Conn) {
	defer nc.Close()
	preauth := true
	defer s.loggedIn(&preauth)
	grace := s.LoginGraceTime
	if grace <= 0 {
		grace = 30 * time.Second
	}
	nc.SetDeadline(time.Now().Add(grace))
	ic := &idleConn{Conn: nc}
	conn, chans, reqs, err := ssh.NewServerConn(ic, s.cfg)
	if err != nil {
		s.logf("%s: handshake failed: %v", nc.RemoteAddr(), err)
		return
	}
	defer conn.Close()
	s.loggedIn(&preauth)
	ic.idle.Store(int64(s.IdleTimeout))
	// The login grace deadline ends; x/crypto's reader is already blocked
	// in a Read, so its idle deadline is set here, later ones by idleConn.
	if s.IdleTimeout > 0 {
		nc.SetDeadline(time.Now().Add(s.IdleTimeout))
	} else {
		nc.SetDeadline(time.Time{})
	}
	kex := "unknown"
	if a, ok := Negotiated(conn.Conn); ok {
		kex = a.KeyExchange
		s.logf("%s: client %q kex=%s hostkey=%s cipher=%s", nc.RemoteAddr(), conn.ClientVersion(), a.KeyExchange, a.HostKey, a.Read.Cipher)
	}
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		ch, chReqs, err := nch.Accept()
		if err != nil {
			continue
		}
		go session(ch, chReqs, kex)
	}
}

// idleConn is a connection whose every Read and Write, once idle is set,
// must complete within idle: a logged-in client that sends nothing for
// that long (and a client that stops reading) is disconnected when
// x/crypto's reader fails with the timeout.
type idleConn struct {
	net.Conn
	idle atomic.Int64 // time.Duration; 0: no idle timeout
}

func (c *idleConn) Read(p []byte) (int, error) {
	if d := time.Duration(c.idle.Load()); d > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(d))
	}
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	if d := time.Duration(c.idle.Load()); d > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(d))
	}
	return c.Conn.Write(p)
}

// session answers the first exec or shell request.
func session(ch ssh.Channel, reqs <-chan *ssh.Request, kex string) {
	defer ch.Close()
	for req := range reqs {
		switch req.Type {
		case "exec", "shell":
			req.Reply(true, nil)
			fmt.Fprintf(ch, "kex=%s\n", kex)
			var status [4]byte
			binary.BigEndian.PutUint32(status[:], 0)
			ch.SendRequest("exit-status", false, status[:])
			return
		case "pty-req", "env":
			req.Reply(true, nil)
		default:
			req.Reply(false, nil)
		}
	}
}
