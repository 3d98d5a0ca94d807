package core

import (
	"os"
	"testing"
)

// iterations returns how many random inputs a fast-vs-reference property
// test runs: n normally, and 10 000 when PQKEX_LONG=1 (CI runs that; the
// reference's inversions and key generation take milliseconds each).
func iterations(t *testing.T, n int) int {
	if os.Getenv("PQKEX_LONG") == "1" {
		t.Parallel()
		return 10000
	}
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}
