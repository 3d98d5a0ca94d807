package interop

// pqkex check against a stock OpenSSH 10 sshd: its default configuration
// (PerSourcePenalties on, as on every OpenSSH from 9.8 an auditor meets),
// with only the settings a test server needs, and check with no flags.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// startStockSSHD runs OpenSSH 10.0's sshd (PQKEX_OPENSSH10_SSHD, which
// scripts/peer-env.sh sets to /usr/sbin/sshd) with a configuration that
// sets only the port, the address, the host key and the PID file, and
// returns its address and log file. Like every other peer, it is found
// through its variable: without it the test skips (fails under CI=true),
// so that "go test ./..." without the peers' variables runs no peer.
func startStockSSHD(t *testing.T) (addr, log string) {
	t.Helper()
	needRoot(t)
	sshd := needPeer(t, "PQKEX_OPENSSH10_SSHD")
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
	cmd := exec.Command(sshd, "-D", "-f", cfg, "-E", log)
	if out, err := exec.Command(sshd, "-t", "-f", cfg).CombinedOutput(); err != nil {
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

// The audit commands of docs/conformance.md ("Auditing a server"), as
// TestCheckStockOpenSSH runs them; TestAuditDocCommands keeps the text
// and these in step.
var (
	auditServerArgs   = []string{"-baseline", "testdata/openssh.baseline", "-junit", "REPORT.xml"}
	auditNewFinding   = []string{"-kex", "mlkem768x25519-sha256", "-baseline", "testdata/other.baseline"}
	auditDocBaseline  = "x25519-mask * SSH-2.0-OpenSSH_\nrekey-preauth * SSH-2.0-OpenSSH_"
	auditDocServerCmd = "pqkex check -baseline openssh.baseline -junit report.xml HOST"
)

// TestCheckStockOpenSSH: against a default-configured OpenSSH 10 sshd,
// which refuses a source after about 15 connections that do not
// authenticate, pqkex check runs every case (none "not run"): it notices
// the refusal, waits it out and paces itself, and says so (sshd's own log
// shows the penalty was met). With the baseline of OpenSSH's known
// finding it exits 0, and its JUnit report, read back by junitparser,
// counts every case with no failure; with a baseline that does not
// accept OpenSSH's finding, it exits 1.
func TestCheckStockOpenSSH(t *testing.T) {
	addr, log := startStockSSHD(t)
	junit := filepath.Join(t.TempDir(), "report.xml")
	args := slices.Clone(auditServerArgs)
	args[3] = junit
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd, rep := runCheck(t, ctx, append(args, addr)...)
	stderr := cmd.Stderr.(interface{ String() string }).String()
	var notRun []string
	for _, r := range rep.Results {
		if r.Verdict == verdictNotRun {
			notRun = append(notRun, r.Method+" "+r.Case+": "+r.Detail)
		}
	}
	if len(notRun) > 0 || len(rep.Results) < 60 {
		t.Errorf("%d results, %d not run:\n%s\nstderr:\n%s", len(rep.Results), len(notRun), strings.Join(notRun, "\n"), stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d with the baseline of OpenSSH's known finding, want 0\n%s", code, stderr)
	}
	sshdLog, _ := os.ReadFile(log)
	if !strings.Contains(string(sshdLog), "penalty") {
		t.Errorf("sshd logged no penalty: the test did not meet PerSourcePenalties")
	}
	// The notice of the refusal, not the estimate, which names
	// PerSourcePenalties too (check wraps its messages at 100 columns).
	if !strings.Contains(strings.Join(strings.Fields(stderr), " "), "as OpenSSH's PerSourcePenalties does") {
		t.Errorf("check did not say it paced itself:\n%s", stderr)
	}
	tests, failures, skipped := readJUnit(t, junit)
	if tests != len(rep.Results) || failures != 0 || skipped < 7 {
		t.Errorf("junitparser read %d tests, %d failures, %d skipped; want %d tests, no failure, OpenSSH's 7 or more accepted findings skipped",
			tests, failures, skipped, len(rep.Results))
	}
	t.Logf("%d results, none not run, exit 0 with the baseline; junitparser: %d tests, %d failures, %d skipped; check said:\n%s",
		len(rep.Results), tests, failures, skipped, stderr)

	cmd, _ = runCheck(t, ctx, append(slices.Clone(auditNewFinding), addr)...)
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d with a baseline that does not accept OpenSSH's finding, want 1", code)
	}
}

// readJUnit parses a JUnit XML file with junitparser (Debian's
// python3-junitparser, a real reader of the format) and returns its
// counts.
func readJUnit(t *testing.T, path string) (tests, failures, skipped int) {
	t.Helper()
	const script = `import sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
t = f = s = 0
for suite in xml:
    for case in suite:
        t += 1
        for r in case.result:
            kind = type(r).__name__
            f += kind in ("Failure", "Error")
            s += kind == "Skipped"
print(t, f, s)
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, path).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("junitparser: %v\n%s (CI installs python3-junitparser)", err, out)
		}
		t.Skipf("junitparser: %v\n%s", err, out)
	}
	if _, err := fmt.Sscan(string(out), &tests, &failures, &skipped); err != nil {
		t.Fatalf("junitparser printed %q: %v", out, err)
	}
	return
}

// TestAuditDocCommands: the audit walkthrough in docs/conformance.md
// shows the commands and baseline the tests above run.
func TestAuditDocCommands(t *testing.T) {
	doc, err := os.ReadFile(conformanceDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{auditDocServerCmd, auditDocBaseline, auditDocClientCmd} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/conformance.md lacks %q", want)
		}
	}
	base, err := os.ReadFile("testdata/openssh.baseline")
	if err != nil || !strings.Contains(string(base), auditDocBaseline+"\n") {
		t.Errorf("testdata/openssh.baseline does not hold %q: %v", auditDocBaseline, err)
	}
}

// auditDocClientCmd is the walkthrough's client audit; the test below runs
// it with the OpenSSH client CI installs.
const auditDocClientCmd = `pqkex check -listen 127.0.0.1:2200 -run 'ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p {port} x@{host} true'`

// TestCheckListenRunsClient: check -listen -run runs each client CI
// installs once per case, learns from its first KEXINIT which methods it
// offers, ends by itself, and exits 0 for a conforming client, and for
// plink with the baseline of its known findings.
func TestCheckListenRunsClient(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name, env, command string
		extra              []string
	}{
		{"openssh10", "PQKEX_OPENSSH10_SSH", "%s -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p {port} x@{host} true", nil},
		{"openssh92", "PQKEX_OPENSSH92_SSH", "%s -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p {port} x@{host} true", nil},
		{"plink", "PQKEX_PLINK", "%s -ssh -batch -P {port} -l x -hostkey FINGERPRINT {host} true", []string{"-baseline", "testdata/putty.baseline"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := needPeer(t, c.env)
			hostKey := newKey(t)
			hk := writeFile(t, filepath.Join(t.TempDir(), "hostkey"), hostKey.openSSH(t))
			command := strings.ReplaceAll(fmt.Sprintf(c.command, bin), "FINGERPRINT", ssh.FingerprintSHA256(hostKey.pub()))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			args := append([]string{"check", "-json", "-listen", "127.0.0.1:0", "-hostkey", hk, "-run", command}, c.extra...)
			cmd := exec.CommandContext(ctx, pqkexCommand(t), args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			var rep checkReport
			if jerr := json.Unmarshal([]byte(stdout.String()), &rep); jerr != nil {
				t.Fatalf("%v; output %q: %v\nstderr:\n%s", err, stdout.String(), jerr, stderr.String())
			}
			if err != nil {
				t.Errorf("exit %v, want 0\n%s", err, stderr.String())
			}
			ran := 0
			for _, r := range rep.Results {
				if r.Verdict == verdictNotRun || !r.Conforms && r.Verdict != verdictNotApplicable && !slices.Contains(rep.Baselined, r.Method+" "+r.Case) {
					t.Errorf("%s %s: %s: %s", r.Method, r.Case, r.Observed(), r.Detail)
				}
				if r.Verdict != verdictNotApplicable {
					ran++
				}
			}
			// check wraps its messages at 100 columns.
			if !strings.Contains(strings.Join(strings.Fields(stderr.String()), " "), "cases, one connection each") || ran == 0 {
				t.Errorf("%d cases ran; stderr:\n%s", ran, stderr.String())
			}
			t.Logf("%d cases in %v, every method the client lacks one not-applicable row", ran, time.Since(start).Round(time.Second))
		})
	}
}
