package kexserver

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync/atomic"
	"time"
)

// conn is one accepted connection and what the limits need to know of it.
type conn struct {
	nc  net.Conn
	src netip.Prefix // the source it counts against
	// preauth and gone are guarded by Server.mu: preauth until the client
	// has logged in, gone once the connection no longer counts (it ended,
	// or was closed to make room).
	preauth, gone bool
	// active is the time (UnixNano) of the last channel activity, or of
	// the login; 0 before login.
	active atomic.Int64
}

// touch records channel activity: a channel opened, a channel request or
// channel data.
func (c *conn) touch() { c.active.Store(time.Now().UnixNano()) }

func (c *conn) lastActive() time.Time { return time.Unix(0, c.active.Load()) }

// sourceCount counts the connections of one source.
type sourceCount struct{ open, preauth int }

// source returns the net block a remote address counts against: the
// address masked to IPv4NetBlock or IPv6NetBlock bits (OpenSSH's
// PerSourceNetBlockSize, default 32:128). IPv4-mapped IPv6 addresses
// count as IPv4. Addresses that are not IP (a unix socket in tests) are
// one source, the zero Prefix.
func (s *Server) source(a net.Addr) netip.Prefix {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}
	}
	ip := ta.AddrPort().Addr().Unmap()
	bits := s.IPv6NetBlock
	if ip.Is4() {
		bits = s.IPv4NetBlock
	}
	if bits <= 0 || bits > ip.BitLen() {
		bits = ip.BitLen()
	}
	p, err := ip.WithZone("").Prefix(bits)
	if err != nil {
		return netip.Prefix{}
	}
	return p
}

// admit decides on a new connection c and, if admitted, counts it
// (unauthenticated) and adds it to the wait group. refusal is "" or why
// it is refused; evicted, if not nil, is a logged-in connection no longer
// counted that the caller must close (it made room for c); closed means
// that the server is closed.
func (s *Server) admit(c *conn) (evicted *conn, refusal string, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", true
	}
	src := s.sources[c.src]
	if src == nil {
		src = &sourceCount{}
	}
	switch {
	case s.PerSourceMaxConns > 0 && src.open >= s.PerSourceMaxConns:
		return nil, fmt.Sprintf("%d connections from %s (per-source-max-conns %d)", src.open, c.src, s.PerSourceMaxConns), false
	case s.PerSourceMaxStartups > 0 && src.preauth >= s.PerSourceMaxStartups:
		return nil, fmt.Sprintf("%d unauthenticated connections from %s (per-source-max-startups %d)", src.preauth, c.src, s.PerSourceMaxStartups), false
	case s.MaxStartups > 0 && s.preauth >= s.MaxStartups:
		return nil, fmt.Sprintf("%d unauthenticated connections (max-startups %d)", s.preauth, s.MaxStartups), false
	case s.earlyDrop():
		return nil, fmt.Sprintf("random early drop at %d unauthenticated connections (max-startups %d:%d:%d)", s.preauth, s.MaxStartupsBegin, s.MaxStartupsRate, s.MaxStartups), false
	}
	if s.MaxConns > 0 && len(s.conns) >= s.MaxConns {
		if evicted = s.unused(); evicted == nil {
			return nil, fmt.Sprintf("%d connections (max-conns %d), none unused for %v", len(s.conns), s.MaxConns, s.UnusedConnectionTimeout), false
		}
		s.forget(evicted)
	}
	s.sources[c.src] = src
	src.open++
	src.preauth++
	s.preauth++
	c.preauth = true
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return evicted, "", false
}

// earlyDrop reports whether a new connection is dropped at random
// (OpenSSH's MaxStartups start:rate:full): never below begin
// unauthenticated connections; from there with a probability rising
// linearly from rate percent to 100% at full. s.mu is held.
func (s *Server) earlyDrop() bool {
	begin, full := s.MaxStartupsBegin, s.MaxStartups
	if begin <= 0 || full <= 0 || begin >= full || s.preauth < begin {
		return false
	}
	// p in percent, scaled by (full-begin) to stay in integers.
	span := full - begin
	p := s.MaxStartupsRate*span + (100-s.MaxStartupsRate)*(s.preauth-begin)
	return rand.IntN(100*span) < p
}

// unused returns the logged-in connection unused the longest, if that is
// at least UnusedConnectionTimeout; nil if there is none or the timeout
// is zero. s.mu is held.
func (s *Server) unused() *conn {
	if s.UnusedConnectionTimeout <= 0 {
		return nil
	}
	limit := time.Now().Add(-s.UnusedConnectionTimeout).UnixNano()
	var oldest *conn
	for c := range s.conns {
		if c.preauth {
			continue
		}
		if a := c.active.Load(); a <= limit && (oldest == nil || a < oldest.active.Load()) {
			oldest = c
		}
	}
	return oldest
}

// forget stops counting c. s.mu is held.
func (s *Server) forget(c *conn) {
	if c.gone {
		return
	}
	c.gone = true
	delete(s.conns, c)
	src := s.sources[c.src]
	src.open--
	if c.preauth {
		c.preauth = false
		src.preauth--
		s.preauth--
	}
	if src.open == 0 {
		delete(s.sources, c.src)
	}
}

// release stops counting c when its handler ends.
func (s *Server) release(c *conn) {
	s.mu.Lock()
	s.forget(c)
	s.mu.Unlock()
}

// loggedIn moves c out of the unauthenticated counts and starts its
// unused time.
func (s *Server) loggedIn(c *conn) {
	c.touch()
	s.mu.Lock()
	if c.preauth && !c.gone {
		c.preauth = false
		s.preauth--
		s.sources[c.src].preauth--
	}
	s.mu.Unlock()
}
