//go:build unix

package sshkex

import (
	"syscall"
	"testing"
)

// unmappedBytes returns a slice whose memory was unmapped: reading it
// faults at a non-nil address.
func unmappedBytes(t *testing.T) []byte {
	b, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Munmap(b); err != nil {
		t.Fatal(err)
	}
	return b
}
