//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own, which
// its context's end kills whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { killGroup(cmd); return nil }
}

// killGroup kills cmd's process group (cmd, once started, leads it; the
// group lives on after cmd has exited while anything it started runs).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
