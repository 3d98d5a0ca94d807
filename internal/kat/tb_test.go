package kat

import "testing"

// recordFirst is Record, but the run ends at its first failed vector:
// the Result then counts the vectors up to it, and its one failure.
func recordFirst(run func(t TB)) Result { return record(run, true) }

// TestRecordFirst: Record runs every vector and counts each; recordFirst
// ends the run at the first failed vector, a Fatalf in a vector included.
func TestRecordFirst(t *testing.T) {
	runner := func(fail func(TB, int)) func(TB) {
		return func(tb TB) {
			for i := range 4 {
				each(tb, func() {
					if i == 1 || i == 3 {
						fail(tb, i)
					}
				})
			}
		}
	}
	errorf := func(tb TB, i int) { tb.Errorf("vector %d", i) }
	fatalf := func(tb TB, i int) { tb.Fatalf("vector %d", i) }
	for _, tc := range []struct {
		name           string
		record         func(func(TB)) Result
		fail           func(TB, int)
		passed, failed int
	}{
		{"Record, Errorf", Record, errorf, 2, 2},
		{"Record, Fatalf", Record, fatalf, 2, 2},
		{"recordFirst, Errorf", recordFirst, errorf, 1, 1},
		{"recordFirst, Fatalf", recordFirst, fatalf, 1, 1},
	} {
		r := tc.record(runner(tc.fail))
		if r.Err != nil || r.Passed != tc.passed || r.Failed != tc.failed {
			t.Errorf("%s: %d passed, %d failed, %v; want %d and %d", tc.name, r.Passed, r.Failed, r.Err, tc.passed, tc.failed)
		}
	}
}
