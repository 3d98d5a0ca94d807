// Package peertest holds what the tests that run real SSH peers share:
// the interop tests and the examples module's. It requires an installed
// peer (scripts/install-peers.sh, located by scripts/peer-env.sh), builds
// the Go programs under test once, starts server peers through
// scripts/peer-server.sh, finds the TCP ports a process listens on,
// writes OpenSSH client arguments and reads the peers' output. It is test
// machinery: only tests import it.
package peertest

import (
	"fmt"
	"os"
	"testing"
)

// Unavailable skips the test, or fails it under CI=true, where every
// peer must be installed.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s", msg)
	}
	t.Skip(msg)
}

// NeedRoot skips the test (fails it under CI=true) unless it runs as
// root, which the peers need (chroots, mount namespaces, logging in as
// root).
func NeedRoot(t testing.TB) {
	t.Helper()
	if euid := os.Geteuid(); euid != 0 {
		Unavailable(t, "the peers need root, running as euid %d", euid)
	}
}

// Need returns the file named by the environment variable name, which
// scripts/peer-env.sh sets for an installed peer. It skips the test
// (fails it under CI=true) if the variable is empty or the file does not
// exist.
func Need(t testing.TB, name string) string {
	t.Helper()
	p := os.Getenv(name)
	if p == "" {
		Unavailable(t, "%s is not set (install the peers with scripts/install-peers.sh, then "+
			`eval "$(bash scripts/peer-env.sh --require --export)")`, name)
	}
	if _, err := os.Stat(p); err != nil {
		Unavailable(t, "%s=%s does not exist: %v", name, p, err)
	}
	return p
}
