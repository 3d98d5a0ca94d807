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
// After cmd is reaped its group id names that group while a member
// remains (the kernel allocates no process id in use as a group id);
// once the group is empty, the kill finds none (ESRCH), unless a new
// process has since taken that id and made a group of it, which the
// kernel's cycling through process ids makes a remote case.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
