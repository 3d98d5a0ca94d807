package kexserver

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"golang.org/x/crypto/ssh"
)

// serveChannels accepts up to MaxSessions session channels at a time on
// c and rejects other channel types.
//
// Memory: x/crypto grants each accepted channel a fixed 2 MiB receive
// window and buffers whatever the client sends into it until the server
// reads it (it cannot be made smaller in x/crypto v0.52.0). Each
// session reads and discards its channel data and extended data as it
// arrives, until the channel is gone, and a channel counts against
// MaxSessions until the client has closed it too, so one connection can
// never have more than MaxSessions windows, 2 MiB each, of unread data.
func (s *Server) serveChannels(c *conn, chans <-chan ssh.NewChannel, kex string) {
	var open atomic.Int32
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		if s.MaxSessions > 0 && int(open.Load()) >= s.MaxSessions {
			nch.Reject(ssh.ResourceShortage, fmt.Sprintf("at most %d session channels per connection", s.MaxSessions))
			continue
		}
		ch, reqs, err := nch.Accept()
		if err != nil {
			continue
		}
		open.Add(1)
		c.touch()
		go func() {
			defer open.Add(-1)
			session(ch, reqs, kex, c.touch)
		}()
	}
}

// session answers the first exec or shell request with the key
// exchange, and exit status 0, then closes the channel. It returns when
// the channel is gone (closed by both sides, or the connection ended):
// until then it reads and discards the channel's data and requests, so
// that nothing the client sends waits in x/crypto's buffers. touch is
// called on every request and read.
func session(ch ssh.Channel, reqs <-chan *ssh.Request, kex string, touch func()) {
	defer ch.Close()
	drained := make(chan struct{}, 2)
	drain := func(r io.Reader) {
		buf := make([]byte, 32<<10) // x/crypto's largest channel packet
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
			touch()
		}
		drained <- struct{}{}
	}
	go drain(ch)
	go drain(ch.Stderr())
	answered := false
	for req := range reqs {
		touch()
		switch req.Type {
		case "exec", "shell":
			if answered {
				req.Reply(false, nil)
				continue
			}
			answered = true
			req.Reply(true, nil)
			// Writing may wait for the client's window; requests keep
			// being read meanwhile.
			go func() {
				fmt.Fprintf(ch, "kex=%s\n", kex)
				var status [4]byte
				binary.BigEndian.PutUint32(status[:], 0)
				ch.SendRequest("exit-status", false, status[:])
				ch.Close()
			}()
		case "pty-req", "env":
			req.Reply(!answered, nil)
		default:
			req.Reply(false, nil)
		}
	}
	// reqs is closed when the channel is gone: both drains end.
	<-drained
	<-drained
}
