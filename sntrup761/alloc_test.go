//go:build !race

package sntrup761_test

import (
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
)

// TestAllocations checks that Encapsulate and Decapsulate allocate only
// their results (the ciphertext and the shared key) and, where
// Encapsulate expands its randomness with AES-256-CTR (on a CPU with AES
// instructions outside FIPS 140-3 mode; internal/core/random.go), the
// cipher and its CTR stream.
func TestAllocations(t *testing.T) {
	dk, _ := sntrup761.GenerateKey()
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	want := 2.0
	if sntrup761.KeystreamLists() {
		want += 2
	}
	if n := testing.AllocsPerRun(20, func() { ek.Encapsulate() }); n > want {
		t.Errorf("Encapsulate allocates %v times, want at most %v", n, want)
	}
	if n := testing.AllocsPerRun(20, func() { dk.Decapsulate(ct) }); n > 1 {
		t.Errorf("Decapsulate allocates %v times, want at most 1", n)
	}
}
