package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestServeHostKeyKept: "pqkex serve" started twice with the same
// -hostkey file creates it (0600) the first time and offers the same key,
// fingerprint printed, both times; -hostkey "" makes a new key each start.
func TestServeHostKeyKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "serve_ed25519")
	var fps []string
	for i := range 2 {
		c := startServe(t, 0, "-listen 127.0.0.1:0 -hostkey "+path)
		log := c.stop()
		created := strings.Join(log, "\n")
		if got := strings.Contains(created, "created host key "+path); got != (i == 0) {
			t.Errorf("start %d: printed 'created host key': %v, want %v:\n%s", i+1, got, i == 0, created)
		}
		fps = append(fps, fingerprintLine(t, log, path))
	}
	if fps[0] != fps[1] {
		t.Errorf("the host key changed across a restart: %s, then %s", fps[0], fps[1])
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host key file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("host key directory: %v, %v; want mode 0700", di.Mode().Perm(), err)
	}
	s, err := loadHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := ssh.FingerprintSHA256(s.PublicKey()); fps[0] != want {
		t.Errorf("printed fingerprint %s, the file's key is %s", fps[0], want)
	}

	a := fingerprintLine(t, startServe(t, 0, `-listen 127.0.0.1:0 -hostkey=`).stop(), "new, in memory only")
	b := fingerprintLine(t, startServe(t, 0, `-listen 127.0.0.1:0 -hostkey=`).stop(), "new, in memory only")
	if a == b {
		t.Errorf("-hostkey \"\" offered the same key twice: %s", a)
	}
}

// fingerprintLine returns the SHA256 fingerprint of serve's "listening
// on" line, which must name where the key is (what).
func fingerprintLine(t *testing.T, log []string, what string) string {
	t.Helper()
	for _, l := range log {
		if strings.HasPrefix(l, "listening on ") {
			f := strings.Fields(l)
			if len(f) < 8 || !strings.HasPrefix(f[6], "SHA256:") || !strings.HasSuffix(l, "("+what+")") {
				t.Fatalf("listening line %q: want the key type, its SHA256 fingerprint and (%s)", l, what)
			}
			return f[6]
		}
	}
	t.Fatalf("no listening line in %q", log)
	return ""
}

// TestLoadOrCreateHostKeyConcurrent: servers starting at once with a
// missing key file all end up with the one key written, and exactly one
// of them reports creating it.
func TestLoadOrCreateHostKeyConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	const n = 8
	var wg sync.WaitGroup
	fps := make([]string, n)
	created := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			s, c, err := loadOrCreateHostKey(path)
			if err != nil {
				t.Error(err)
				return
			}
			fps[i], created[i] = ssh.FingerprintSHA256(s.PublicKey()), c
		})
	}
	wg.Wait()
	nc := 0
	for i := range n {
		if fps[i] != fps[0] {
			t.Errorf("server %d got key %s, server 0 %s", i, fps[i], fps[0])
		}
		if created[i] {
			nc++
		}
	}
	if nc != 1 {
		t.Errorf("%d servers report creating the key, want 1", nc)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".serve_key-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestLoadOrCreateHostKeyErrors: a file that is not a key is refused
// (never replaced), and the error does not quote it.
func TestLoadOrCreateHostKeyErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	const junk = "not a key SECRETSECRET"
	if err := os.WriteFile(path, []byte(junk), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := loadOrCreateHostKey(path)
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), path) {
		t.Errorf("loading junk: %v; want an error naming the file, not its contents", err)
	}
	if b, _ := os.ReadFile(path); string(b) != junk {
		t.Error("the file was replaced")
	}
	if _, _, err := loadOrCreateHostKey(filepath.Join(path, "below-a-file")); err == nil {
		t.Error("no error creating a key below a regular file")
	}
}
