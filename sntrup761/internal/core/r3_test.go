package core

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func TestR3Recip(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	inputs := [][P]int8{{}, {1}, {-1}}
	var xm1 [P]int8
	xm1[0], xm1[1] = -1, 1
	inputs = append(inputs, xm1)
	for i := range iterations(t, 40) {
		g := randSmall(rng)
		if i%4 == 3 { // a quarter not invertible: a multiple of a factor of x^p-x-1
			f := [][]int8{factor19, factor60, factor682}[i/4%3]
			s := make([]int8, P-len(f)+1)
			for j := range s {
				s[j] = int8(rng.IntN(3)) - 1
			}
			g = [P]int8{}
			copy(g[:], mul3poly(f, s))
		}
		inputs = append(inputs, g)
	}
	for k, a := range inputs {
		want, wok := ref.R3Recip((*[ref.P]int8)(&a))
		var got [P]int8
		ok := r3Recip(&got, &a)
		if ok != wok {
			t.Fatalf("input %d: ok = %d, reference %d", k, ok, wok)
		}
		if ok == 0 && got != [P]int8(want) {
			t.Fatalf("input %d: inverse differs from the reference", k)
		}
	}
}

func BenchmarkR3Recip(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 5))
	a := randSmall(rng)
	var out [P]int8
	for b.Loop() {
		r3Recip(&out, &a)
	}
}

func TestAdd3(t *testing.T) {
	enc := map[int]([2]uint64){0: {0, 0}, 1: {1, 0}, -1: {1, 1}}
	for a := -1; a <= 1; a++ {
		for b := -1; b <= 1; b++ {
			sum := ((a+b)%3 + 3) % 3
			if sum == 2 {
				sum = -1
			}
			nz, sg := add3(enc[a][0], enc[a][1], enc[b][0], enc[b][1])
			if [2]uint64{nz, sg} != enc[sum] {
				t.Errorf("%d + %d gave (%d,%d), want %v", a, b, nz, sg, enc[sum])
			}
		}
	}
}

// TestR3Elim checks the word operation of a divstep on every encoding of
// f and g (a zero with either sign bit), every c and both swap decisions:
// f' = (swap ? -c*g : f) and s = g + c*f as F_3 values.
func TestR3Elim(t *testing.T) {
	val := func(nz, sg uint64) int {
		if nz&1 == 0 {
			return 0
		}
		return 1 - 2*int(sg&1)
	}
	mod3 := func(x int) int { return ((x+1)%3+3)%3 - 1 }
	for e := range 16 {
		fn, fs, gn, gs := uint64(e&1), uint64(e>>1&1), uint64(e>>2&1), uint64(e>>3&1)
		f, g := val(fn, fs), val(gn, gs)
		for c := -1; c <= 1; c++ {
			for sw := range 2 {
				if sw == 1 && c == 0 {
					continue // a swap needs g0 != 0, so c != 0
				}
				ctl := r3Ctl{sw: -uint64(sw), cn: 0, ncs: ^uint64(0)}
				if c != 0 {
					ctl.cn = ^uint64(0)
				}
				if c == -1 {
					ctl.ncs = 0
				}
				fn2, fs2, sn, ss := r3Elim(fn, fs, gn, gs, &ctl)
				wantF := f
				if sw == 1 {
					wantF = mod3(-c * g)
				}
				if got, want := val(sn, ss), mod3(g+c*f); got != want {
					t.Errorf("f=%d g=%d (enc %d) c=%d: s = %d, want %d", f, g, e, c, got, want)
				}
				if got := val(fn2, fs2); got != wantF {
					t.Errorf("f=%d g=%d (enc %d) c=%d swap=%d: f' = %d, want %d", f, g, e, c, sw, got, wantF)
				}
			}
		}
	}
}
