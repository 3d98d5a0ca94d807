//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// checkKeyFile refuses a private key file (what: "host key",
// "identity"), fi being its status, that others could read or replace:
// one that the group or others may access, as sshd refuses its host keys
// and ssh an identity, or that another user owns (stricter than
// OpenSSH, which checks the mode only of a file the caller owns). The
// errors say how to fix it.
func checkKeyFile(what, path string, fi os.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s is accessible by others (mode %04o), and a private key must not be: run chmod 600 %s",
			what, path, perm, shellQuote(path))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s %s is owned by another user (uid %d; this process runs as uid %d), who could replace it: "+
			"use a copy of your own (install -m 600 %s NEWFILE) or run as its owner", what, path, st.Uid, os.Geteuid(), shellQuote(path))
	}
	return nil
}
