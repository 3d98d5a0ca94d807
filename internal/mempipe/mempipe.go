// Package mempipe is an in-memory, buffered, full-duplex connection for
// SSH handshakes inside one process: sshkex's registration self-test and
// pqkex bench's handshake timings. Unlike net.Pipe, writes never wait for
// the reader: both SSH peers send their identification line and KEXINIT
// before reading, which deadlocks on an unbuffered pipe.
package mempipe

import (
	"io"
	"net"
	"sync"
	"time"
)

// New returns the two ends of a connection. With record set, each end
// keeps everything it wrote (Written), up to RecordLimit bytes; a write
// past that fails.
func New(record bool) (client, server *Conn) {
	c2s, s2c := newBuf(record), newBuf(record)
	return &Conn{in: s2c, out: c2s}, &Conn{in: c2s, out: s2c}
}

// RecordLimit bounds what a recording end keeps: a handshake writes a few
// kilobytes.
const RecordLimit = 1 << 20

// buf is one direction of a connection.
type buf struct {
	mu     sync.Mutex
	cond   sync.Cond
	unread []byte // written, not yet read
	record []byte // everything written, if recording
	rec    bool
	closed bool
}

func newBuf(record bool) *buf {
	b := &buf{rec: record}
	b.cond.L = &b.mu
	return b
}

func (b *buf) close() {
	b.mu.Lock()
	b.closed = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// Conn is one end of a connection. It implements net.Conn; deadlines are
// not supported (Close ends a blocked Read on both ends).
type Conn struct {
	in, out *buf
}

// Written returns a copy of everything this end wrote (nil unless the
// connection records).
func (c *Conn) Written() []byte {
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.record...)
}

// Read reads what the other end wrote; it returns io.EOF once the
// connection is closed and everything written was read.
func (c *Conn) Read(p []byte) (int, error) {
	b := c.in
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.unread) == 0 && !b.closed {
		b.cond.Wait()
	}
	if len(b.unread) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.unread)
	b.unread = b.unread[n:]
	return n, nil
}

// Write appends p for the other end; it fails once the connection is
// closed or a recording end would pass RecordLimit.
func (c *Conn) Write(p []byte) (int, error) {
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (b.rec && len(b.record)+len(p) > RecordLimit) {
		return 0, io.ErrClosedPipe
	}
	b.unread = append(b.unread, p...)
	if b.rec {
		b.record = append(b.record, p...)
	}
	b.cond.Broadcast()
	return len(p), nil
}

// Close closes both directions, so the other end's reads end too.
func (c *Conn) Close() error {
	c.in.close()
	c.out.close()
	return nil
}

type addr struct{}

func (addr) Network() string { return "memory" }
func (addr) String() string  { return "mempipe" }

func (c *Conn) LocalAddr() net.Addr              { return addr{} }
func (c *Conn) RemoteAddr() net.Addr             { return addr{} }
func (c *Conn) SetDeadline(time.Time) error      { return nil }
func (c *Conn) SetReadDeadline(time.Time) error  { return nil }
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }
