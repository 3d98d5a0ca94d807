package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/pqkex/pqkex/internal/kexserver"
	"golang.org/x/crypto/ssh"
)

// measureHandshakes times full x/crypto/ssh handshakes (client and server
// in this process, one at a time, over an in-memory buffered pipe) with
// the key exchange name.
func measureHandshakes(name string, hostKey ssh.Signer, d time.Duration, minN int) stat {
	scfg := &ssh.ServerConfig{NoClientAuth: true}
	scfg.KeyExchanges = []string{name}
	scfg.AddHostKey(hostKey)
	ccfg := &ssh.ClientConfig{
		User:            "bench",
		HostKeyCallback: ssh.FixedHostKey(hostKey.PublicKey()),
	}
	ccfg.KeyExchanges = []string{name}
	kexserver.OnlyModeAlgorithms(&scfg.Config) // x/crypto's GCM fails under fips140=only
	kexserver.OnlyModeAlgorithms(&ccfg.Config)
	one := func() error {
		c, s := memPipe()
		defer c.Close()
		defer s.Close()
		errc := make(chan error, 1)
		go func() {
			conn, chans, reqs, err := ssh.NewServerConn(s, scfg)
			if err == nil {
				go ssh.DiscardRequests(reqs)
				go func() {
					for range chans {
					}
				}()
				conn.Close()
			}
			errc <- err
		}()
		conn, chans, reqs, err := ssh.NewClientConn(c, "pipe", ccfg)
		if err != nil {
			return err
		}
		go ssh.DiscardRequests(reqs)
		go func() {
			for range chans {
			}
		}()
		conn.Close()
		return <-errc
	}
	if err := one(); err != nil {
		panic("bench handshake " + name + ": " + err.Error())
	}
	return measureMin(d, minN, func() {
		if err := one(); err != nil {
			panic("bench handshake " + name + ": " + err.Error())
		}
	})
}

// memPipe returns the two ends of an in-memory connection with unbounded
// buffers in both directions. (net.Pipe is unbuffered, and an SSH
// handshake deadlocks on it: both ends write their version line first.)
func memPipe() (net.Conn, net.Conn) {
	a, b := newHalfPipe(), newHalfPipe()
	return &pipeEnd{r: a, w: b}, &pipeEnd{r: b, w: a}
}

type halfPipe struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    bytes.Buffer
	closed bool
}

func newHalfPipe() *halfPipe {
	h := new(halfPipe)
	h.cond = sync.NewCond(&h.mu)
	return h
}

type pipeEnd struct {
	r, w *halfPipe
}

func (p *pipeEnd) Read(b []byte) (int, error) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	for p.r.buf.Len() == 0 && !p.r.closed {
		p.r.cond.Wait()
	}
	if p.r.buf.Len() == 0 {
		return 0, io.EOF
	}
	return p.r.buf.Read(b)
}

func (p *pipeEnd) Write(b []byte) (int, error) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if p.w.closed {
		return 0, errors.New("write on closed pipe")
	}
	p.w.buf.Write(b)
	p.w.cond.Broadcast()
	return len(b), nil
}

func (p *pipeEnd) Close() error {
	for _, h := range []*halfPipe{p.r, p.w} {
		h.mu.Lock()
		h.closed = true
		h.cond.Broadcast()
		h.mu.Unlock()
	}
	return nil
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "mem" }
func (pipeAddr) String() string  { return "mem" }

func (p *pipeEnd) LocalAddr() net.Addr              { return pipeAddr{} }
func (p *pipeEnd) RemoteAddr() net.Addr             { return pipeAddr{} }
func (p *pipeEnd) SetDeadline(time.Time) error      { return nil }
func (p *pipeEnd) SetReadDeadline(time.Time) error  { return nil }
func (p *pipeEnd) SetWriteDeadline(time.Time) error { return nil }
