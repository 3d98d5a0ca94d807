package core

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func randRq(rng *rand.Rand) (f [P]int16) {
	for i := range f {
		f[i] = int16(rng.IntN(Q)) - Q12
	}
	return f
}

func randSmall(rng *rand.Rand) (f [P]int8) {
	for i := range f {
		f[i] = int8(rng.IntN(3)) - 1
	}
	return f
}

func TestRecipRq(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for k := range iterations(t, 30) {
		a := randRq(rng)
		if k%3 == 1 { // small inputs, as in key generation
			s := randSmall(rng)
			for i := range a {
				a[i] = int16(s[i])
			}
		}
		want, wok := ref.RqRecip((*[ref.P]int16)(&a))
		var got [P]int16
		ok := recipRq(&got, &a, 1)
		if ok != wok || got != [P]int16(want) {
			t.Fatalf("input %d: recipRq differs from the reference (ok %d vs %d)", k, ok, wok)
		}
	}
	var zero [P]int16
	var out [P]int16
	if recipRq(&out, &zero, 1) != -1 {
		t.Fatal("0 reported invertible")
	}
}

func BenchmarkRecipRq(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	a := randRq(rng)
	var out [P]int16
	for b.Loop() {
		recipRq(&out, &a, 1)
	}
}

func TestReduceLanes(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over 2^26 values")
	}
	for y := uint64(0); y < 1<<26; y++ {
		x := y | (y^0x2aaaaaa)&(1<<26-1)<<32
		got := reduceLanes(x)
		if lo, hi := got&0xffffffff, got>>32; lo != y%Q || hi != ((y^0x2aaaaaa)&(1<<26-1))%Q {
			t.Fatalf("reduceLanes(%#x) = %#x", x, got)
		}
	}
}
