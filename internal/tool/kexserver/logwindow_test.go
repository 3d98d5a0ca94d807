package kexserver

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// TestLogSlidingWindow: the log bound holds over any interval-long
// window, not only per interval. One line starts an interval; near its
// end 40 sources flood every kind, so the interval's full lines and its
// summaries come just before its end and the next interval's full lines
// just after: a window across that end must still hold at most
// LogLinesPerInterval lines (with per-interval counting alone it held 90).
func TestLogSlidingWindow(t *testing.T) {
	const interval = 400 * time.Millisecond
	var mu sync.Mutex
	var at []time.Time
	s := &Server{}
	s.logs.init(s)
	t.Cleanup(s.logs.flush)
	s.logs.interval = interval
	s.Log = func(string) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, time.Now())
	}
	src := func(i int) netip.Prefix { return netip.PrefixFrom(netip.AddrFrom4([4]byte{127, 0, 0, byte(i)}), 32) }
	kinds := []string{kindLogin, kindFailed, kindRefused}

	s.event(src(1), kindLogin, "first") // starts an interval
	time.Sleep(interval * 8 / 10)
	end := time.Now().Add(interval * 3 / 2)
	for n := 0; time.Now().Before(end); n++ {
		for i := 1; i <= 40; i++ {
			s.event(src(i), kinds[n%len(kinds)], fmt.Sprintf("line %d from %d", n, i))
		}
		time.Sleep(time.Millisecond)
	}
	// The last interval's summaries come from its timer (Close would
	// write them at once, which the bound leaves out).
	time.Sleep(interval + 100*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	most, from := 0, 0
	for i := range at { // the window starting at each line
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < interval; j++ {
			n++
		}
		if n > most {
			most, from = n, i
		}
	}
	t.Logf("%d lines in all; at most %d in a %v window (from line %d, %v after the first); the bound %d",
		len(at), most, interval, from, at[from].Sub(at[0]).Round(time.Millisecond), LogLinesPerInterval)
	if most > LogLinesPerInterval {
		t.Errorf("%d lines in one %v window, more than %d", most, interval, LogLinesPerInterval)
	}
	if most < logMaxFull+logMaxKeys {
		t.Errorf("at most %d lines in a window: the flood did not reach the bound, the test shows nothing", most)
	}
}
