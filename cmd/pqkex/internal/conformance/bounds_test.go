package conformance

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
)

// A server check is bounded and gives a hostile server nothing to
// recognize it by: the run ends at its deadline however slow the server,
// and the identification line is a common client's.

// stallingServer answers each connection with an identification line and
// a KEXINIT offering every method, then says nothing; it records the
// identification lines it is sent.
func stallingServer(t *testing.T) (addr string, idents chan string) {
	idents = make(chan string, 1000)
	addr = sshtest.Serve(t, func(nc net.Conn) {
		c := newConn(nc)
		c.writeVersion("SSH-2.0-stall")
		if v, err := c.readVersion(); err == nil {
			select {
			case idents <- v:
			default:
			}
		}
		c.write(sshwire.AppendKexInit(nil, newKexInit(append(Methods(), strictServer), []string{"ssh-ed25519"})))
		nc.SetReadDeadline(time.Now().Add(time.Minute))
		buf := make([]byte, 4096)
		for {
			if _, err := nc.Read(buf); err != nil {
				return
			}
		}
	})
	return addr, idents
}

// TestServerCheckBounded: against a server that stalls every case, a check
// of five methods (about 130 cases of one timeout each) ends at its
// deadline, and reports the cases it did not reach as not run.
func TestServerCheckBounded(t *testing.T) {
	addr, idents := stallingServer(t)
	start := time.Now()
	rep, err := CheckServer(context.Background(), ServerOptions{Addr: addr, Timeout: 500 * time.Millisecond, Deadline: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("the check took %v with a deadline of 3s", el)
	}
	var hung, cut int
	for _, r := range rep.Results {
		switch {
		case r.Verdict == Hung:
			hung++
		case r.Verdict == NotRun && strings.Contains(r.Detail, "deadline"):
			cut++
		}
	}
	if cut == 0 || hung == 0 || hung+cut < len(rep.Results)-len(methods)*3 {
		t.Errorf("%d results: %d hung, %d cut by the deadline", len(rep.Results), hung, cut)
	}
	close(idents)
	for v := range idents {
		if !slices.Contains(clientIdents, v) {
			t.Errorf("identification line %q is not one of a common client", v)
		}
	}
	if rep.Ident == "" || !slices.Contains(clientIdents, rep.Ident) {
		t.Errorf("the report's ident %q", rep.Ident)
	}
}
