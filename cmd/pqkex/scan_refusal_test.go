package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"golang.org/x/crypto/ssh"
)

// scanServer is a server for scan's two connections: the first (the
// KEXINIT read) is answered by first, the others by then.
func scanServer(t *testing.T, first, then func(net.Conn)) string {
	var n atomic.Int32
	return sshtest.Serve(t, func(c net.Conn) {
		if n.Add(1) == 1 {
			first(c)
		} else {
			then(c)
		}
	})
}

// proxyTo answers a connection with the server at addr.
func proxyTo(addr string) func(net.Conn) {
	return func(c net.Conn) {
		s, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer s.Close()
		go io.Copy(s, c)
		io.Copy(c, s)
	}
}

// sends answers a connection with b, then closes it once the client has
// sent its line.
func sends(b string) func(net.Conn) {
	return func(c net.Conn) {
		c.Write([]byte(b))
		c.Read(make([]byte, 64))
	}
}

// TestScanPreStandardOnly: a server whose only hybrid is a withdrawn
// pre-standard one gives no client a post-quantum session: exit 3, the
// verdict named, and no word of -kex when none was given.
func TestScanPreStandardOnly(t *testing.T) {
	classical, _ := startTestServer(t, []string{ssh.KeyExchangeCurve25519})
	server := func() string {
		return scanServer(t, func(c net.Conn) {
			c.Write(append([]byte("SSH-2.0-tinyssh_old\r\n"), kexinit("sntrup4591761x25519-sha512@tinyssh.org,curve25519-sha256")...))
			io.Copy(io.Discard, c)
		}, proxyTo(classical))
	}
	addr := server()
	var out, errOut bytes.Buffer
	code := runScan([]string{addr}, &out, &errOut)
	if code != 3 || strings.Contains(errOut.String(), "-kex") || !strings.Contains(errOut.String(), "offers only pre-standard hybrids") ||
		!strings.Contains(out.String(), "post-quantum  pre-standard-pq-only") {
		t.Errorf("exit %d, want 3 naming the pre-standard hybrid and not -kex\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	out.Reset()
	var res scanResult
	if code := runScan([]string{"-json", server()}, &out, &errOut); code != 3 {
		t.Errorf("-json: exit %d", code)
	} else if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.PQVerdict == nil || res.PQVerdict.Verdict != verdictPreStandard {
		t.Errorf("-json: %v %+v", err, res.PQVerdict)
	}
}

// TestScanRefused: scan says what a refusal is instead of "not an SSH
// server" or a bare EOF: OpenSSH's penalty line (PerSourcePenalties,
// MaxStartups) on either connection, and a server closing after its
// identification line, on the KEXINIT's connection or the key
// exchange's; each exits 1, with nothing but its identification line on
// stdout when the KEXINIT was not read.
func TestScanRefused(t *testing.T) {
	good, _ := startTestServer(t, []string{"mlkem768x25519-sha256", ssh.KeyExchangeCurve25519})
	refuse := sends("Not allowed at this time\r\n")
	banner := sends("SSH-2.0-dropbear_2022.83\r\n")
	for _, c := range []struct {
		name        string
		first, then func(net.Conn)
		want        string
		verdict     bool // the KEXINIT was read: stdout has the verdict
	}{
		{"penalty on the first connection", refuse, refuse, "OpenSSH's sshd sends to a source it is penalising (PerSourcePenalties", false},
		{"penalty on the second connection", proxyTo(good), refuse, "key exchange mlkem768x25519-sha256 failed: the server refused the connection", true},
		{"closed after the banner", banner, banner, "the server closed the connection after its identification line (SSH-2.0-dropbear_2022.83)", false},
		{"closed after the banner, second connection", proxyTo(good), banner,
			"key exchange mlkem768x25519-sha256 failed: the server closed the connection after its identification line", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := scanServer(t, c.first, c.then)
			var out, errOut bytes.Buffer
			code := runScan([]string{"-timeout", "5s", addr}, &out, &errOut)
			msg := strings.Join(strings.Fields(errOut.String()), " ")
			if code != 1 || !strings.Contains(msg, c.want) || strings.HasSuffix(strings.TrimSpace(errOut.String()), "EOF") {
				t.Errorf("exit %d, want 1 and %q\nstderr:\n%s", code, c.want, errOut.String())
			}
			if strings.Contains(out.String(), "post-quantum  ") != c.verdict {
				t.Errorf("stdout:\n%s", out.String())
			}
			for _, l := range strings.Split(errOut.String(), "\n") {
				if len([]rune(l)) > textWidth {
					t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
				}
			}
		})
	}
}
