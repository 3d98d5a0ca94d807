package mlkem768nistp256_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// The methods' shared suite and benchmarks (internal/hybridtest) on this one.
func TestMethod(t *testing.T)      { hybridtest.Test(t, mlkem768nistp256.Name) }
func BenchmarkMethod(b *testing.B) { hybridtest.Bench(b, mlkem768nistp256.Name) }
