package interop

// pqkex check against a stock OpenSSH 10 sshd: its default configuration
// (PerSourcePenalties on, as on every OpenSSH from 9.8 an auditor meets),
// with only the settings a test server needs, and check with no flags.

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/conformance"
)

// startStockSSHD runs /usr/sbin/sshd with a configuration that sets only
// the port, the address, the host key and the PID file, and returns its
// address and log file.
func startStockSSHD(t *testing.T) (addr, log string) {
	t.Helper()
	needRoot(t)
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no /usr/sbin/sshd: run scripts/install-peers.sh openssh10")
		}
		t.Skip("no /usr/sbin/sshd")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	hk := writeFile(t, filepath.Join(dir, "hostkey"), newKey(t).openSSH(t))
	cfg := writeFile(t, filepath.Join(dir, "sshd_config"), []byte(
		"Port "+strconv.Itoa(port)+"\nListenAddress 127.0.0.1\nHostKey "+hk+"\nPidFile "+filepath.Join(dir, "sshd.pid")+"\n"))
	log = filepath.Join(dir, "sshd.log")
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-f", cfg, "-E", log)
	if out, err := exec.Command("/usr/sbin/sshd", "-t", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("sshd -t: %v\n%s", err, out)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, log
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("sshd did not listen on %s", addr)
	return
}

// TestCheckStockOpenSSH: against a default-configured OpenSSH 10 sshd,
// which refuses a source after about 15 connections that do not
// authenticate, pqkex check with no flags runs every case (none "not
// run"): it notices the refusal, waits it out and paces itself, and says
// so; sshd's own log shows the penalty was met.
func TestCheckStockOpenSSH(t *testing.T) {
	addr, log := startStockSSHD(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd, rep := runCheck(t, ctx, addr)
	stderr := cmd.Stderr.(interface{ String() string }).String()
	var notRun []string
	for _, r := range rep.Results {
		if r.Verdict == conformance.NotRun {
			notRun = append(notRun, r.Method+" "+r.Case+": "+r.Detail)
		}
	}
	if len(notRun) > 0 || len(rep.Results) < 60 {
		t.Errorf("%d results, %d not run:\n%s\nstderr:\n%s", len(rep.Results), len(notRun), strings.Join(notRun, "\n"), stderr)
	}
	sshdLog, _ := os.ReadFile(log)
	if !strings.Contains(string(sshdLog), "penalty") {
		t.Errorf("sshd logged no penalty: the test did not meet PerSourcePenalties")
	}
	if !strings.Contains(stderr, "PerSourcePenalties") {
		t.Errorf("check did not say it paced itself:\n%s", stderr)
	}
	t.Logf("%d results, none not run; check said:\n%s", len(rep.Results), stderr)
}
