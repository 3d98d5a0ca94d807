package core

import (
	"fmt"
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
			f := [][]int8{factor19, factor60, r3Tables().factor682}[i/4%3]
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
		checkR3Recip(t, fmt.Sprintf("input %d", k), a)
	}
}

// checkR3Recip compares r3Recip on a with the reference: the same return
// value, and the same inverse when there is one.
func checkR3Recip(t *testing.T, name string, a [P]int8) (refOK int32) {
	t.Helper()
	want, wok := ref.R3Recip((*[ref.P]int8)(&a))
	var got [P]int8
	ok := r3Recip(&got, &a)
	if ok != wok {
		t.Fatalf("%s: ok = %d, reference %d", name, ok, wok)
	}
	if ok == 0 && got != [P]int8(want) {
		t.Fatalf("%s: inverse differs from the reference", name)
	}
	return wok
}

// TestR3RecipNotInvertible checks the -1 result (GenerateKey retries on
// it) on multiples of each irreducible factor of x^p - x - 1: the factor
// itself shifted to every position that fits and times random
// polynomials. A multiple plus 1 or x^(p-1) (typically invertible) is
// compared with the reference.
func TestR3RecipNotInvertible(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	n := min(iterations(t, 12), 300) // random multiples per factor
	step := 10                       // between the shifts of a factor
	if testing.Short() {
		step = 50
	} else if n > 12 {
		step = 1
	}
	for fi, f := range [][]int8{factor19, factor60, r3Tables().factor682} {
		var multiples [][P]int8
		for k := 0; k+len(f) <= P; k += step { // f * x^k
			var a [P]int8
			copy(a[k:], f)
			multiples = append(multiples, a)
		}
		for range n { // f * s, s random of degree p-1-deg f
			s := make([]int8, P-len(f)+1)
			for j := range s {
				s[j] = int8(rng.IntN(3)) - 1
			}
			var a [P]int8
			copy(a[:], mul3poly(f, s))
			multiples = append(multiples, a)
		}
		for i, a := range multiples {
			name := fmt.Sprintf("factor %d, multiple %d", fi, i)
			// Not invertible, as the reference would find at the cost of
			// its slow inversion: TestModulusFactors shows that f divides
			// x^p - x - 1 (TestR3Recip runs the reference on such
			// multiples too).
			var out [P]int8
			if ok := r3Recip(&out, &a); ok != -1 {
				t.Fatalf("%s: r3Recip returns %d, want -1 (not invertible)", name, ok)
			}
			if i%4 == 0 {
				b := a
				b[0] = (b[0]+2)%3 - 1 // + 1
				checkR3Recip(t, name+" + 1", b)
				b = a
				b[P-1] = (b[P-1]+2)%3 - 1 // + x^(p-1)
				checkR3Recip(t, name+" + x^(p-1)", b)
			}
		}
	}
}

// TestR3RecipEdges compares r3Recip with the reference on structured
// inputs: single terms at and around the word boundaries of the layout
// (every 56 coefficients, and the 64 of the input words), constant and
// alternating polynomials, and random ones that are zero in their low or
// high part.
func TestR3RecipEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var inputs [][P]int8
	for _, i := range []int{0, 1, 2, 7, 8, 9, 55, 56, 57, 63, 64, 65, 111, 112, 113, 127, 128,
		167, 168, 380, 381, 447, 448, 503, 504, 700, 703, 704, 705, 727, 728, 729, P - 2, P - 1} {
		for _, c := range []int8{1, -1} {
			var a [P]int8
			a[i] = c
			inputs = append(inputs, a)
			a[0] = 1 // 1 + c*x^i
			inputs = append(inputs, a)
		}
	}
	var ones, minus, alt [P]int8
	for i := range P {
		ones[i], minus[i], alt[i] = 1, -1, int8(1-2*(i%2))
	}
	inputs = append(inputs, ones, minus, alt)
	for range iterations(t, 8) {
		cut := rng.IntN(P)
		lo, hi := randSmall(rng), randSmall(rng)
		clear(lo[cut:])
		clear(hi[:cut])
		inputs = append(inputs, lo, hi)
	}
	for k, a := range inputs {
		checkR3Recip(t, fmt.Sprintf("input %d", k), a)
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
