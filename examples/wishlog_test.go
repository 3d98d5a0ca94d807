package examples

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/crypto/ssh"
)

// TestWishLogQuotes: the wish example logs the user, command and TERM a
// client chose (wish's logging middleware) quoted, so escape sequences
// and line breaks in them neither reach the terminal nor forge a line.
func TestWishLogQuotes(t *testing.T) {
	dir := t.TempDir()
	hostKey, hostKeyFile := newKey(t, dir, "host_ed25519")
	srv := startServer(t, exec.Command(program(t, "wish"), "-listen", "127.0.0.1:0", "-hostkey", hostKeyFile))

	const (
		user = "u\x1b[2J\nforged user line"
		term = "xterm\x1b]0;title\x07\r\nforged term line"
		cmd  = "kex\nforged\x1b[31mcommand" // wish splits it into words
	)
	c, err := ssh.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.port)), &ssh.ClientConfig{User: user, HostKeyCallback: ssh.FixedHostKey(hostKey.PublicKey()), Timeout: caseTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty(term, 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	out, err := sess.Output(cmd)
	if err != nil || !strings.HasPrefix(string(out), "kex=") {
		t.Fatalf("session: %q, %v", out, err)
	}
	line, err := srv.waitLog(" connect ", strconv.QuoteToASCII(user))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{strconv.QuoteToASCII(term), `["kex" "forged\x1b[31mcommand"]`} {
		if !strings.Contains(line, want) {
			t.Errorf("the connect line %q does not hold %s", line, want)
		}
	}
	for _, l := range strings.Split(srv.log.String(), "\n") {
		if strings.HasPrefix(l, "forged") || strings.IndexFunc(l, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0 {
			t.Errorf("the server's log has the line %q", l)
		}
	}
	t.Logf("wish: %s", line)
}
