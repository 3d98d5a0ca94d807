// Package kexserver is a minimal SSH server on golang.org/x/crypto/ssh for
// interoperability checks: it accepts any user without real
// authentication and answers every exec or shell request with one line,
// "kex=<negotiated key exchange>", and exit status 0. It backs `pqkex
// serve` and the interop tests.
package kexserver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
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
	for _, k := range hostKeys {
		cfg.AddHostKey(k)
	}
	return cfg
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

// Server serves SSH connections until Close.
type Server struct {
	cfg *ssh.ServerConfig
	l   net.Listener
	// Log, if set, receives one line per connection with the negotiated
	// algorithms, or the handshake error.
	Log func(string)

	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
}

// New returns a server for l. Call Serve to start it.
func New(l net.Listener, cfg *ssh.ServerConfig) *Server {
	return &Server{cfg: cfg, l: l, conns: map[net.Conn]struct{}{}}
}

// Addr returns the listening address.
func (s *Server) Addr() net.Addr { return s.l.Addr() }

// Serve accepts connections until the listener is closed. It returns nil
// after Close.
func (s *Server) Serve() error {
	for {
		nc, err := s.l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return nil
		}
		s.conns[nc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(nc)
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}()
	}
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

func (s *Server) handle(nc net.Conn) {
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	conn, chans, reqs, err := ssh.NewServerConn(nc, s.cfg)
	if err != nil {
		s.logf("%s: handshake failed: %v", nc.RemoteAddr(), err)
		return
	}
	defer conn.Close()
	nc.SetDeadline(time.Time{})
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
