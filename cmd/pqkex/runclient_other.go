//go:build !unix

package main

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, the context's
// end kills cmd alone.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills cmd if it still runs.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
