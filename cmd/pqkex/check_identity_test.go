//go:build unix

package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

// checkRekey runs check -json -case METHOD/rekey with args against addr
// and returns its exit status and the one result.
func checkRekey(t *testing.T, addr string, args ...string) (int, conformance.Result, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runCheck(append(append([]string{"-json", "-case", sshkex.KeyExchangeMLKEM768X25519 + "/rekey"}, args...), addr), &out, &errOut)
	var rep struct{ Results []conformance.Result }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Results) != 1 {
		t.Fatalf("check %q: exit %d, %v:\n%s\n%s", args, code, err, out.String(), errOut.String())
	}
	return code, rep.Results[0], errOut.String()
}

// TestCheckIdentity: with -identity (and -user), check's case rekey
// authenticates with publickey (x/crypto's server verifies the
// signature over the session identifier) before its re-exchange, for an
// Ed25519 and an RSA key (rsa-sha2-*, RFC 8332); without it, it
// re-exchanges before user authentication. A server that refuses the
// key leaves the case not run (exit 3), not failed. The transcript has
// the identity's public key and never its private key. The key file is
// refused as -hostkey's is when others can read it, and -identity is a
// usage error with -listen, -user one without -identity.
func TestCheckIdentity(t *testing.T) {
	addr, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	dir := t.TempDir()
	pub, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edFile := writeKey(t, filepath.Join(dir, "id_ed25519"), ed, 0o600)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaFile := writeKey(t, filepath.Join(dir, "id_rsa"), rk, 0o600)

	code, r, _ := checkRekey(t, addr)
	if code != 0 || r.Verdict != conformance.Completed || !strings.Contains(r.Detail, "before user authentication") {
		t.Errorf("without -identity: exit %d, %s: %s", code, r.Verdict, r.Detail)
	}
	for _, c := range []struct{ file, algo string }{{edFile, ssh.KeyAlgoED25519}, {rsaFile, ssh.KeyAlgoRSASHA512}} {
		trDir := filepath.Join(dir, "tr-"+filepath.Base(c.file))
		code, r, _ := checkRekey(t, addr, "-user", "alice", "-identity", c.file, "-transcript", trDir)
		if code != 0 || r.Verdict != conformance.Completed || !strings.Contains(r.Detail, `after publickey user authentication as "alice"`) ||
			!strings.Contains(r.Detail, "("+c.algo+", SHA256:") || !strings.Contains(r.Detail, "keepalive@openssh.com answered by SSH_MSG_REQUEST_FAILURE") {
			t.Errorf("-identity %s: exit %d, %s: %s", c.file, code, r.Verdict, r.Detail)
		}
		data, err := os.ReadFile(r.Transcript)
		if err != nil {
			t.Fatal(err)
		}
		// The transcript's hex, 32 bytes a line, joined.
		flat := regexp.MustCompile(`\s+`).ReplaceAllString(string(data), "")
		if c.file == edFile {
			if !strings.Contains(flat, hex.EncodeToString(pub)) {
				t.Error("the transcript lacks the identity's public key")
			}
			if strings.Contains(flat, hex.EncodeToString(ed.Seed())) {
				t.Error("the transcript holds the identity's private key")
			}
		} else if strings.Contains(flat, hex.EncodeToString(rk.D.Bytes())) || strings.Contains(flat, hex.EncodeToString(rk.Primes[0].Bytes())) {
			t.Error("the transcript holds the RSA identity's private key")
		}
	}

	// A server that lets nobody in with a public key: not run, exit 3.
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
		return nil, errors.New("no")
	}}
	cfg.AddHostKey(benchHostKey())
	refusing := sshtest.XCryptoServer(t, cfg, 10*time.Second)
	code, r, _ = checkRekey(t, refusing, "-user", "alice", "-identity", edFile)
	if code != checkNotRun || r.Verdict != conformance.NotRun || r.Finding != "" ||
		!strings.Contains(r.Detail, "the server refused publickey authentication") || !strings.Contains(r.Detail, `can continue "publickey"`) {
		t.Errorf("a server refusing the key: exit %d, %s [%s]: %s", code, r.Verdict, r.Finding, r.Detail)
	}

	// The text output says why, within 100 columns.
	var out, errOut bytes.Buffer
	if code := runCheck([]string{"-case", "rekey", "-kex", sshkex.KeyExchangeMLKEM768X25519, "-user", "alice", "-identity", edFile, refusing},
		&out, &errOut); code != checkNotRun || !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "could not run ×1: the server refused publickey") {
		t.Errorf("text, a server refusing the key: exit %d:\n%s", code, out.String())
	}
	for _, l := range strings.Split(out.String()+errOut.String(), "\n") {
		if n := len([]rune(l)); n > textWidth {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}

	readable := writeKey(t, filepath.Join(dir, "id_0640"), ed, 0o640)
	for _, args := range [][]string{
		{"-identity", readable, addr},
		{"-user", "alice", addr},
		{"-listen", "127.0.0.1:0", "-identity", edFile},
		{"-identity", filepath.Join(dir, "missing"), addr},
	} {
		var out, errOut bytes.Buffer
		if code := runCheck(args, &out, &errOut); code != 2 {
			t.Errorf("check %q: exit %d, want 2\n%s", args, code, errOut.String())
		}
		if args[0] == "-identity" && args[1] == readable && !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), "identity "+readable+" is accessible by others (mode 0640)") {
			t.Errorf("a group-readable identity: %s", errOut.String())
		}
		if strings.Contains(errOut.String(), "PRIVATE KEY") {
			t.Errorf("check %q printed the key: %s", args, errOut.String())
		}
	}
}
