package dudect

import (
	"fmt"
	"testing"
)

// The positive control: the check must flag a target that plainly leaks.
// It runs in the normal test suite (a fraction of a second each), beside a
// twin of the target that does not leak, and TestDudectControl (build tag
// dudect) repeats it beside its own negative control: a harness that flags
// nothing fails the first, one that flags everything the second.

var leakSink bool

// leakyEqual is the textbook timing leak: a comparison that returns at the
// first differing byte.
//
//go:noinline
func leakyEqual(a, b []byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// earlyExitTarget compares a secret 4 KiB buffer with a guess: class 0
// guesses it exactly (the loop runs to the end, a few µs), class 1, if
// leak is set, differs in the first byte (one iteration, a few ns). The
// two classes' times then differ about thirty times over, far above any
// noise a loaded machine adds. Without leak, class 1 guesses exactly too.
func earlyExitTarget(leak bool) Target {
	flip := byte(0)
	if leak {
		flip = 1
	}
	const size, slots = 4096, 1000
	rng := NewRNG()
	secret := make([]byte, size)
	Fill(rng, secret)
	guesses := make([][]byte, slots)
	for i := range guesses {
		guesses[i] = make([]byte, size)
	}
	return Target{
		Name:  fmt.Sprintf("control/early-exit comparison of 4 KiB, leak=%v", leak),
		Slots: slots,
		Prepare: func(i, class int) {
			copy(guesses[i], secret)
			guesses[i][0] ^= byte(class) * flip
		},
		Run: func(i int) { leakSink = leakyEqual(secret, guesses[i]) },
	}
}

// positiveMeasurements is fixed, not Measurements: the control runs in
// every go test and must take a bounded time. At 20 000 measurements the cropped tests give |t|
// in the hundreds on this target (see checkFlagsEarlyExit's log), so the
// 4.5 bar is missed only if the harness is broken.
const positiveMeasurements = 20000

// checkFlagsEarlyExit measures earlyExitTarget and fails t unless the
// check flags it at the bar the real targets are judged by, and finds
// class 0 (the full comparison) the slower one.
func checkFlagsEarlyExit(t *testing.T) Result {
	t.Helper()
	r := Measure(earlyExitTarget(true), Options{Measurements: positiveMeasurements})
	r.Judge(4.5)
	t.Logf("%v", r)
	if r.Passed {
		t.Errorf("positive control not flagged: max |t| = %.2f < %v (%s)", r.MaxT, r.Threshold, r.MaxTest)
	}
	if !(r.Mean[0] > r.Mean[1]) {
		t.Errorf("positive control: mean times %.0f / %.0f ns, want class 0 (full comparison) slower", r.Mean[0], r.Mean[1])
	}
	if r.Count[0] == 0 || r.Count[1] == 0 || r.Measurements != positiveMeasurements {
		t.Errorf("positive control: %s measurements, want %d in both classes", fmt.Sprint(r.Count), positiveMeasurements)
	}
	return r
}

// TestDudectFlagsEarlyExit is the positive control of the timing check,
// with the same target without the leak as a check that the harness does
// not flag everything. The negative's bar is 10, not 4.5: its max |t|
// over the ~100 correlated tests stays well below that (go test -count 40
// -run TestDudectFlagsEarlyExit -v ./internal/testkit/dudect logs it),
// but this test runs in every go test ./..., on loaded machines too, and
// the margin to the positive (hundreds) leaves room for it.
func TestDudectFlagsEarlyExit(t *testing.T) {
	checkFlagsEarlyExit(t)
	r := Measure(earlyExitTarget(false), Options{Measurements: positiveMeasurements})
	r.Judge(10)
	t.Logf("%v", r)
	if !r.Passed {
		t.Errorf("the target without the leak flagged: max |t| = %.2f >= %v (%s)", r.MaxT, r.Threshold, r.MaxTest)
	}
}
