package mlkem768nistp256_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// baseline does what a straightforward Go implementation would
// (crypto/mlkem + crypto/ecdh + crypto/sha*, hybridtest.Baseline).
func baseline() hybridtest.Exchange {
	return hybridtest.Baseline(mlkem768nistp256.Name)
}

// TestBaseline keeps the benchmark baseline honest: it must interoperate
// with this package in both directions.
func TestBaseline(t *testing.T) {
	hybridtest.CheckInterop(t, public(), baseline())
}

// BenchmarkMethod compares this package (impl=public, with its chosen
// ML-KEM backend), the engine on each backend (impl=circl,
// impl=std, crypto/mlkem) and the baseline:
//
//	go test ./mlkem768nistp256 -run '^$' -bench Method -count 6 > bench.txt
//	benchstat -col /impl bench.txt
func BenchmarkMethod(b *testing.B) {
	hybridtest.Bench(b, append(exchanges(), baseline())...)
}
