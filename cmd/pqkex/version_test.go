package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	const rev = "b0701ce3f1ab0123456789abcdef0123456789ab"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install module@version", "v1.2.3", nil, "pqkex v1.2.3"},
		{"checkout at a tag", "v1.2.3", vcs("false"), "pqkex v1.2.3"},
		{"checkout at a tag, changed", "v1.2.3+dirty", vcs("true"), "pqkex devel b0701ce3f1ab+dirty"},
		{"untagged checkout", "v0.0.0-20261205161200-b0701ce3f1ab", vcs("false"), "pqkex devel b0701ce3f1ab"},
		{"untagged checkout, changed", "v0.0.0-20261205161200-b0701ce3f1ab+dirty", vcs("true"), "pqkex devel b0701ce3f1ab+dirty"},
		{"after a tag", "v1.2.4-0.20261205161200-b0701ce3f1ab", vcs("false"), "pqkex devel b0701ce3f1ab"},
		{"go install module@commit", "v0.0.0-20261205161200-b0701ce3f1ab", nil, "pqkex v0.0.0-20261205161200-b0701ce3f1ab"},
		{"-buildvcs=false", "(devel)", nil, "pqkex devel"},
		{"go test", "", nil, "pqkex devel"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/pqkex/pqkex", Version: c.version}, Settings: c.settings}
		if got := versionFrom(bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestVersionCommand builds pqkex from this checkout with VCS stamping
// and runs "pqkex version": it must name the checkout's revision (and
// +dirty exactly when git reports changes), the Go version and x/crypto.
func TestVersionCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	var out, errOut bytes.Buffer
	if code := runVersion([]string{"-h"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "usage: pqkex version") {
		t.Fatalf("version -h: exit %d, %q %q", code, out.String(), errOut.String())
	}
	if code := runVersion([]string{"extra"}, &out, &errOut); code != 2 {
		t.Fatalf("version extra: exit %d", code)
	}

	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("this test runs in a git checkout: %v", err)
	}
	dirty := func() bool {
		status, err := exec.Command("git", "status", "--porcelain").Output()
		if err != nil {
			t.Fatal(err)
		}
		return len(bytes.TrimSpace(status)) > 0
	}
	// The command is built once for every test that runs it
	// (builtCommand), with git status taken just before that build.
	// Files other tests write while this one runs may change the answer
	// between the build and the git status below: both answers are then
	// right.
	bin := builtCommand(t)
	if built.statusErr != nil {
		t.Fatal(built.statusErr)
	}
	dirtyBefore := len(bytes.TrimSpace(built.dirtyBefore)) > 0
	// The go command stamps VCS information only when the repository
	// root holds a .git directory (cmd/go/internal/vcs), not in a linked
	// worktree, whose .git is a file: there the build has none.
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	stamped := true
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		stamped = false
	}
	got, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	var wants []string
	for _, d := range []bool{dirtyBefore, dirty()} {
		w := "pqkex devel " + string(rev[:12])
		if d {
			w += "+dirty"
		}
		if !stamped {
			w = "pqkex devel"
		}
		wants = append(wants, w)
	}
	v, rest, _ := strings.Cut(string(got), " (go1.")
	if (v != wants[0] && v != wants[1]) || !strings.Contains(rest, "golang.org/x/crypto v") {
		t.Errorf("pqkex version: %q, want %q (goX, golang.org/x/crypto vY)", got, wants)
	}
}

// builtDir, set by TestMain where there is one (unix), holds the test
// binary's scratch files and is removed at its end.
var builtDir string

// built is this command built once per test binary, for the tests that
// run it as a process of its own (TestServeSignals, TestVersionCommand):
// one go build and link instead of one per test.
var built struct {
	once sync.Once
	path string
	// dirtyBefore is what "git status --porcelain" said just before the
	// build (nil if git could not say; statusErr then says why).
	dirtyBefore []byte
	statusErr   error
	err         error
	out         []byte
}

// builtCommand returns the path of this command built with
// -buildvcs=true (stamped as a user's build in the checkout would be).
func builtCommand(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dirtyBefore, built.statusErr = exec.Command("git", "status", "--porcelain").Output()
		dir := builtDir
		if dir == "" {
			dir = t.TempDir() // no TestMain: only TestVersionCommand builds
		}
		// Not dir/pqkex: that is "pqkex serve"'s configuration
		// directory when dir is XDG_CONFIG_HOME.
		built.path = filepath.Join(dir, "pqkex-command")
		built.out, built.err = exec.Command("go", "build", "-buildvcs=true", "-o", built.path, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}
