package kexserver

import (
	"errors"
	"io"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// TestMaxSessionsAndDrain: beyond MaxSessions a channel is refused with
// "resource shortage"; data and extended data far beyond the 2 MiB window
// go through (the server reads and discards them); a channel the client
// closes frees its slot.
func TestMaxSessionsAndDrain(t *testing.T) {
	s, cfg := start(t, func(s *Server) { s.MaxSessions = 3 })
	c, err := dial(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var chans []ssh.Channel
	for i := range 5 {
		ch, reqs, err := c.OpenChannel("session", nil)
		if i < 3 {
			if err != nil {
				t.Fatalf("channel %d: %v", i, err)
			}
			go ssh.DiscardRequests(reqs)
			chans = append(chans, ch)
			continue
		}
		var oce *ssh.OpenChannelError
		if !errors.As(err, &oce) || oce.Reason != ssh.ResourceShortage {
			t.Fatalf("channel %d beyond MaxSessions 3: %v", i, err)
		}
	}

	const n = 8 << 20 // four windows
	done := make(chan error, 2)
	for _, w := range []io.Writer{chans[0], chans[1].Stderr()} {
		go func() {
			buf := make([]byte, 32<<10)
			for sent := 0; sent < n; sent += len(buf) {
				if _, err := w.Write(buf); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("8 MiB of channel data or extended data did not go through: the server does not read it")
		}
	}

	chans[0].Close()
	var ch ssh.Channel
	if !waitFor(5*time.Second, func() bool {
		var reqs <-chan *ssh.Request
		if ch, reqs, err = c.OpenChannel("session", nil); err != nil {
			return false
		}
		go ssh.DiscardRequests(reqs)
		return true
	}) {
		t.Fatalf("no channel after closing one of the 3: %v", err)
	}
	ch.Close()
	if err := runKexOn(c, chans[2]); err != nil {
		t.Fatal(err)
	}
}

// runKexOn runs "kex" on an open session channel, as ssh.Session does.
func runKexOn(c *ssh.Client, ch ssh.Channel) error {
	ok, err := ch.SendRequest("exec", true, ssh.Marshal(struct{ Cmd string }{"kex"}))
	if err != nil || !ok {
		return errors.Join(errors.New("exec refused"), err)
	}
	out, err := io.ReadAll(ch)
	if err != nil {
		return err
	}
	if len(out) < 4 || string(out[:4]) != "kex=" {
		return errors.New("answer " + string(out))
	}
	return nil
}
