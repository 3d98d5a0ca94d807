package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
)

// githubKex is what github.com offers (2025-): sntrup761x25519-sha512 as
// its only post-quantum method, then classical ones.
const githubKex = "sntrup761x25519-sha512,curve25519-sha256,curve25519-sha256@libssh.org," +
	"ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256"

// gitShell is git's restricted login shell (package git), which serves
// git-upload-pack and git-receive-pack and nothing else.
const gitShell = "/usr/bin/git-shell"

// TestGoGitWithSSHD runs the go-git example (sshkex.Register, then go-git
// as usual) against OpenSSH 10.0's sshd serving a bare repository through
// git-shell (ForceCommand): clone, push, then fetch a commit made on the
// server's side. Every connection's key exchange is read from sshd's own
// log ("debug1: kex: algorithm: NAME [preauth]").
func TestGoGitWithSSHD(t *testing.T) {
	for _, tc := range []struct {
		name, kex, want string
	}{
		{"openssh10 offering github.com's methods", githubKex, sntrup},
		{"openssh10 default", "", mlkem},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needPeer(t, "PQKEX_OPENSSH10_SSHD")
			gitBin := needGit(t)
			sshd := startLoginSSHD(t, "openssh10", tc.kex, "--sshd-option", `ForceCommand `+gitShell+` -c "$SSH_ORIGINAL_COMMAND"`)
			dir, identity, kh := sshd.Dir, sshd.Identity, sshd.KnownHosts
			// The server's repository, with one commit made by git itself.
			bare := filepath.Join(dir, "repo.git")
			seed := filepath.Join(dir, "seed")
			git(t, gitBin, "", "init", "-q", "--bare", "-b", "main", bare)
			git(t, gitBin, "", "clone", "-q", bare, seed)
			writeFile(t, filepath.Join(seed, "README"), "seeded by git\n")
			git(t, gitBin, seed, "add", "README")
			git(t, gitBin, seed, "commit", "-q", "-m", "seed")
			git(t, gitBin, seed, "push", "-q", "origin", "HEAD:main")

			url := "ssh://" + sshd.Addr + bare
			run := func(args ...string) string {
				t.Helper()
				return sshd.login(t, "gogit", args...)
			}

			// The server runs git-shell and nothing else.
			sshArgs := peertest.OpenSSH{KnownHosts: kh, Identity: identity, User: "root", Port: sshd.Port}.Args("echo not git")
			if out, err := exec.Command(needPeer(t, "PQKEX_OPENSSH10_SSH"), sshArgs[1:]...).CombinedOutput(); err == nil || !strings.Contains(string(out), "unrecognized command") {
				t.Fatalf("ssh running a shell command: %v, %q; want git-shell's refusal", err, out)
			}

			// clone: the seed commit arrives.
			work := filepath.Join(dir, "work")
			out := run("clone", url, work)
			seedHash := git(t, gitBin, seed, "rev-parse", "HEAD")
			if want := "cloned main " + seedHash; strings.TrimSpace(out) != want {
				t.Errorf("clone printed %q, want %q", out, want)
			}
			if b, err := os.ReadFile(filepath.Join(work, "README")); err != nil || string(b) != "seeded by git\n" {
				t.Errorf("cloned README: %q, %v", b, err)
			}
			// push: the server's repository gets go-git's commit.
			out = run("push", work, "pushed.txt", "pushed by go-git\n")
			pushed, ok := strings.CutPrefix(strings.TrimSpace(out), "pushed ")
			if !ok {
				t.Fatalf("push printed %q", out)
			}
			if got := git(t, gitBin, "", "--git-dir", bare, "rev-parse", "main"); got != pushed {
				t.Errorf("the server's main is %s after the push, want %s", got, pushed)
			}
			if got := git(t, gitBin, "", "--git-dir", bare, "show", "main:pushed.txt"); got != "pushed by go-git" {
				t.Errorf("the server's pushed.txt holds %q", got)
			}
			// fetch: a commit made on the server's side arrives.
			git(t, gitBin, seed, "pull", "-q", "origin", "main")
			writeFile(t, filepath.Join(seed, "server.txt"), "committed by git\n")
			git(t, gitBin, seed, "add", "server.txt")
			git(t, gitBin, seed, "commit", "-q", "-m", "server side")
			git(t, gitBin, seed, "push", "-q", "origin", "HEAD:main")
			newHash := git(t, gitBin, seed, "rev-parse", "HEAD")
			out = run("fetch", work)
			if want := "fetched origin/main " + newHash; !strings.Contains(out, want) {
				t.Errorf("fetch printed %q, want a line %q", out, want)
			}

			// Four connections (ssh's and go-git's three), each logged in
			// and each negotiating want.
			proof := sshdKexProof(t, sshd.Log, 4, tc.want)
			t.Logf("TABLE | go-git v5.19.3 | openssh10 + git-shell | %s | %s |", gitOfferName(tc.kex), tc.want)
			t.Logf("sshd: %q", proof)
		})
	}
}

func gitOfferName(kex string) string {
	if kex == githubKex {
		return "github.com's methods"
	}
	return offerName(kex)
}

// sshdKexProof waits until sshd's log holds n public-key logins as root
// and n "kex: algorithm" lines, checks that every one of the latter names
// want and returns the first.
func sshdKexProof(t *testing.T, log string, n int, want string) string {
	t.Helper()
	const kexPrefix = "debug1: kex: algorithm: "
	count := func(prefix string) func(string) bool {
		return func(string) bool {
			b, _ := os.ReadFile(log)
			c := 0
			for _, l := range peertest.Lines(string(b)) {
				if strings.HasPrefix(l, prefix) {
					c++
				}
			}
			return c >= n
		}
	}
	if _, err := peertest.WaitLogLine(log, count("Accepted publickey for root from 127.0.0.1")); err != nil {
		t.Fatalf("fewer than %d logins: %v", n, err)
	}
	if _, err := peertest.WaitLogLine(log, count(kexPrefix)); err != nil {
		t.Fatalf("fewer than %d key exchanges: %v", n, err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, l := range peertest.Lines(string(b)) {
		if strings.HasPrefix(l, kexPrefix) {
			if l != kexPrefix+want+" [preauth]" {
				t.Errorf("sshd logged %q, want %s", l, want)
			}
			if first == "" {
				first = l
			}
		}
	}
	return first
}

// needGit returns the git binary, and checks that git-shell is there.
func needGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		peertest.Unavailable(t, "no git: %v (apt-get install git)", err)
	}
	if _, err := os.Stat(gitShell); err != nil {
		peertest.Unavailable(t, "no %s: %v (apt-get install git)", gitShell, err)
	}
	return p
}

// git runs the git CLI in dir (or the test's directory if "") with a
// fixed identity and no user or system configuration, and returns its
// trimmed output.
func git(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=seed", "GIT_AUTHOR_EMAIL=seed@example.com",
		"GIT_COMMITTER_NAME=seed", "GIT_COMMITTER_EMAIL=seed@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
