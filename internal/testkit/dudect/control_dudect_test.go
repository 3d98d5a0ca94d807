package dudect

import (
	"fmt"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/tier"
)

var controlSink uint64

// controlWork is a chain of dependent multiply-xor steps over buf[:n],
// about a nanosecond or two each.
//
//go:noinline
func controlWork(buf []uint64, n int) uint64 {
	s := uint64(1)
	for _, x := range buf[:n] {
		s = (s ^ x) * 0x9e3779b97f4a7c15
		s ^= s >> 29
	}
	return s
}

// TestDudectControl checks the check. Positive control: an early-exit
// comparison (checkFlagsEarlyExit, 20 000 measurements) must be flagged.
// Then a target of about 10 000 dependent steps whose class 1 does
// `extra` more steps than class 0: with extra = 0 (negative control) the
// classes differ in data only and must pass; the leaking variants are
// not judged, they show how small a difference the check finds with
// Measurements measurements on the machine at hand. A long run:
//
//	PQKEX_LONG=1 go test -run TestDudectControl -timeout 0 -v ./internal/testkit/dudect
func TestDudectControl(t *testing.T) {
	tier.SkipUnlessLong(t, "seven timed controls, 10^6 measurements each but the first")
	n := Measurements
	results := []Result{checkFlagsEarlyExit(t)}
	const base = 10000
	buf := make([]uint64, base+1000)
	for _, extra := range []int{0, 1, 4, 16, 64, 256} {
		inputs := make([][]uint64, 1000)
		lens := make([]int, len(inputs))
		for i := range inputs {
			inputs[i] = make([]uint64, len(buf))
		}
		var seed uint64 = 1
		tg := Target{
			Name:  fmt.Sprintf("control/extra=%d steps", extra),
			Slots: len(inputs),
			Prepare: func(i, class int) {
				for j := range inputs[i] {
					seed = seed*6364136223846793005 + 1442695040888963407
					inputs[i][j] = seed
				}
				lens[i] = base + class*extra
			},
			Run: func(i int) { controlSink += controlWork(inputs[i], lens[i]) },
		}
		r := Measure(tg, Options{Measurements: n})
		r.Judge(4.5)
		results = append(results, r)
		t.Logf("%v", r)
		if extra == 0 && !r.Passed {
			t.Errorf("negative control flagged: max |t| = %.2f", r.MaxT)
		}
	}
	// The step cost, for reading the table: time a long run.
	t0 := time.Now()
	for range 100 {
		controlSink += controlWork(buf, base)
	}
	t.Logf("one step costs about %.2f ns", float64(time.Since(t0))/(100*base))
	t.Logf("results:\n%s", Table(results))
}
