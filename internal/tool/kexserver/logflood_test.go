//go:build linux

package kexserver

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLogFloodBytes: connections from 40 loopback sources (127.0.0.1 to
// 127.0.0.40; on Linux all of 127.0.0.0/8 is local), each offering one
// key exchange name of terminal escapes and line breaks, for three log
// intervals, shortened to 500 ms. Every eighth source offers a 250 KiB
// name (near the largest packet), the others an 8 KiB one, ten times
// PeerTextMax: both are cut to the same line, and the short ones keep the
// flood a flood under the race detector (which slows a 250 KiB read about
// sevenfold). The test fails unless the flood brings more failures than
// the log may report in its intervals (LogLinesPerInterval lines an
// interval), so each short interval is flooded as a 10 s one would be.
// The sources are paced to five times that many connections an interval
// (a source that falls behind its pace connects at once): more would only
// cost CPU, the log being cut at LogLinesPerInterval lines either way.
// The log grows by at most LogBytesPerInterval bytes per interval (a
// handshake failure line quotes the peer's names, cut to PeerTextMax
// bytes), no line is longer than LogLineMax, and none holds a control
// character.
func TestLogFloodBytes(t *testing.T) {
	const (
		sources  = 40
		interval = 500 * time.Millisecond
		d        = 3 * interval
	)
	var mu sync.Mutex
	var lines, logBytes, longest int
	var unsafe []string
	var sample []string // a failure line, a summary
	s, _ := start(t, func(s *Server) {
		s.logs.interval = interval
		s.Log = func(l string) {
			mu.Lock()
			defer mu.Unlock()
			lines++
			logBytes += len(l) + 1
			longest = max(longest, len(l))
			if len(sample) == 0 && strings.Contains(l, "handshake failed") || len(sample) == 1 && strings.Contains(l, "not logged one by one") {
				sample = append(sample, l)
			}
			if !printableLine(l) && len(unsafe) < 3 {
				unsafe = append(unsafe, fmt.Sprintf("%.200q", l))
			}
		}
	})
	addr := s.Addr().String()
	hello := func(size int) (string, []byte) {
		name := strings.Repeat("\x1b[2J\r\n\u2028", size/9)
		return name, append([]byte("SSH-2.0-flood\r\n"), soakKexinit(name)...)
	}
	bigName, big := hello(250 << 10)
	smallName, small := hello(8 << 10)

	var conns, offered atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	end := began.Add(d)
	// Each source's k-th connection starts at began + k*period, or as
	// soon as it can if the source is late.
	period := interval * sources / (5 * LogLinesPerInterval)
	for i := range sources {
		src := fmt.Sprintf("127.0.0.%d", i+1)
		name, hello := smallName, small
		if i%8 == 0 {
			name, hello = bigName, big
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 1; time.Now().Before(end); k++ {
				nc, err := dialSource(src, addr)
				if err != nil {
					t.Errorf("dial from %s: %v", src, err)
					return
				}
				nc.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := nc.Write(hello); err == nil {
					offered.Add(int64(len(name)))
				}
				io.Copy(io.Discard, nc) // until the server gives up
				nc.Close()
				conns.Add(1)
				time.Sleep(time.Until(began.Add(time.Duration(k) * period)))
			}
		}()
	}
	wg.Wait()
	s.Close() // writes the last interval's summaries
	took := time.Since(began)

	mu.Lock()
	defer mu.Unlock()
	intervals := int(took/interval) + 1 // intervals are interval long and do not overlap
	t.Logf("%d connections from %d sources offered %.1f MiB of names in %v; the log grew by %d bytes in %d lines (%d bytes per %v interval on average, the bound %d; longest line %d bytes, the bound %d)",
		conns.Load(), sources, float64(offered.Load())/(1<<20), took.Round(time.Millisecond), logBytes, lines, logBytes/intervals, interval, LogBytesPerInterval, longest, LogLineMax)
	t.Logf("lines:\n%.800s", strings.Join(sample, "\n"))
	if n := conns.Load(); n <= int64(intervals*LogLinesPerInterval) {
		t.Fatalf("only %d connections in %d intervals: no flood (the log may hold %d lines an interval)", n, intervals, LogLinesPerInterval)
	}
	if logBytes > intervals*LogBytesPerInterval {
		t.Errorf("the log grew by %d bytes in %d intervals, more than %d per interval", logBytes, intervals, LogBytesPerInterval)
	}
	if longest > LogLineMax {
		t.Errorf("a line of %d bytes, more than LogLineMax (%d)", longest, LogLineMax)
	}
	if len(unsafe) > 0 {
		t.Errorf("lines with control characters: %s", strings.Join(unsafe, "\n"))
	}
}
