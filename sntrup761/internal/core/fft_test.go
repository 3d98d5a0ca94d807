package core

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

func schoolbook(a, b []int32) []int64 {
	c := make([]int64, len(a)+len(b)-1)
	for i := range a {
		for j := range b {
			c[i+j] += int64(a[i]) * int64(b[j])
		}
	}
	return c
}

// negacyclic reduces a linear product modulo x^n + 1.
func negacyclic(c []int64, n int) []int64 {
	out := make([]int64, n)
	for i, v := range c {
		if (i/n)%2 == 0 {
			out[i%n] += v
		} else {
			out[i%n] -= v
		}
	}
	return out
}

func fftProduct(pl *fftPlan, a, b []int32) []int64 {
	x := make([]complex128, pl.m)
	y := make([]complex128, pl.m)
	forwardInt(pl, x, a)
	forwardInt(pl, y, b)
	mul(x, x, y)
	c := make([]int64, 2*pl.m)
	pl.inverse(c, x)
	return c
}

func TestFFTProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []int{3, 6, 12, 24, 48, 96, 192, 384, 768} {
		pl := newFFTPlan(m)
		for range 20 {
			// full-length inputs: checks the product mod x^(2m)+1
			a := make([]int32, 2*m)
			b := make([]int32, 2*m)
			for i := range a {
				a[i] = int32(rng.IntN(Q)) - Q12
				b[i] = int32(rng.IntN(Q)) - Q12
			}
			want := negacyclic(schoolbook(a, b), 2*m)
			got := fftProduct(pl, a, b)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("m=%d: coefficient %d = %d, want %d", m, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkFFT768(b *testing.B) {
	pl := newFFTPlan(768)
	x := make([]complex128, 768)
	a := make([]int32, P)
	for i := range a {
		a[i] = int32(i%Q) - Q12
	}
	c := make([]int64, 1536)
	for b.Loop() {
		forwardInt(pl, x, a)
		pl.inverse(c, x)
	}
}

// generic16 is a plan of length 16 made of the two generic radix-4 stages
// (spans 16 and 4) that dif16 and dit16 replace.
func generic16() *fftPlan {
	pl := &fftPlan{m: 16}
	for _, span := range []int{16, 4} {
		st := fftStage{radix: 4, span: span}
		for t := 1; t < 4; t++ {
			w := make([]complex128, span/4)
			for j := range w {
				w[j] = expi(-2 * math.Pi * float64(j*t) / float64(span))
			}
			st.tw = append(st.tw, w)
		}
		pl.stages = append(pl.stages, st)
	}
	return pl
}

// TestFFT16 checks dif16 and dit16 against the generic stages they
// replace, on random blocks (equal up to rounding).
func TestFFT16(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	pl := generic16()
	for range 200 {
		x := make([]complex128, 32)
		for i := range x {
			x[i] = complex(rng.NormFloat64()*1e6, rng.NormFloat64()*1e6)
		}
		for _, dir := range []string{"dif", "dit"} {
			want := append([]complex128(nil), x...)
			got := append([]complex128(nil), x...)
			if dir == "dif" {
				pl.dif(want)
				dif16(got)
			} else {
				pl.dit(want)
				dit16(got)
			}
			for i := range want {
				if d := cmplx.Abs(got[i] - want[i]); d > 1e-9*cmplx.Abs(want[i])+1e-6 {
					t.Fatalf("%s16: element %d = %v, want %v", dir, i, got[i], want[i])
				}
			}
		}
	}
}
