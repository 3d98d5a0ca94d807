// Package kexserver is a minimal SSH server on golang.org/x/crypto/ssh for
// interoperability checks: it accepts any user without real
// authentication and answers every exec or shell request with one line,
// "kex=<negotiated key exchange>", and exit status 0. It backs `pqkex
// serve` and the interop tests.
package kexserver

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"net"
	"net/netip"
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
// Serve; their zero values mean no limit (LoginGraceTime: 30 s). The
// connection limits are checked in limits.go, channels are served in
// session.go and log lines are escaped and summarised in logging.go.
type Server struct {
	cfg *ssh.ServerConfig
	l   net.Listener
	// Log, if set, receives log lines: one per connection with the
	// negotiated algorithms, the handshake error or the limit that
	// refused it, and summaries. Every peer-controlled value in a line
	// is quoted and cut to a few hundred bytes with its length noted
	// (sshwire.Quote), so a line never holds a control character (a
	// peer cannot start a line of the log) and is at most LogLineMax
	// bytes long. Per source and kind of line, only the first few lines
	// of each interval are passed on; the rest are counted in one
	// summary line, so however many sources flood it the log grows by
	// at most LogBytesPerInterval bytes per LogInterval (logging.go).
	Log func(string)

	// MaxStartups caps the connections that have not finished the SSH
	// handshake and authentication (OpenSSH's MaxStartups "full"): a
	// connection beyond it is closed at once. From MaxStartupsBegin
	// unauthenticated connections on (if nonzero and below MaxStartups),
	// a new connection is dropped at random with a probability rising
	// linearly from MaxStartupsRate percent to 100% at MaxStartups
	// (OpenSSH's random early drop, MaxStartups start:rate:full).
	MaxStartups      int
	MaxStartupsBegin int
	MaxStartupsRate  int
	// PerSourceMaxStartups caps the unauthenticated connections from one
	// source (OpenSSH's PerSourceMaxStartups); PerSourceMaxConns caps all
	// open connections from one source. A source is the client's address
	// masked to IPv4NetBlock or IPv6NetBlock bits (OpenSSH's
	// PerSourceNetBlockSize; zero: 32 and 128, one address per source).
	PerSourceMaxStartups int
	PerSourceMaxConns    int
	IPv4NetBlock         int
	IPv6NetBlock         int
	// MaxConns caps all open connections; beyond it a new connection is
	// closed at once, unless a logged-in connection has been unused for
	// UnusedConnectionTimeout: then the longest unused one is closed to
	// make room. Unused means no channel opened, no channel request and no
	// channel data; keepalives and other global requests do not count.
	MaxConns                int
	UnusedConnectionTimeout time.Duration
	// MaxSessions caps the open session channels of one connection
	// (OpenSSH's MaxSessions); more are refused. Channel data is read and
	// discarded as it arrives, so a connection can hold at most
	// MaxSessions times x/crypto's fixed 2 MiB channel window of unread
	// data (session.go).
	MaxSessions int
	// LoginGraceTime bounds the time from accept to the end of
	// authentication (OpenSSH's LoginGraceTime).
	LoginGraceTime time.Duration
	// IdleTimeout closes a logged-in connection when nothing has been
	// received from the client, and nothing could be sent to it, for
	// that long.
	IdleTimeout time.Duration

	wg      sync.WaitGroup
	mu      sync.Mutex
	closed  bool
	conns   map[*conn]struct{}
	preauth int
	sources map[netip.Prefix]*sourceCount
	logs    logLimiter
	accErr  time.Time // time of the last accept error line
}

// New returns a server for l. Call Serve to start it.
func New(l net.Listener, cfg *ssh.ServerConfig) *Server {
	s := &Server{cfg: cfg, l: l, conns: map[*conn]struct{}{}, sources: map[netip.Prefix]*sourceCount{}}
	s.logs.init(s)
	return s
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
			s.acceptError(fmt.Sprintf("accept: %v; retrying in %v", err, backoff))
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c := &conn{nc: nc, src: s.source(nc.RemoteAddr())}
		evicted, refusal, closed := s.admit(c)
		if closed {
			nc.Close()
			return nil
		}
		if evicted != nil {
			evicted.nc.Close()
			s.event(evicted.src, kindEvicted, fmt.Sprintf("%s: closed, unused for %v while the server is full", evicted.nc.RemoteAddr(), time.Since(evicted.lastActive()).Round(time.Second)))
		}
		if refusal != "" {
			nc.Close()
			s.event(c.src, kindRefused, fmt.Sprintf("%s: refused: %s", nc.RemoteAddr(), refusal))
			continue
		}
		go func() {
			defer s.wg.Done()
			defer s.release(c)
			s.handle(c)
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

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops accepting, closes open connections, waits for their
// handlers and logs the summaries still pending.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	err := s.l.Close()
	s.wg.Wait()
	s.logs.flush()
	return err
}

func (s *Server) handle(c *conn) {
	nc := c.nc
	defer nc.Close()
	grace := s.LoginGraceTime
	if grace <= 0 {
		grace = 30 * time.Second
	}
	nc.SetDeadline(time.Now().Add(grace))
	ic := &idleConn{Conn: nc}
	sc, chans, reqs, err := ssh.NewServerConn(ic, s.cfg)
	if err != nil {
		// x/crypto's errors quote the peer's names and its disconnect
		// message.
		s.event(c.src, kindFailed, fmt.Sprintf("%s: handshake failed: %s", nc.RemoteAddr(), peerText(err.Error())))
		return
	}
	defer sc.Close()
	s.loggedIn(c)
	ic.idle.Store(int64(s.IdleTimeout))
	// The login grace deadline ends; x/crypto's reader is already blocked
	// in a Read, so its idle deadline is set here, later ones by idleConn.
	if s.IdleTimeout > 0 {
		nc.SetDeadline(time.Now().Add(s.IdleTimeout))
	} else {
		nc.SetDeadline(time.Time{})
	}
	kex := "unknown"
	if a, ok := Negotiated(sc.Conn); ok {
		// The algorithm names are ours (x/crypto picks from our lists);
		// the version and user are the peer's, hence quoted.
		kex = a.KeyExchange
		s.event(c.src, kindLogin, fmt.Sprintf("%s: client %s kex=%s hostkey=%s cipher=%s user=%s",
			nc.RemoteAddr(), peerText(string(sc.ClientVersion())), a.KeyExchange, a.HostKey, a.Read.Cipher, peerText(sc.User())))
	}
	go ssh.DiscardRequests(reqs)
	s.serveChannels(c, chans, kex)
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
