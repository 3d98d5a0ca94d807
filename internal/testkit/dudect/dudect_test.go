package dudect

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWelch compares the online t statistic with a two-pass computation.
func TestWelch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var xs [2][]float64
	var tt ttest
	for range 5000 {
		c := rng.IntN(2)
		x := rng.NormFloat64()*3 + 100 + 0.2*float64(c)
		xs[c] = append(xs[c], x)
		tt.push(x, c)
	}
	var mean, vr [2]float64
	for c := range 2 {
		for _, x := range xs[c] {
			mean[c] += x
		}
		mean[c] /= float64(len(xs[c]))
		for _, x := range xs[c] {
			vr[c] += (x - mean[c]) * (x - mean[c])
		}
		vr[c] /= float64(len(xs[c]) - 1)
	}
	want := (mean[0] - mean[1]) / math.Sqrt(vr[0]/float64(len(xs[0]))+vr[1]/float64(len(xs[1])))
	if got := tt.t(); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("t = %v, want %v", got, want)
	}
}

func TestCropFractions(t *testing.T) {
	prev := 0.0
	for i := range numCrops {
		f := cropFraction(i)
		if f <= prev || f >= 1 {
			t.Fatalf("crop %d: fraction %v not increasing in (0, 1)", i, f)
		}
		prev = f
	}
	if f := cropFraction(numCrops - 1); math.Abs(f-(1-1.0/1024)) > 1e-12 {
		t.Fatalf("last crop %v, want 1-2^-10", f)
	}
}

// TestStatsFlagsShift checks that a constant shift of one class is found
// and that identical distributions are not flagged.
func TestStatsFlagsShift(t *testing.T) {
	for _, shift := range []float64{0, 5} {
		rng := rand.New(rand.NewPCG(3, 4))
		s := &stats{enough: 100}
		for i := range s.thresholds {
			s.thresholds[i] = 1000 + 100*cropFraction(i)
		}
		for range 20000 {
			c := rng.IntN(2)
			s.push(1000+50*rng.Float64()+shift*float64(c), c)
		}
		r := s.result("x")
		if shift == 0 && r.MaxT > 4.5 || shift != 0 && r.MaxT < 10 {
			t.Errorf("shift %v: max |t| = %.2f (%s)", shift, r.MaxT, r.MaxTest)
		}
	}
}
