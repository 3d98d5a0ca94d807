package main

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

// TestCheckDeadlineClosesConnection: -deadline ends a server check when
// it passes, with the connection in flight closed rather than waited out
// to its -timeout: against a server that says nothing at all, and one
// that sends its KEXINIT and then never answers a case. (An interrupt
// ends the same context, so it closes the connection the same way.)
func TestCheckDeadlineClosesConnection(t *testing.T) {
	t.Parallel()
	silent := sshtest.Serve(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	mute := sshtest.Serve(t, func(c net.Conn) {
		c.Write(append([]byte("SSH-2.0-fake\r\n"), sshwire.PlainPacket(kexInitOffering(sshkex.KeyExchangeMLKEM768X25519))...))
		io.Copy(io.Discard, c)
	})
	for _, c := range []struct {
		name, addr, out string
	}{
		{"silent", silent, "the check reached its deadline (3s) before the server's identification line"},
		{"never answers a case", mute, "the run ended during this case: the check reached its deadline (3s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			start := time.Now()
			code := runCheck([]string{"-v", "-timeout", "20s", "-deadline", "3s", c.addr}, &out, &errOut)
			el := time.Since(start)
			if code != checkNotRun {
				t.Errorf("exit %d, want %d", code, checkNotRun)
			}
			// 3 s and the time to report; -timeout (20 s) is what an
			// unclosed connection would wait.
			if el > 8*time.Second {
				t.Errorf("-deadline 3s took %v: the connection in flight was not closed", el)
			}
			if !strings.Contains(out.String()+errOut.String(), c.out) {
				t.Errorf("output lacks %q:\n%s\n%s", c.out, out.String(), errOut.String())
			}
			t.Logf("exit %d after %v", code, el.Round(10*time.Millisecond))
		})
	}
}
