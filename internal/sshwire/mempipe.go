package sshwire

// The in-memory wire: a buffered, full-duplex connection for SSH
// handshakes inside one process (sshkex's registration self-test, pqkex
// bench's handshake timings). Unlike net.Pipe, writes never wait for the
// reader: both SSH peers send their identification line and KEXINIT
// before reading, which deadlocks on an unbuffered pipe.

import (
	"io"
	"net"
	"sync"
	"time"
)

// MemPipe returns the two ends of an in-memory connection. With record set, each end
// keeps everything it wrote (Written), up to MemRecordLimit bytes; a write
// past that fails.
func MemPipe(record bool) (client, server *MemConn) {
	c2s, s2c := newMemBuf(record), newMemBuf(record)
	return &MemConn{in: s2c, out: c2s}, &MemConn{in: c2s, out: s2c}
}

// MemRecordLimit bounds what a recording end keeps: a handshake writes a few
// kilobytes.
const MemRecordLimit = 1 << 20

// memBuf is one direction of a connection.
type memBuf struct {
	mu     sync.Mutex
	cond   sync.Cond
	unread []byte // written, not yet read
	record []byte // everything written, if recording
	rec    bool
	closed bool
}

func newMemBuf(record bool) *memBuf {
	b := &memBuf{rec: record}
	b.cond.L = &b.mu
	return b
}

func (b *memBuf) close() {
	b.mu.Lock()
	b.closed = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// MemConn is one end of a connection. It implements net.Conn; deadlines are
// not supported (Close ends a blocked Read on both ends).
type MemConn struct {
	in, out *memBuf
}

// Written returns a copy of everything this end wrote (nil unless the
// connection records).
func (c *MemConn) Written() []byte {
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.record...)
}

// Read reads what the other end wrote; it returns io.EOF once the
// connection is closed and everything written was read.
func (c *MemConn) Read(p []byte) (int, error) {
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
// closed or a recording end would pass MemRecordLimit.
func (c *MemConn) Write(p []byte) (int, error) {
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (b.rec && len(b.record)+len(p) > MemRecordLimit) {
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
func (c *MemConn) Close() error {
	c.in.close()
	c.out.close()
	return nil
}

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "mempipe" }

func (c *MemConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *MemConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *MemConn) SetDeadline(time.Time) error      { return nil }
func (c *MemConn) SetReadDeadline(time.Time) error  { return nil }
func (c *MemConn) SetWriteDeadline(time.Time) error { return nil }
