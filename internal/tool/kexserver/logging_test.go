package kexserver

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// printableLine reports whether a log line holds only printable runes
// (no control character, line or paragraph separator, invalid UTF-8).
func printableLine(l string) bool {
	if !utf8.ValidString(l) {
		return false
	}
	for _, r := range l {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// capture is a Server whose log lines are recorded.
func capture(interval time.Duration) (*Server, func() []string) {
	s := New(nil, nil)
	s.logs.interval = interval
	var mu sync.Mutex
	var lines []string
	s.Log = func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }
	return s, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), lines...) }
}

// TestLogSummary: per source and kind, logBurst lines per interval in
// full, then one summary when the interval ends (by its timer, with
// nothing else logged); the next interval starts afresh.
func TestLogSummary(t *testing.T) {
	s, lines := capture(300 * time.Millisecond)
	a, b := netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("2001:db8::/64")
	for i := range 12 {
		s.event(a, kindFailed, fmt.Sprintf("a failure %d", i))
	}
	s.event(a, kindLogin, "a login")
	s.event(b, kindFailed, "b failure")
	got := lines()
	if len(got) != logBurst+2 || got[logBurst] != "a login" || got[logBurst+1] != "b failure" {
		t.Fatalf("lines in the interval: %q", got)
	}
	if !waitFor(2*time.Second, func() bool { return len(lines()) > logBurst+2 }) {
		t.Fatal("no summary after the interval")
	}
	time.Sleep(50 * time.Millisecond)
	got = lines()
	if len(got) != logBurst+3 || !strings.HasPrefix(got[logBurst+2], "192.0.2.1/32: 7 more handshake failures (12 in all in ") {
		t.Fatalf("summary: %q", got[logBurst+2:])
	}
	s.event(a, kindFailed, "a failure again")
	if got := lines(); got[len(got)-1] != "a failure again" {
		t.Fatalf("first line of the next interval not logged: %q", got)
	}
	s.logs.flush()
}

// TestLogManySources: however many sources, at most logMaxFull lines in
// full and logMaxKeys+1 summaries per interval.
func TestLogManySources(t *testing.T) {
	s, lines := capture(time.Hour)
	for i := range 1000 {
		src := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32)
		for range 3 {
			s.event(src, kindRefused, fmt.Sprintf("refused %d", i))
		}
	}
	s.logs.flush()
	got := lines()
	summaries := 0
	for _, l := range got {
		if strings.Contains(l, "not logged one by one") {
			summaries++
		}
	}
	if len(got) > logMaxFull+logMaxKeys+1 || !strings.Contains(got[len(got)-1], ": 2910 refused connections, not logged one by one") {
		t.Fatalf("%d lines (%d summaries) for 3000 events from 1000 sources; last %q", len(got), summaries, got[len(got)-1])
	}
	t.Logf("3000 refusals from 1000 sources: %d lines, the last %q", len(got), got[len(got)-1])
}

// TestLogLineMax: a line longer than LogLineMax (the server builds none)
// is quoted and cut whole; a peer value is cut to PeerTextMax.
func TestLogLineMax(t *testing.T) {
	s, lines := capture(time.Hour)
	s.event(netip.MustParsePrefix("192.0.2.1/32"), kindFailed, strings.Repeat("x", 5000))
	got := lines()
	if len(got) != 1 || len(got[0]) > LogLineMax || !strings.HasSuffix(got[0], `"... (5000 bytes)`) {
		t.Fatalf("a 5000-byte line logged as %d lines, the first %d bytes: %.60q...", len(got), len(got[0]), got[0])
	}
	if p := peerText(strings.Repeat("\x1b", 100000)); len(p) > PeerTextMax || !printableLine(p) || !strings.HasSuffix(p, `"... (100000 bytes)`) {
		t.Fatalf("peerText of 100000 escapes: %d bytes, %.60q...", len(p), p)
	}
	s.logs.flush()
}
