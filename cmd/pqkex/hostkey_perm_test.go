//go:build unix

package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// writeKey writes priv as an OpenSSH private key file with mode perm.
func writeKey(t *testing.T, path string, priv any, perm os.FileMode) string {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path
}

// TestHostKeyFileRefused: serve (and check -listen) refuse, as sshd
// does, a host key file that is not a regular file, that the group or
// others may read or write, or that another user owns, saying how to fix
// it, and an RSA key under 2048 bits; a 0600 file of one's own, or a
// symbolic link to one, is taken.
func TestHostKeyFileRefused(t *testing.T) {
	dir := t.TempDir()
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	good := writeKey(t, filepath.Join(dir, "good"), edKey, 0o600)
	if _, err := loadHostKey(good); err != nil {
		t.Fatalf("a 0600 key of one's own: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if _, err := loadHostKey(link); err != nil {
		t.Errorf("a link to a 0600 key of one's own: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rsa1024, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	rsa2048, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadHostKey(writeKey(t, filepath.Join(dir, "rsa2048"), rsa2048, 0o600)); err != nil {
		t.Errorf("a 2048-bit RSA key: %v", err)
	}
	cases := []struct {
		name, path, want string
	}{
		{"world-readable", writeKey(t, filepath.Join(dir, "0644"), edKey, 0o644), "chmod 600 " + filepath.Join(dir, "0644")},
		{"group-readable", writeKey(t, filepath.Join(dir, "0640"), edKey, 0o640), "mode 0640"},
		{"group-writable", writeKey(t, filepath.Join(dir, "0620"), edKey, 0o620), "chmod 600"},
		{"a directory", dir, "not a regular file (a directory)"},
		{"a named pipe", fifo, "not a regular file (a named pipe)"},
		{"1024-bit RSA", writeKey(t, filepath.Join(dir, "rsa1024"), rsa1024, 0o600), "1024-bit RSA key; at least 2048 bits"},
	}
	if os.Geteuid() == 0 {
		other := writeKey(t, filepath.Join(dir, "other"), edKey, 0o600)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"another user's", other, "owned by another user (uid 65534"})
	} else if os.Getenv("CI") == "true" {
		t.Error("not root: the file of another user cannot be made (CI runs as root)")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := loadHostKey(c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("loadHostKey(%s) = %v, want an error with %q", c.path, err, c.want)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			// serve refuses to start with it, before listening (a serve
			// that starts runs until the test binary ends).
			var out, errOut bytes.Buffer
			exited := make(chan int, 1)
			go func() { exited <- runServe([]string{"-listen", "127.0.0.1:0", "-hostkey", c.path}, &out, &errOut) }()
			select {
			case code := <-exited:
				if code != 1 || !strings.Contains(errOut.String(), c.want) {
					t.Errorf("pqkex serve -hostkey %s: exit %d, stderr %q", c.path, code, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Errorf("pqkex serve -hostkey %s started", c.path)
			}
		})
	}
}
