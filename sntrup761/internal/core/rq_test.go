package core

import (
	"math/rand/v2"
	"testing"
)

func centered(x, m int64) int64 {
	r := ((x % m) + m) % m
	if r > m/2 {
		r -= m
	}
	return r
}

func TestFreeze(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	edges := []int64{0, 1, -1, Q, -Q, Q12, -Q12 - 1, 1<<34 - 1, -(1<<34 - 1), 1<<24 - 1, -(1<<24 - 1), 1<<26 - 1, -(1<<26 - 1)}
	for i := range 200000 {
		var x int64
		if i < len(edges) {
			x = edges[i]
		} else {
			x = rng.Int64N(1<<35) - 1<<34 + 1
		}
		if got := freezeQ(x); int64(got) != centered(x, Q) {
			t.Fatalf("freezeQ(%d) = %d", x, got)
		}
		if x > -(1<<26) && x < 1<<26 {
			if got := freezeQ26(int32(x)); int64(got) != centered(x, Q) {
				t.Fatalf("freezeQ26(%d) = %d", x, got)
			}
		}
		if x > -(1<<24) && x < 1<<24 {
			if got := freeze3(x); int64(got) != centered(x, 3) {
				t.Fatalf("freeze3(%d) = %d", x, got)
			}
		}
	}
	for x := int64(-1 << 26); x < 1<<26; x += 1 + rng.Int64N(40) {
		if got := freezeQ26(int32(x)); int64(got) != centered(x, Q) {
			t.Fatalf("freezeQ26(%d) = %d", x, got)
		}
	}
	for x := int64(-1 << 24); x < 1<<24; x += 1 + rng.Int64N(5) {
		if got := freeze3(x); int64(got) != centered(x, 3) {
			t.Fatalf("freeze3(%d) = %d", x, got)
		}
	}
}
