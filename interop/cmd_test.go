package interop

import (
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/peertest"
	"github.com/pqkex/pqkex/internal/sshtest"
)

// pqkex is the command, built once by pqkexCommand and removed by
// TestMain.
var pqkex = peertest.Programs{Packages: []string{"../cmd/pqkex"}}

// pqkexCommand returns the path of the built cmd/pqkex.
func pqkexCommand(t *testing.T) string {
	t.Helper()
	return pqkex.Path(t, "pqkex")
}

// TestScanOpenSSH runs `pqkex scan` against OpenSSH 10.0 and 9.2 servers:
// it must pick the first post-quantum method of pqkex's order that the
// server offers, complete it (the server's log proves which), and report
// the server's host key.
func TestScanOpenSSH(t *testing.T) {
	needRoot(t)
	for _, c := range []struct{ kind, want string }{
		{"openssh10", "mlkem768x25519-sha256"},
		{"openssh92", "sntrup761x25519-sha512"}, // 9.2 has no ML-KEM
	} {
		t.Run(c.kind, func(t *testing.T) {
			hostKey, clientKey := newKey(t), newKey(t)
			srv := startPeerServer(t, c.kind, hostKey, clientKey.pub())
			bin := pqkexCommand(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, "scan", "-json", srv.addr).Output()
			if err != nil {
				t.Fatalf("pqkex scan: %v\n%s", err, out)
			}
			var res struct {
				Selected    string `json:"selected"`
				PQ          bool   `json:"post_quantum"`
				Fingerprint string `json:"host_key_fingerprint"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if res.Selected != c.want || !res.PQ {
				t.Fatalf("selected %q, want %s", res.Selected, c.want)
			}
			if res.Fingerprint != ssh.FingerprintSHA256(hostKey.pub()) {
				t.Fatalf("fingerprint %s, want %s", res.Fingerprint, ssh.FingerprintSHA256(hostKey.pub()))
			}
			if line, err := peertest.WaitLogLine(srv.log, sshdProof(c.want)); err != nil {
				t.Fatalf("sshd log has no proof of %s: %v", c.want, err)
			} else {
				t.Logf("sshd: %s", line)
			}
		})
	}
}

// TestServeOpenSSHClient runs `pqkex serve` and OpenSSH 10.0's ssh against
// it with each post-quantum method.
func TestServeOpenSSHClient(t *testing.T) {
	needRoot(t)
	sshBin := needPeer(t, "PQKEX_OPENSSH10_SSH")
	bin := pqkexCommand(t)
	hostKey, clientKey := newKey(t), newKey(t)
	hk := writeFile(t, filepath.Join(t.TempDir(), "hostkey"), hostKey.openSSH(t))

	logs := make(chan string, 100)
	addr := sshtest.StartServe(t, bin, func(line string) {
		if strings.Contains(line, ": client ") { // one line per connection
			logs <- line
		}
	}, "-hostkey", hk)
	_, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)

	for _, kex := range []string{"mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com"} {
		t.Run(kex, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := opensshClient(ctx, t, sshBin, port, hostKey, clientKey, kex)
			var errBuf strings.Builder
			c.Stderr = &errBuf
			out, err := c.Output()
			if err != nil {
				t.Fatalf("ssh: %v\n%s", err, peertest.Tail(errBuf.String()))
			}
			if got := strings.TrimSpace(string(out)); got != "kex="+kex {
				t.Fatalf("pqkex serve answered %q", got)
			}
			if _, ok := peertest.FindLine(errBuf.String(), opensshProof(kex)); !ok {
				t.Fatalf("ssh -vvv has no %q line", "debug1: kex: algorithm: "+kex)
			}
			select {
			case line := <-logs:
				if !strings.Contains(line, "kex="+kex+" ") || !strings.Contains(line, "OpenSSH_10") {
					t.Fatalf("serve logged %q", line)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("pqkex serve logged nothing")
			}
		})
	}
}
