package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

// clientKexList runs the client command cmd (the port appended by args)
// against a listener that reads its KEXINIT, and returns the key
// exchanges it lists, extension markers removed.
func clientKexList(t *testing.T, args func(port string) []string) []string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv := args(port)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	l.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte("SSH-2.0-pqkex_test\r\n")); err != nil {
		t.Fatal(err)
	}
	_, ki, err := readKexInit(bufio.NewReader(c))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(slices.Clone(ki.KexAlgos), isExtensionMarker)
}

// peerProgram returns the installed peer program named by the variable
// (scripts/peer-env.sh); without it the test skips, and fails in CI.
func peerProgram(t *testing.T, name string) string {
	t.Helper()
	p := os.Getenv(name)
	if p == "" {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("%s is not set: run scripts/install-peers.sh and eval \"$(bash scripts/peer-env.sh --export)\"", name)
		}
		t.Skipf("%s is not set (scripts/peer-env.sh)", name)
	}
	return p
}

// TestClientListsOfPeers: the client lists scan predicts with are the
// ones the installed clients send. Debian's OpenSSH 9.2 also offers the
// plain sntrup761x25519-sha512 name (backported from 9.9), first.
func TestClientListsOfPeers(t *testing.T) {
	openssh := func(bin string) func(string) []string {
		return func(port string) []string {
			return []string{bin, "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
				"-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20", "-p", port, "root@127.0.0.1", "true"}
		}
	}
	for _, c := range []struct {
		name, env string
		args      func(bin string) func(string) []string
		want      []string
	}{
		{"OpenSSH 10.0", "PQKEX_OPENSSH10_SSH", openssh, openSSH100Client.Kex},
		{"OpenSSH 10.6", "PQKEX_OPENSSH106_SSH", openssh, openSSH100Client.Kex},
		{"OpenSSH 9.2 (Debian)", "PQKEX_OPENSSH92_SSH", openssh, append([]string{"sntrup761x25519-sha512"}, openSSH90Client.Kex...)},
		{"PuTTY 0.85", "PQKEX_PLINK", func(bin string) func(string) []string {
			return func(port string) []string { return []string{bin, "-batch", "-P", port, "root@127.0.0.1", "true"} }
		}, puttyKex},
		{"libssh 0.12", "PQKEX_LIBSSH_PEER", func(bin string) func(string) []string {
			return func(port string) []string { return []string{bin, "client", "-p", port, "127.0.0.1"} }
		}, libsshClient.Kex},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := peerProgram(t, c.env)
			if got := clientKexList(t, c.args(bin)); !slices.Equal(got, c.want) {
				t.Errorf("%s sends\n  %q\nscan assumes\n  %q", bin, got, c.want)
			}
		})
	}
}
