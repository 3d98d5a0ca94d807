//go:build unix

package main

import "syscall"

// descriptorLimit returns the process's soft limit on open descriptors
// (RLIMIT_NOFILE), or 0 if unknown or unlimited for practical purposes.
func descriptorLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<20 {
		return 0
	}
	return int(rl.Cur)
}
