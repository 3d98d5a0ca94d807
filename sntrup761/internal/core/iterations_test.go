package core

import (
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// iterations returns how many random inputs a fast-vs-reference property
// test runs: n, a tenth of it under -short, and 10 000 in the long run
// (tier.Long; .ci/run runs that, in parallel: the reference's inversions
// and key generation take milliseconds each).
func iterations(t *testing.T, n int) int {
	if tier.Long(t) {
		t.Parallel()
	}
	return tier.Size(t, max(1, n/10), n, 10000)
}
