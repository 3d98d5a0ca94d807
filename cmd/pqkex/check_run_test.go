//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// freeAddr is a loopback address with a port nothing listens on (for
// runCheck to listen on, known to the test beforehand).
func freeAddr(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("no %s: %v", host, err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// processesWith lists the PIDs of the processes whose command line is
// exactly args (from /proc).
func processesWith(t *testing.T, args ...string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(dirs) == 0 {
		t.Skipf("no /proc: %v", err)
	}
	want := strings.Join(args, "\x00") + "\x00"
	var pids []string
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && string(b) == want {
			pids = append(pids, filepath.Base(filepath.Dir(d)))
		}
	}
	return pids
}

// TestCheckRunKillsProcessGroup: what a -run command starts ends with
// its run: a client sh waits for is killed with sh when the run's time
// is up, one put in the background when sh exits, and none is left when
// check ends.
func TestCheckRunKillsProcessGroup(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, command string }{
		{"waited for", "sleep %s; true"},
		{"in the background", "sleep %s & true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// A duration no other process has: the processes are found by
			// their command line.
			d := fmt.Sprintf("%d.%03d", 900+os.Getpid()%97, time.Now().Nanosecond()%1000)
			done := make(chan int)
			var out, errOut bytes.Buffer
			go func() {
				done <- runCheck([]string{"-listen", "127.0.0.1:0", "-timeout", "500ms", "-idle", "3s",
					"-run", fmt.Sprintf(c.command, d)}, &out, &errOut)
			}()
			most := 0
			for running := true; running; {
				select {
				case <-done:
					running = false
				case <-time.After(100 * time.Millisecond):
					most = max(most, len(processesWith(t, "sleep", d)))
				}
			}
			if left := processesWith(t, "sleep", d); len(left) > 0 {
				t.Errorf("sleep %s still runs after check ended (PIDs %v)", d, left)
				for _, pid := range left {
					exec.Command("kill", "-9", pid).Run()
				}
			}
			if most > 1 {
				t.Errorf("%d of the command's sleep processes ran at once: runs left them behind", most)
			}
			t.Logf("at most %d sleep at once", most)
		})
	}
}

// TestCheckRunBindsClient: with -run and no -client-addr, the client
// under test is the one at the address the command's connections come
// from (127.0.0.1 for a listener on 127.0.0.1): an honest client from
// 127.0.0.2 connecting before the command's first run does not take the
// run, and is refused.
func TestCheckRunBindsClient(t *testing.T) {
	t.Parallel()
	if err := sshkex.Register(); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t, "127.0.0.1")
	first := shellQuote(filepath.Join(t.TempDir(), "first")) // the first run waits, so that the other client comes first
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
		cfg.KeyExchanges = []string{sshkex.KeyExchangeMLKEM768X25519}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if c, err := sshtest.LoginFrom("127.0.0.2", addr, cfg); err == nil {
				c.Close()
			}
		}
	}()
	var out, errOut bytes.Buffer
	code := runCheck([]string{"-json", "-listen", addr, "-timeout", "5s", "-idle", "20s", "-kex", sshkex.KeyExchangeMLKEM768X25519,
		"-run", "[ -e " + first + " ] || { touch " + first + "; sleep 0.5; }; " + clientChild(t, sshkex.KeyExchangeMLKEM768X25519)}, &out, &errOut)
	var rep checkReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errOut.String())
	}
	if code != 0 || rep.ClientAddr != "127.0.0.1" || rep.Refused == 0 {
		t.Errorf("exit %d, client under test %s, %d refused; want 0, 127.0.0.1, some refused\n%s", code, rep.ClientAddr, rep.Refused, errOut.String())
	}
	for _, r := range rep.Results {
		if !strings.HasPrefix(r.Peer, "127.0.0.1:") {
			t.Errorf("%s run by %s", r.Case, r.Peer)
		}
	}
}

// TestCheckListenClientOffersNone: a -run client that offers none of
// the hybrid methods is launched once, not until -idle, and is one
// result in every output: a row saying so, the summary's "could not
// run", the JSON's error and results, a JUnit suite; exit status 3.
func TestCheckListenClientOffersNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs, junit := filepath.Join(dir, "runs"), filepath.Join(dir, "report.xml")
	command := "echo run >> " + shellQuote(runs) + "; " + clientChild(t, "curve25519-sha256")
	for _, asJSON := range []bool{false, true} {
		os.Remove(runs)
		args := []string{"-listen", "127.0.0.1:0", "-timeout", "5s", "-idle", "30s", "-junit", junit, "-run", command}
		if asJSON {
			args = append([]string{"-json"}, args...)
		}
		var out, errOut bytes.Buffer
		start := time.Now()
		code := runCheck(args, &out, &errOut)
		el := time.Since(start)
		launched, _ := os.ReadFile(runs)
		if n := strings.Count(string(launched), "run"); code != checkNotRun || n > 2 || el > 15*time.Second {
			t.Errorf("exit %d after %v and %d launches; want 3, once, well before -idle\n%s\n%s", code, el, n, out.String(), errOut.String())
		}
		const why = "the client offers none of the key exchanges checked"
		if asJSON {
			var rep checkReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep.Error, why) || len(rep.Results) != 1 || rep.Summary.NotRun != 1 ||
				!strings.Contains(strings.Join(rep.Offered, ","), "curve25519-sha256") {
				t.Errorf("JSON: error %q, %d results, summary %+v, offered %q", rep.Error, len(rep.Results), rep.Summary, rep.Offered)
			}
		} else if !strings.Contains(out.String(), "could not run ×1: "+why) || !strings.Contains(out.String(), "1 could not run") {
			t.Errorf("the table does not say why:\n%s", out.String())
		}
		report, _ := os.ReadFile(junit)
		if !strings.Contains(string(report), why) {
			t.Errorf("the JUnit report does not say why:\n%s", report)
		}
	}
}

// TestClientCommandQuoting: {host}, {port} and {addr} reach the client
// as the listener's address whatever quotes surround them: an IPv6
// address in brackets unquoted is a glob pattern to sh, which files
// named "1:2200" and "::2200" in the working directory would match.
func TestClientCommandQuoting(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"1:2200", "::2200", "1", ":"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	addr := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 2200}
	command := `printf '%s|' {addr} '{addr}' "{addr}" x{addr} {host} '[{host}]:{port}' "[{host}]:{port}" \{addr}`
	line := clientCommand(command, addr)
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if want := "[::1]:2200|[::1]:2200|[::1]:2200|x[::1]:2200|::1|[::1]:2200|[::1]:2200|{addr}|"; string(got) != want {
		t.Errorf("sh -c %s\nprinted %s\nwant    %s", line, got, want)
	}
	v4 := clientCommand("ssh -p {port} x@{host}", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2200})
	if v4 != "ssh -p 2200 x@127.0.0.1" {
		t.Errorf("IPv4: %s", v4)
	}
}
