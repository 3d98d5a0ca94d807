//go:build !race

package sntrup761_test

import (
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
)

// TestAllocations checks that Encapsulate and Decapsulate allocate only
// their results (the ciphertext and the shared key): the buffer the list
// is read into comes from a pool (internal/core/random.go).
func TestAllocations(t *testing.T) {
	dk, _ := sntrup761.GenerateKey()
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	if n := testing.AllocsPerRun(20, func() { ek.Encapsulate() }); n > 2 {
		t.Errorf("Encapsulate allocates %v times, want at most 2", n)
	}
	if n := testing.AllocsPerRun(20, func() { dk.Decapsulate(ct) }); n > 1 {
		t.Errorf("Decapsulate allocates %v times, want at most 1", n)
	}
}
