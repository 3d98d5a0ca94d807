package kexserver

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Kinds of per-connection log lines, each summarised separately.
const (
	kindLogin   = "logins"
	kindFailed  = "handshake failures"
	kindRefused = "refused connections"
	kindEvicted = "unused connections closed"
)

// Log volume: per interval, each source may log logBurst lines of each
// kind in full; the rest are counted and summarised at the end of the
// interval, one line per source and kind. At most logMaxFull lines in
// full and logMaxKeys summaries (sources times kinds) are written per
// interval, plus one line counting what came from further sources, so
// no flood, from however many sources, writes more than
// logMaxFull+logMaxKeys+1 lines per interval.
const (
	logInterval = 10 * time.Second
	logBurst    = 5
	logMaxFull  = 30
	logMaxKeys  = 30
)

type logKey struct {
	src  netip.Prefix
	kind string
}

// logLimiter passes the first lines of each source and kind per interval
// on to Server.Log and counts the rest.
type logLimiter struct {
	s        *Server
	interval time.Duration // logInterval; shorter in tests

	mu         sync.Mutex
	start      time.Time      // of the current interval; zero: none yet
	full       int            // lines written in full this interval
	seen       map[logKey]int // lines per key this interval
	suppressed map[logKey]int // of those, not written
	other      map[string]int // kind -> lines from keys beyond logMaxKeys
	timer      *time.Timer    // flushes the interval's summaries
	order      []logKey       // keys in order of first appearance
}

func (l *logLimiter) init(s *Server) {
	l.s = s
	l.interval = logInterval
}

// event logs a per-connection line from src, unless the interval's
// share of src (or of all sources) is used up; then it is counted.
func (s *Server) event(src netip.Prefix, kind, line string) {
	if s.Log == nil {
		return
	}
	l := &s.logs
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.start.IsZero() && now.Sub(l.start) >= l.interval {
		l.flushLocked()
	}
	if l.start.IsZero() {
		l.start = now
		l.seen, l.suppressed, l.other = map[logKey]int{}, map[logKey]int{}, map[string]int{}
		l.order = l.order[:0]
	}
	k := logKey{src, kind}
	n, known := l.seen[k]
	if !known && len(l.seen) >= logMaxKeys {
		l.other[kind]++
		l.schedule(now)
		return
	}
	if !known {
		l.order = append(l.order, k)
	}
	l.seen[k] = n + 1
	if n < logBurst && l.full < logMaxFull {
		l.full++
		s.Log(oneLine(line))
		return
	}
	l.suppressed[k]++
	l.schedule(now)
}

// schedule arranges for the summaries to be written when the interval
// ends, even if nothing else is logged. l.mu is held.
func (l *logLimiter) schedule(now time.Time) {
	if l.timer != nil {
		return
	}
	start := l.start
	l.timer = time.AfterFunc(start.Add(l.interval).Sub(now), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.start.Equal(start) {
			l.flushLocked()
		}
	})
}

// flush writes the pending summaries (Server.Close calls it).
func (l *logLimiter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
}

// flushLocked writes one summary line per source and kind with lines
// not written in full, and one for the sources beyond logMaxKeys, then
// ends the interval. l.mu is held.
func (l *logLimiter) flushLocked() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.start.IsZero() {
		return
	}
	d := time.Since(l.start).Round(100 * time.Millisecond)
	for _, k := range l.order {
		if n := l.suppressed[k]; n > 0 {
			l.s.Log(oneLine(fmt.Sprintf("%s: %d more %s (%d in all in %v), not logged one by one", source(k.src), n, k.kind, l.seen[k], d)))
		}
	}
	kinds := make([]string, 0, len(l.other))
	for kind := range l.other {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		l.s.Log(oneLine(fmt.Sprintf("%d %s from further sources in %v, not logged one by one", l.other[kind], kind, d)))
	}
	l.start = time.Time{}
	l.full = 0
}

// source names a source in a summary.
func source(p netip.Prefix) string {
	if !p.IsValid() {
		return "non-IP source"
	}
	return p.String()
}

// acceptError logs an Accept error, at most once a second.
func (s *Server) acceptError(line string) {
	s.mu.Lock()
	now := time.Now()
	if now.Sub(s.accErr) < time.Second {
		s.mu.Unlock()
		return
	}
	s.accErr = now
	s.mu.Unlock()
	if s.Log != nil {
		s.Log(oneLine(line))
	}
}

// oneLine escapes what would let a string end a log line or start
// another: control characters (C0, DEL, C1) and the Unicode line and
// paragraph separators become \x.., \u.. escapes. The peer-controlled
// parts of every line are already quoted with strconv.Quote; this is the
// last guard for whatever reaches the log.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, breaksLine) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !breaksLine(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
