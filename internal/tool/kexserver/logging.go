package kexserver

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
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
// interval, one line per source and kind. A line is written in full only
// while fewer than logMaxFull lines (of any sort) were written in the
// last LogInterval, a sliding window; the summaries, at most logMaxKeys
// (sources times kinds) plus one line counting what came from further
// sources, are written when an interval ends, and intervals last at least
// LogInterval, so any LogInterval-long window holds at most one set of
// them (Close writes the pending ones at once, after the last interval
// perhaps within LogInterval of the one before). So while the server
// runs no flood, from however many sources, writes more than
// logMaxFull+logMaxKeys+1 lines in any LogInterval-long window, wherever
// it starts (not just per interval: before, a window across an
// interval's end could hold one interval's full lines and summaries and
// the next one's full lines, 91 lines). Each is at most LogLineMax bytes
// long: a line holds at most two peer-controlled values (the login line's
// version and user), each cut to PeerTextMax bytes, and 256 bytes of the
// server's own (addresses, algorithm names, numbers); a longer line
// (there is none) would be quoted and cut whole.
const (
	LogInterval         = 10 * time.Second
	PeerTextMax         = 768
	LogLineMax          = 2*PeerTextMax + 256
	LogLinesPerInterval = logMaxFull + logMaxKeys + 1
	LogBytesPerInterval = LogLinesPerInterval * (LogLineMax + 1) // a line end each; in any LogInterval-long window

	logBurst   = 5
	logMaxFull = 30
	logMaxKeys = 30
)

// peerText is how a log line shows a value the peer chose: quoted, and
// cut to PeerTextMax bytes with its length noted.
func peerText(s string) string { return sshwire.Quote(s, PeerTextMax) }

// logLine is the last guard on a line's length: within LogLineMax it is
// passed on as it is (its peer-controlled parts are already quoted).
func logLine(s string) string {
	if len(s) <= LogLineMax {
		return s
	}
	return sshwire.Quote(s, LogLineMax)
}

type logKey struct {
	src  netip.Prefix
	kind string
}

// logLimiter passes the first lines of each source and kind per interval
// on to Server.Log and counts the rest.
type logLimiter struct {
	s        *Server
	interval time.Duration // LogInterval; shorter in tests

	mu         sync.Mutex
	start      time.Time      // of the current interval; zero: none yet
	written    []time.Time    // when the lines of the last interval-long window were written, oldest first
	seen       map[logKey]int // lines per key this interval
	suppressed map[logKey]int // of those, not written
	other      map[string]int // kind -> lines from keys beyond logMaxKeys
	timer      *time.Timer    // flushes the interval's summaries
	order      []logKey       // keys in order of first appearance
}

func (l *logLimiter) init(s *Server) {
	l.s = s
	l.interval = LogInterval
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
	if n < logBurst && l.recentLocked(now) < logMaxFull {
		l.written = append(l.written, now)
		s.Log(logLine(line))
		return
	}
	l.suppressed[k]++
	l.schedule(now)
}

// recentLocked returns how many lines were written in the window of one
// interval ending at now, dropping older times. l.mu is held.
func (l *logLimiter) recentLocked(now time.Time) int {
	i := 0
	for i < len(l.written) && now.Sub(l.written[i]) >= l.interval {
		i++
	}
	l.written = append(l.written[:0], l.written[i:]...)
	return len(l.written)
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
	now := time.Now()
	d := now.Sub(l.start).Round(100 * time.Millisecond)
	for _, k := range l.order {
		if n := l.suppressed[k]; n > 0 {
			l.written = append(l.written, now)
			l.s.Log(fmt.Sprintf("%s: %d more %s (%d in all in %v), not logged one by one", source(k.src), n, k.kind, l.seen[k], d))
		}
	}
	if len(l.other) > 0 { // one line for every kind
		kinds := make([]string, 0, len(l.other))
		for kind := range l.other {
			kinds = append(kinds, kind)
		}
		sort.Strings(kinds)
		counts := make([]string, len(kinds))
		for i, kind := range kinds {
			counts[i] = fmt.Sprintf("%d %s", l.other[kind], kind)
		}
		l.written = append(l.written, now)
		l.s.Log(fmt.Sprintf("from further sources in %v: %s, not logged one by one", d, strings.Join(counts, ", ")))
	}
	l.start = time.Time{}
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
		s.Log(logLine(line))
	}
}
