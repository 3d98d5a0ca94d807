package kat

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails a FIPS 140-3 rerun that is not in its mode
// (RequireFIPSMode). Under fips140=only the tests whose oracle is
// crypto/ecdh's X25519, which that mode refuses, skip themselves
// (needX25519Oracle); every other test applies in every mode.
func TestMain(m *testing.M) {
	if err := RequireFIPSMode(); err != nil {
		fmt.Fprintln(os.Stderr, "internal/kat:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
