package interop

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
)

// pqkex is the command, built once by pqkexCommand and removed by
// TestMain.
var pqkex = peertest.Programs{Packages: []string{"../cmd/pqkex"}}

// pqkexCommand returns the path of the built cmd/pqkex.
func pqkexCommand(t *testing.T) string {
	t.Helper()
	return pqkex.Path(t, "pqkex")
}

// TestScanOpenSSH runs `pqkex scan` against OpenSSH 10.0 and 9.2 servers
// (and tinysshd, dropbear and libssh): it must pick the first post-quantum method
// of pqkex's order that the server offers, complete it (the server's log
// proves which, where it logs it), report the server's host key, and give
// the post-quantum verdict of the server's default configuration.
func TestScanOpenSSH(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		kind, want string
		proof      func(string) func(string) bool
		verdict    string
		// what OpenSSH 9.0-9.8, 9.9, 10.x, PuTTY 0.85, libssh 0.12 and
		// x/crypto without pqkex would negotiate
		clients []string
		rec     string // a recommendation that must be there
	}{
		{"openssh10", "mlkem768x25519-sha256", sshdProof, "pq-for-all-clients",
			[]string{sntrupAlias, sntrup, mlkem, sntrup, mlkem, mlkem},
			"keep mlkem768x25519-sha256, sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com: "},
		{"openssh92", "sntrup761x25519-sha512", sshdProof, "pq-for-some-clients", // 9.2 has no ML-KEM
			[]string{sntrupAlias, sntrup, sntrup, sntrup, sntrup, "curve25519-sha256"},
			"add mlkem768x25519-sha256: upgrade from OpenSSH 9.2 to >= 9.9"},
		{"tinysshd", sntrupAlias, tinysshdProof, "pq-for-some-clients",
			[]string{sntrupAlias, sntrupAlias, sntrupAlias, sntrupAlias, sntrupAlias, "curve25519-sha256"},
			"keep sntrup761x25519-sha512@openssh.com: "},
		{"dropbear", mlkem, nil, "pq-for-all-clients", // dropbear does not log the kex
			[]string{sntrupAlias, sntrup, mlkem, sntrup, mlkem, mlkem},
			"keep sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com, mlkem768x25519-sha256: "},
		// libssh-peer logs the kex once both NEWKEYS are through; scan
		// stops before its NEWKEYS (TestPeerServer has the log proof)
		{"libssh", mlkem, nil, "pq-for-all-clients",
			[]string{sntrupAlias, sntrup, mlkem, sntrup, mlkem, mlkem},
			"keep mlkem768x25519-sha256, mlkem768nistp256-sha256, mlkem1024nistp384-sha384, sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com: "},
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
				Tool        string `json:"tool"`
				Selected    string `json:"selected"`
				PQ          bool   `json:"post_quantum"`
				Fingerprint string `json:"host_key_fingerprint"`
				Verdict     struct {
					Verdict string `json:"verdict"`
					Clients []struct {
						Client string `json:"client"`
						Kex    string `json:"kex"`
						PQ     bool   `json:"post_quantum"`
					} `json:"clients"`
					Recommendations []string `json:"recommendations"`
				} `json:"pq_verdict"`
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
			v := res.Verdict
			var got []string
			for _, cl := range v.Clients {
				got = append(got, cl.Kex)
			}
			if !strings.HasPrefix(res.Tool, "pqkex ") || v.Verdict != c.verdict || len(got) != 7 || !slices.Equal(got[:6], c.clients) || !v.Clients[6].PQ ||
				!slices.ContainsFunc(v.Recommendations, func(r string) bool { return strings.HasPrefix(r, c.rec) }) {
				t.Errorf("tool %q, verdict %s, clients %q, recommendations %q; want %s, %q, %q", res.Tool, v.Verdict, got, v.Recommendations, c.verdict, c.clients, c.rec)
			}
			if c.proof == nil {
				return
			}
			if line, err := peertest.WaitLogLine(srv.log, c.proof(c.want)); err != nil {
				t.Fatalf("server log has no proof of %s: %v", c.want, err)
			} else {
				t.Logf("server: %s", line)
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

// TestConfirmKexDocCommand: the command docs/usage.md gives to see, from
// an OpenSSH client, which key exchange was negotiated ("ssh -v ... | grep
// 'kex: algorithm:'") prints the method, run as written against
// "pqkex serve" on its default port, with OpenSSH 10.0's ssh (port and
// known_hosts file changed for the test).
func TestConfirmKexDocCommand(t *testing.T) {
	needRoot(t)
	sshBin := needPeer(t, "PQKEX_OPENSSH10_SSH")
	doc, err := os.ReadFile("../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^ssh -v .* -p 2222 .* 2>&1 \| grep 'kex: algorithm:'$`).FindString(string(doc))
	if line == "" {
		t.Fatal("docs/usage.md has no \"ssh -v ... -p 2222 ... 2>&1 | grep 'kex: algorithm:'\" line")
	}
	addr := sshtest.StartServe(t, pqkexCommand(t), nil, "-hostkey", filepath.Join(t.TempDir(), "hostkey"))
	_, port, _ := net.SplitHostPort(addr)
	command := sshBin + strings.TrimPrefix(strings.Replace(line, "-p 2222", "-o UserKnownHostsFile=/dev/null -p "+port, 1), "ssh")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", command).Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != "debug1: kex: algorithm: mlkem768x25519-sha256" {
		t.Errorf("%s\nprinted %q (%v), want the negotiated method's line", command, got, err)
	}
}
