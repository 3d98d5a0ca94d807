// Package dudect is a dudect-style timing-leakage check (Reparaz, Balasch
// and Verbauwhede, "Dude, is my code constant time?", DATE 2017), used by
// pqkex's constant-time evidence tests (long runs, PQKEX_LONG=1; see
// docs/constant-time.md).
//
// A Target is an operation on a secret input that comes in two classes,
// usually a fixed value (class 0) against fresh random values (class 1).
// Measure runs the operation on inputs whose class is drawn at random for
// every measurement, times each call with the monotonic clock, and
// compares the two timing distributions with Welch's t-test, as dudect
// does: on the raw timings, on the timings cropped at 100 upper
// percentiles (to discard the long tail of interrupts, preemption and
// cache-cold outliers), and as a second-order test on the squared
// deviations. The reported statistic is the largest |t| among those tests
// that have enough measurements; |t| > 4.5 is the usual sign of a leak.
//
// Noise that does not depend on the class (other processes, interrupts,
// frequency changes) adds variance to both classes alike: it does not
// create a difference, so it cannot by itself produce a large |t|, but it
// does hide small differences. A large |t| therefore means either a leak
// or an asymmetry in how the two classes are prepared, never "just noise";
// a small |t| is evidence only up to the resolution that the number of
// measurements and the noise level give. Result.Resolution states it for
// the raw test, whose outliers make it the least sensitive; the cropped
// tests detect a shift of the bulk of the distribution with far fewer
// measurements (TestDudectControl, a long run, shows how small a
// difference the whole check finds on the machine at hand).
package dudect

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NewRNG returns a fast generator seeded from crypto/rand, for drawing
// classes and test inputs (not for secrets that leave the test).
func NewRNG() *rand.Rand {
	var seed [32]byte
	crand.Read(seed[:])
	return rand.New(rand.NewChaCha8(seed))
}

// Fill sets b to random bytes from rng.
func Fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// Target is an operation whose running time is checked.
type Target struct {
	// Name identifies the target in reports.
	Name string
	// Slots is the number of inputs prepared before each batch of
	// measurements (default 1000).
	Slots int
	// Prepare stores an input of the given class (0 or 1) in slot i. It is
	// called for every slot of a batch, in order and with classes drawn at
	// random, before any of the batch is measured; it is not timed.
	Prepare func(i, class int)
	// Load, if not nil, is called right before slot i is measured and is
	// not timed. It must do the same work for both classes.
	Load func(i int)
	// Run performs the operation on the input in slot i; only Run is timed.
	Run func(i int)
}

// Options control a measurement.
type Options struct {
	// Measurements is the number of timed calls that enter the statistics.
	Measurements int
	// Warmup is the number of timed calls made first and discarded except
	// to fix the cropping thresholds (default: Measurements/50, clamped
	// to [1000, 10000]).
	Warmup int
	// Enough is the number of measurements each class needs in a test
	// for the test to count (default: Measurements/20 clamped to
	// [100, 10000]; dudect uses 10000).
	Enough int
	// Record, if not nil, receives every measurement that enters the
	// statistics (for offline analysis).
	Record func(class int, ns int64)
	// Progress, if not nil, is called about every ProgressEvery with the
	// statistics so far.
	Progress      func(Result)
	ProgressEvery time.Duration
}

// Result summarises a measurement.
type Result struct {
	Name         string
	Measurements int           // measurements in the statistics (warm-up excluded)
	Count        [2]int        // measurements per class
	MaxT         float64       // largest |t| over the tests with enough data
	MaxTest      string        // which test gave MaxT
	MaxTestN     int           // measurements in that test
	RawT         float64       // t of the uncropped first-order test
	Mean         [2]float64    // mean time per class in ns (uncropped)
	Median       float64       // median time of the warm-up in ns
	Resolution   float64       // difference of mean times in ns that the raw test alone would flag (4.5 standard errors)
	Elapsed      time.Duration // wall time including preparation
	Threshold    float64       // the bar MaxT is compared with
	Passed       bool          // MaxT < Threshold
}

// ttest is Welch's t-test with Welford's online mean and variance.
type ttest struct {
	n, mean, m2 [2]float64
}

func (t *ttest) push(x float64, class int) {
	t.n[class]++
	d := x - t.mean[class]
	t.mean[class] += d / t.n[class]
	t.m2[class] += d * (x - t.mean[class])
}

func (t *ttest) variance(class int) float64 {
	if t.n[class] < 2 {
		return 0
	}
	return t.m2[class] / (t.n[class] - 1)
}

// t returns Welch's statistic (mean0 - mean1) / sqrt(var0/n0 + var1/n1).
func (t *ttest) t() float64 {
	if t.n[0] < 2 || t.n[1] < 2 {
		return 0
	}
	se := math.Sqrt(t.variance(0)/t.n[0] + t.variance(1)/t.n[1])
	if se == 0 {
		if t.mean[0] == t.mean[1] {
			return 0
		}
		return math.Inf(1)
	}
	return (t.mean[0] - t.mean[1]) / se
}

// The dudect test set: index 0 is the raw first-order test, 1..numCrops
// the cropped ones, and numCrops+1 the second-order test.
const numCrops = 100

// cropFraction is dudect's percentile for crop i: 1 - 0.5^(10(i+1)/100),
// from 6.7% up to 99.9%, denser towards the top.
func cropFraction(i int) float64 {
	return 1 - math.Pow(0.5, 10*float64(i+1)/numCrops)
}

type stats struct {
	tests      [numCrops + 2]ttest
	thresholds [numCrops]float64
	enough     float64
}

func (s *stats) push(x float64, class int) {
	s.tests[0].push(x, class)
	for i, th := range s.thresholds {
		if x < th {
			s.tests[i+1].push(x, class)
		}
	}
	raw := &s.tests[0]
	if raw.n[0] >= s.enough && raw.n[1] >= s.enough {
		d := x - raw.mean[class]
		s.tests[numCrops+1].push(d*d, class)
	}
}

func testName(i int) string {
	switch {
	case i == 0:
		return "raw"
	case i <= numCrops:
		return fmt.Sprintf("crop %.1f%%", 100*cropFraction(i-1))
	default:
		return "2nd order"
	}
}

func (s *stats) result(name string) Result {
	r := Result{Name: name, MaxTest: "-"}
	raw := &s.tests[0]
	r.Count = [2]int{int(raw.n[0]), int(raw.n[1])}
	r.Measurements = r.Count[0] + r.Count[1]
	r.Mean = raw.mean
	r.RawT = raw.t()
	if raw.n[0] >= 2 && raw.n[1] >= 2 {
		r.Resolution = 4.5 * math.Sqrt(raw.variance(0)/raw.n[0]+raw.variance(1)/raw.n[1])
	}
	for i := range s.tests {
		t := &s.tests[i]
		if t.n[0] < s.enough || t.n[1] < s.enough {
			continue
		}
		if v := math.Abs(t.t()); v > r.MaxT || r.MaxTest == "-" {
			r.MaxT, r.MaxTest, r.MaxTestN = v, testName(i), int(t.n[0]+t.n[1])
		}
	}
	return r
}

// Measure runs the check on tg. It locks the goroutine to its thread and
// switches the garbage collector off during each batch (collecting between
// batches, untimed), so that neither migrations nor collections fall
// inside a measurement more often than chance.
func Measure(tg Target, o Options) Result {
	start := time.Now()
	if o.Measurements <= 0 {
		panic("dudect: Measurements must be positive")
	}
	if o.Warmup <= 0 {
		o.Warmup = min(max(o.Measurements/50, 1000), 10000)
	}
	if o.Enough <= 0 {
		o.Enough = min(max(o.Measurements/20, 100), 10000)
	}
	slots := tg.Slots
	if slots <= 0 {
		slots = 1000
	}
	rng := NewRNG()

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	classes := make([]int, slots)
	times := make([]int64, slots)
	// batch prepares and measures n <= slots inputs.
	batch := func(n int) {
		for i := range n {
			classes[i] = int(rng.Uint64() & 1)
			tg.Prepare(i, classes[i])
		}
		runtime.GC()
		for i := range n {
			if tg.Load != nil {
				tg.Load(i)
			}
			t0 := time.Now()
			tg.Run(i)
			times[i] = int64(time.Since(t0))
		}
	}

	s := &stats{enough: float64(o.Enough)}
	var warm []float64
	for len(warm) < o.Warmup {
		n := min(slots, o.Warmup-len(warm))
		batch(n)
		for i := range n {
			warm = append(warm, float64(times[i]))
		}
	}
	slices.Sort(warm)
	for i := range s.thresholds {
		s.thresholds[i] = warm[int(cropFraction(i)*float64(len(warm)))]
	}
	median := warm[len(warm)/2]

	lastProgress := time.Now()
	done := 0
	for done < o.Measurements {
		n := min(slots, o.Measurements-done)
		batch(n)
		for i := range n {
			s.push(float64(times[i]), classes[i])
			if o.Record != nil {
				o.Record(classes[i], times[i])
			}
		}
		done += n
		if o.Progress != nil && o.ProgressEvery > 0 && time.Since(lastProgress) >= o.ProgressEvery && done < o.Measurements {
			lastProgress = time.Now()
			r := s.result(tg.Name)
			r.Median = median
			r.Elapsed = time.Since(start)
			o.Progress(r)
		}
	}
	r := s.result(tg.Name)
	r.Median = median
	r.Elapsed = time.Since(start)
	return r
}

// Judge sets r.Threshold and r.Passed.
func (r *Result) Judge(threshold float64) {
	r.Threshold = threshold
	r.Passed = r.MaxT < threshold
}

func (r Result) String() string {
	return fmt.Sprintf("%s: n=%d (%d/%d) max|t|=%.2f (%s, n=%d) raw t=%.2f mean %.0f/%.0f ns median %.0f ns resolution %.1f ns in %v",
		r.Name, r.Measurements, r.Count[0], r.Count[1], r.MaxT, r.MaxTest, r.MaxTestN, r.RawT,
		r.Mean[0], r.Mean[1], r.Median, r.Resolution, r.Elapsed.Round(time.Second))
}

// Table formats results as a Markdown table.
func Table(rs []Result) string {
	var b strings.Builder
	b.WriteString("| test | measurements | max \\|t\\| (test) | raw t | median | resolution | time |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %s | %.2f (%s) | %.2f | %s | %s | %v |\n",
			r.Name, countString(r.Measurements), r.MaxT, r.MaxTest, r.RawT,
			nsString(r.Median), nsString(r.Resolution), r.Elapsed.Round(time.Second))
	}
	return b.String()
}

func countString(n int) string {
	if n >= 1000000 && n%100000 == 0 {
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	}
	return strconv.Itoa(n)
}

func nsString(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.1f ns", ns)
	}
}
