package examples

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// upstream9Kex is the KexAlgorithms default of upstream OpenSSH 9.0 to
// 9.8: sntrup761 under its @openssh.com name only, no ML-KEM method.
const upstream9Kex = "sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org," +
	"ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256," +
	"diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,diffie-hellman-group14-sha256"

// TestClientWithSSHD runs the x/crypto client example (sshkex.Register,
// KeyExchanges left empty) against OpenSSH's sshd, logging in as root
// with public-key auth and a strict host key check. The negotiated method
// is read from sshd's own log ("debug1: kex: algorithm: NAME [preauth]")
// and must be what the client printed.
func TestClientWithSSHD(t *testing.T) {
	for _, tc := range []struct {
		name, kind, env string
		kex             string // sshd's KexAlgorithms; "" for its default
		want            string
	}{
		// The OpenSSH 9.0-9.8 case: a server that knows sntrup761 by its
		// @openssh.com name only.
		{"openssh10 offering only sntrup761x25519-sha512@openssh.com", "openssh10", "PQKEX_OPENSSH10_SSHD", sntrupAlias, sntrupAlias},
		{"openssh10 offering upstream 9.0-9.8's defaults", "openssh10", "PQKEX_OPENSSH10_SSHD", upstream9Kex, sntrupAlias},
		{"openssh92 offering upstream 9.0-9.8's defaults", "openssh92", "PQKEX_OPENSSH92_SSHD", upstream9Kex, sntrupAlias},
		{"openssh92 default", "openssh92", "PQKEX_OPENSSH92_SSHD", "", sntrup},
		{"openssh10 default", "openssh10", "PQKEX_OPENSSH10_SSHD", "", mlkem},
		{"openssh106 offering only mlkem768nistp256-sha256", "openssh106", "PQKEX_OPENSSH106_SSHD", nistp256, nistp256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needPeer(t, tc.env)
			script := needPeer(t, "PQKEX_PEER_SERVER")
			dir := t.TempDir()
			hostKey, hostKeyFile := newKey(t, dir, "hostkey")
			clientKey, identity := newKey(t, dir, "id_ed25519")
			authKeys := filepath.Join(dir, "authorized_keys")
			if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(clientKey.PublicKey()), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{script, "start", tc.kind, "--foreground", "--hostkey", hostKeyFile, "--authorized-keys", authKeys}
			if tc.kex != "" {
				args = append(args, "--kex", tc.kex)
			}
			sshd := startSSHD(t, dir, args)

			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, program(t, "client"), "-addr", "127.0.0.1:"+strconv.Itoa(sshd.port), "-user", "root",
				"-identity", identity, "-known-hosts", knownHosts(t, dir, sshd.port, hostKey.PublicKey()))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("client: %v\n%s\nsshd log:\n%s", errors.Join(err, ctx.Err()), out, readFile(sshd.logFile))
			}
			if got := strings.TrimSpace(string(out)); got != "kex="+tc.want {
				t.Errorf("the client printed %q, want kex=%s", got, tc.want)
			}
			proof, err := sshd.waitLogLine(func(l string) bool { return l == "debug1: kex: algorithm: "+tc.want+" [preauth]" })
			if err != nil {
				t.Fatal(err)
			}
			login, err := sshd.waitLogLine(func(l string) bool { return strings.HasPrefix(l, "Accepted publickey for root from 127.0.0.1") })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("TABLE | client | %s | %s | %s |", tc.kind, offerName(tc.kex), tc.want)
			t.Logf("sshd: %q, %q", proof, login)
		})
	}
}

func offerName(kex string) string {
	switch kex {
	case "":
		return "default"
	case upstream9Kex:
		return "upstream 9.0-9.8 defaults"
	}
	return "only " + kex
}

// sshd is an OpenSSH server started by scripts/peer-server.sh --foreground.
type sshd struct {
	port    int
	logFile string // its -E log
}

// startSSHD runs "bash ARGS" (peer-server.sh start KIND --foreground ...)
// with a state directory under dir, retrying twice if the random port it
// picked was taken meanwhile, and waits until sshd listens there.
func startSSHD(t *testing.T, dir string, args []string) *sshd {
	t.Helper()
	var errs []error
	for attempt := 1; attempt <= 3; attempt++ {
		s, err := tryStartSSHD(t, append(args, "--dir", filepath.Join(dir, fmt.Sprint("sshd", attempt))))
		if err == nil {
			return s
		}
		errs = append(errs, fmt.Errorf("attempt %d: %w", attempt, err))
	}
	t.Fatal(errors.Join(errs...))
	return nil
}

func tryStartSSHD(t *testing.T, args []string) (*sshd, error) {
	cmd := exec.Command("bash", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	stop := func() { cmd.Process.Kill(); <-exited }
	// The script prints PEER_* lines and closes its stdout, then execs
	// sshd (same process).
	watchdog := time.AfterFunc(startTimeout, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	out, readErr := io.ReadAll(stdout)
	go func() { cmd.Wait(); close(exited) }()
	env := map[string]string{}
	for _, l := range lines(string(out)) {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	s := &sshd{logFile: env["PEER_LOG"]}
	s.port, err = strconv.Atoi(env["PEER_PORT"])
	if readErr != nil || err != nil || s.logFile == "" || env["PEER_PID"] != strconv.Itoa(cmd.Process.Pid) {
		stop()
		return nil, fmt.Errorf("peer-server.sh printed %q (%v)\nstderr:\n%s", out, readErr, &stderr)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("sshd exited before listening: %v\nstderr:\n%s\nlog:\n%s", cmd.ProcessState, &stderr, readFile(s.logFile))
		default:
		}
		ports, err := listeningPorts(cmd.Process.Pid)
		if err != nil {
			stop()
			return nil, err
		}
		if len(ports) > 0 {
			if ports[0] != s.port {
				stop()
				return nil, fmt.Errorf("sshd listens on %v, peer-server.sh said %d", ports, s.port)
			}
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("sshd does not listen after %v; log:\n%s", startTimeout, readFile(s.logFile))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(stop)
	return s, nil
}

// waitLogLine waits up to 5 s for a line of sshd's log that satisfies
// match (sshd writes it asynchronously), and returns it.
func (s *sshd) waitLogLine(match func(string) bool) (string, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		data := readFile(s.logFile)
		for _, l := range lines(data) {
			if match(l) {
				return l, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no such line in sshd's log %s:\n%s", s.logFile, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
