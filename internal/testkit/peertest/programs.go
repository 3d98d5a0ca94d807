package peertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Programs are Go programs that a test package runs, built once, on first
// use, into a temporary directory that Main removes.
type Programs struct {
	// Packages are the packages to build, as go build takes them
	// (relative to the test's directory).
	Packages []string

	once sync.Once
	dir  string
	err  error
}

// Path returns the path of the program name (its package's last path
// element), building all of p.Packages on first use with the go command
// that runs the tests (GOTOOLCHAIN included).
func (p *Programs) Path(t testing.TB, name string) string {
	t.Helper()
	p.once.Do(func() {
		p.dir, p.err = os.MkdirTemp("", "pqkex-programs-")
		if p.err != nil {
			return
		}
		args := append([]string{"build", "-o", p.dir + string(filepath.Separator)}, p.Packages...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			p.err = fmt.Errorf("go build %v: %v\n%s", p.Packages, err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return filepath.Join(p.dir, name)
}

// Main is a TestMain for tests that run programs: it calls setup
// (exiting with status 1 if it fails), runs the tests, removes the
// programs built and exits with the tests' status.
func Main(m *testing.M, setup func() error, programs ...*Programs) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		os.Exit(1)
	}
	code := m.Run()
	for _, p := range programs {
		if p.dir != "" {
			os.RemoveAll(p.dir)
		}
	}
	os.Exit(code)
}
