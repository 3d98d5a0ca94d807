package sshkex

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fileProxy is a Go module proxy in a directory (GOPROXY=file://DIR, the
// layout of go.dev/ref/mod#goproxy-protocol) that serves copies of
// golang.org/x/crypto under versions newer than any real release; every
// other module comes from the module cache's download directory, so the
// builds need no network.
type fileProxy struct {
	dir      string
	versions []string
}

const proxyModule = "golang.org/x/crypto"

func newFileProxy(t *testing.T) *fileProxy {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, proxyModule, "@v"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &fileProxy{dir: dir}
}

// add serves the module in src (a copy of x/crypto) as version.
func (p *fileProxy) add(t *testing.T, version, src string) {
	base := filepath.Join(p.dir, proxyModule, "@v", version)
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":"2026-12-01T00:00:00Z"}`, version)
	if err := os.WriteFile(base+".mod", mod, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".info", []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(base + ".zip")
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		w, err := zw.Create(proxyModule + "@" + version + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		r, err := os.Open(path)
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("zipping %s: %v", version, err)
	}
	p.versions = append(p.versions, version)
	list := strings.Join(p.versions, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(p.dir, proxyModule, "@v", "list"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
}

// env is the go command's environment for builds through the proxy.
func (p *fileProxy) env(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	cache := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	return []string{
		"GOPROXY=file://" + filepath.ToSlash(p.dir) + ",file://" + filepath.ToSlash(cache),
		"GOSUMDB=off", // the versions are made here; go.sum records them
		"GOFLAGS=-mod=mod",
	}
}

// TestNewerXCryptoFromProxy: what users get after "go get -u" once
// x/crypto has released versions this sshkex was never verified against.
// An unchanged newer release registers (after the self-test) and completes
// sntrup761x25519 and mlkem768nistp256 handshakes, or is refused for its
// version when RequireVerifiedXCrypto is set; a newer release that stopped
// verifying the host key signature after the key exchange is refused by
// the self-test; one whose kexAlgorithm interface gained a method is
// refused by the structural checks. x/crypto's own key exchange works
// after each refusal.
func TestNewerXCryptoFromProxy(t *testing.T) {
	e := newProbeEnv(t)
	proxy := newFileProxy(t)
	const unchanged, noHostKeyCheck, newMethod = "v0.999.0", "v0.999.1", "v0.999.2"
	proxy.add(t, unchanged, e.copyXCrypto(t, nil))
	proxy.add(t, noHostKeyCheck, e.copyXCrypto(t, findMutant(t, "the client no longer verifies the host key signature after Client")))
	proxy.add(t, newMethod, e.copyXCrypto(t, findMutant(t, "kexAlgorithm gains an exported method (Hash)")))
	env := proxy.env(t)

	p := e.build(t, unchanged, "", env)
	wantRegistered(t, unchanged, p.run(t), "golang.org/x/crypto "+unchanged+", verified release: false")
	out := p.run(t, "require")
	t.Logf("%s with RequireVerifiedXCrypto:\n%s", unchanged, out)
	if !strings.Contains(out, "refused: sshkex: nothing registered: golang.org/x/crypto "+unchanged+" is not a release") {
		t.Fatalf("%s with RequireVerifiedXCrypto was not refused for its version:\n%s", unchanged, out)
	}

	for _, tc := range []struct{ version, want string }{
		{noHostKeyCheck, "failed the registration self-test: mlkem768nistp256-sha256: x/crypto's client accepted a host key signature made with another key"},
		{newMethod, "kexAlgorithm has 3 methods, the mirror 2"},
	} {
		out := e.build(t, tc.version, "", env).run(t)
		t.Logf("%s:\n%s", tc.version, out)
		if !strings.Contains(out, "refused:") || !strings.Contains(out, tc.want) {
			t.Fatalf("%s: want a refusal naming %q, got:\n%s", tc.version, tc.want, out)
		}
		if !strings.Contains(out, "handshake ok curve25519-sha256") {
			t.Fatalf("%s: x/crypto's own key exchange failed after the refusal:\n%s", tc.version, out)
		}
	}
}

func findMutant(t *testing.T, name string) *mutant {
	for i := range mutants {
		if mutants[i].name == name {
			return &mutants[i]
		}
	}
	t.Fatalf("no mutant %q", name)
	return nil
}
