package examples

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// TestGliderlabsFirstStart: the gliderlabs example of docs/usage.md runs
// as the excerpt shows it on a first start, in an empty directory with
// its default -hostkey: it creates its host key (0600), says it
// authenticates no one, and a client gets its answer; a second start
// keeps the key.
func TestGliderlabsFirstStart(t *testing.T) {
	dir := t.TempDir()
	start := func() (*server, ssh.PublicKey) {
		cmd := exec.Command(program(t, "gliderlabs"), "-listen", "127.0.0.1:0")
		cmd.Dir = dir
		srv := startServer(t, cmd)
		var key ssh.PublicKey
		cfg := &ssh.ClientConfig{User: "anyone", Timeout: 10 * time.Second,
			HostKeyCallback: func(_ string, _ net.Addr, k ssh.PublicKey) error { key = k; return nil }}
		c, err := ssh.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", srv.port), cfg)
		if err != nil {
			t.Fatalf("%v\n%s", err, srv.log)
		}
		defer c.Close()
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Output("kex")
		if err != nil || !strings.HasPrefix(string(out), "kex="+sshkex.KeyExchangeMLKEM768X25519) {
			t.Errorf("answer %q, %v", out, err)
		}
		return srv, key
	}
	srv, first := start()
	fi, err := os.Stat(filepath.Join(dir, "host_ed25519"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host_ed25519: %v, mode %v\n%s", err, fi.Mode(), srv.log)
	}
	for _, want := range []string{"created host key host_ed25519", "WARNING: this server authenticates no one"} {
		if !strings.Contains(srv.log.String(), want) {
			t.Errorf("the first start does not say %q:\n%s", want, srv.log)
		}
	}
	srv2, second := start()
	if string(first.Marshal()) != string(second.Marshal()) {
		t.Errorf("the second start offered another host key")
	}
	if strings.Contains(srv2.log.String(), "created host key") {
		t.Errorf("the second start created a key:\n%s", srv2.log)
	}
}
