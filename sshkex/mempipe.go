package sshkex

import (
	"errors"
	"net"
	"sync"
	"time"
)

// memPipe returns the two ends of an in-memory, buffered, full-duplex
// connection for the registration self-test, and the two records of
// everything each end wrote (client to server, server to client), readable
// once both ends are closed. Unlike net.Pipe, writes never wait for the
// reader: both SSH peers send their identification line and KEXINIT before
// reading, which would deadlock on an unbuffered pipe.
func memPipe() (client, server *memConn) {
	c2s, s2c := newMemBuf(), newMemBuf()
	return &memConn{in: s2c, out: c2s}, &memConn{in: c2s, out: s2c}
}

// memBuf is one direction of a memPipe.
type memBuf struct {
	mu     sync.Mutex
	cond   sync.Cond
	unread []byte // written, not yet read
	record []byte // everything ever written
	closed bool
}

// memRecordLimit bounds what one direction keeps: a self-test handshake
// writes a few kilobytes; a peer that writes more is cut off.
const memRecordLimit = 1 << 20

func newMemBuf() *memBuf {
	b := new(memBuf)
	b.cond.L = &b.mu
	return b
}

func (b *memBuf) close() {
	b.mu.Lock()
	b.closed = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// written returns a copy of everything written so far.
func (b *memBuf) written() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.record...)
}

// memConn is one end of a memPipe. It implements net.Conn; deadlines are
// not supported (the self-test bounds its handshakes by closing the pipe).
type memConn struct {
	in, out *memBuf
}

var errMemClosed = errors.New("sshkex: self-test pipe closed")

func (c *memConn) Read(p []byte) (int, error) {
	b := c.in
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.unread) == 0 && !b.closed {
		b.cond.Wait()
	}
	if len(b.unread) == 0 {
		return 0, errMemClosed
	}
	n := copy(p, b.unread)
	b.unread = b.unread[n:]
	return n, nil
}

func (c *memConn) Write(p []byte) (int, error) {
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || len(b.record)+len(p) > memRecordLimit {
		return 0, errMemClosed
	}
	b.unread = append(b.unread, p...)
	b.record = append(b.record, p...)
	b.cond.Broadcast()
	return len(p), nil
}

// Close closes both directions, so the peer's reads end too.
func (c *memConn) Close() error {
	c.in.close()
	c.out.close()
	return nil
}

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "sshkex-self-test" }

func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }
