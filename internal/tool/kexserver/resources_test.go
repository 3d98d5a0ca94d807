package kexserver

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/pqkex/pqkex/sshkex"
)

// resources are what a test that loads the server must get back
// afterwards: goroutines, open descriptors (-1 where /proc/self/fd is
// not readable) and heap in use.
type resources struct {
	goroutines, fds int
	heap            uint64
}

// heapSlack is how much more heap may be in use after a load than before.
const heapSlack = 16 << 20

// baseline registers pqkex's key exchanges (their one-time allocations
// are not a leak), collects garbage and measures.
func baseline(t *testing.T) resources {
	t.Helper()
	if err := sshkex.Register(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	return measure()
}

func measure() resources {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return resources{runtime.NumGoroutine(), openFDs(), m.HeapInuse}
}

// checkReturned waits up to wait for goroutines and descriptors to come
// back to before, plus open (those of a server still listening), then
// collects garbage and requires the heap in use to be within heapSlack
// of before; load names what ran, for the errors. It returns what it
// measured last.
func (before resources) checkReturned(t *testing.T, load string, wait time.Duration, open int) resources {
	t.Helper()
	if !waitFor(wait, func() bool { return runtime.NumGoroutine() <= before.goroutines+open }) {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the %s, %d before:\n%s", runtime.NumGoroutine(), load, before.goroutines, buf[:runtime.Stack(buf, true)])
	}
	if before.fds >= 0 && !waitFor(wait, func() bool { return openFDs() <= before.fds+open }) {
		t.Errorf("%d descriptors open after the %s, %d before", openFDs(), load, before.fds)
	}
	runtime.GC()
	after := measure()
	if after.heap > before.heap+heapSlack {
		t.Errorf("heap in use %d MiB after the %s, %d MiB before", after.heap>>20, load, before.heap>>20)
	}
	return after
}

// openFDs counts the process's open descriptors (Linux), or returns -1.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}
