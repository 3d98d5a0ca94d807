package mlkem1024nistp384_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
)

// The methods' shared suite and benchmarks (internal/hybridtest) on this one.
func TestMethod(t *testing.T)      { hybridtest.Test(t, mlkem1024nistp384.Name) }
func BenchmarkMethod(b *testing.B) { hybridtest.Bench(b, mlkem1024nistp384.Name) }
