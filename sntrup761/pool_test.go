package sntrup761

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests are in package sntrup761 because they inject random sources
// into the pool and look at its goroutine; run them with -race.

// stacks returns the stacks of all goroutines, one string each.
func stacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(string(buf[:n]), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// countStacks returns how many goroutines have every one of frames in
// their stack.
func countStacks(frames ...string) int {
	n := 0
	for _, s := range stacks() {
		all := true
		for _, f := range frames {
			all = all && strings.Contains(s, f)
		}
		if all {
			n++
		}
	}
	return n
}

const refillFrame = "sntrup761.(*KeyPool).refill("

// waitFor polls cond until it holds, failing the test after a generous
// deadline (this checks that something happens, not how fast).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// startGets starts n concurrent Gets from p and returns the channel on
// which each sends its error.
func startGets(p *KeyPool, n int) <-chan error {
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := p.Get()
			errs <- err
		}()
	}
	return errs
}

// receive returns the next error from errs, failing the test if none comes
// within a generous deadline (a hang is a failure, not a slow run).
func receive(t *testing.T, errs <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-errs:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		return nil
	}
}

// checkKey checks that dk is a working key that was not seen before.
func checkKey(t *testing.T, seen map[string]bool, dk *DecapsulationKey) {
	t.Helper()
	b := dk.Bytes()
	if seen[string(b)] {
		t.Fatal("pool returned a key twice")
	}
	seen[string(b)] = true
	ss, ct := dk.EncapsulationKey().Encapsulate()
	if ss2, err := dk.Decapsulate(ct); err != nil || !bytes.Equal(ss, ss2) {
		t.Fatal("pool key does not round-trip")
	}
}

func TestKeyPool(t *testing.T) {
	before := countStacks(refillFrame)
	p := NewKeyPool(3)
	defer p.Close()
	if countStacks(refillFrame) != before {
		t.Fatal("NewKeyPool started a goroutine")
	}
	seen := map[string]bool{}
	for range 7 { // crosses two refills
		dk, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		checkKey(t, seen, dk)
	}
	if p.BatchSize() != 3 || NewKeyPool(0).BatchSize() != 32 || NewKeyPool(-5).BatchSize() != 32 {
		t.Fatal("batch size")
	}
}

// TestKeyPoolZeroValue: the zero KeyPool works, with the default batch
// size, including through the interface that sshkex.SetKeyPool uses.
func TestKeyPoolZeroValue(t *testing.T) {
	var p KeyPool
	if p.BatchSize() != 32 {
		t.Fatalf("zero KeyPool: batch size %d, want 32", p.BatchSize())
	}
	seen := map[string]bool{}
	for range 3 {
		dk, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		checkKey(t, seen, dk)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(); err == nil {
		t.Fatal("Get after Close succeeded")
	}

	// A zero pool closed before its first Get never starts a goroutine.
	var q KeyPool
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(); err == nil {
		t.Fatal("Get after Close succeeded")
	}
	if q.wake != nil {
		t.Fatal("Get after Close started the pool")
	}
}

// TestKeyPoolConcurrent is the property test: many goroutines take keys
// while the background goroutine refills, and every key handed out is
// distinct (compared byte for byte) and works. Small batches make refills
// and empty-pool waits frequent.
func TestKeyPoolConcurrent(t *testing.T) {
	cases := []struct{ batch, goroutines, gets int }{
		{1, 4, 4},
		{3, 8, 5},
		{5, 16, 3},
		{0, 8, 6}, // default batch: no empty-pool waits after the first
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("batch=%d/goroutines=%d", c.batch, c.goroutines), func(t *testing.T) {
			p := NewKeyPool(c.batch)
			var mu sync.Mutex
			var got []*DecapsulationKey
			var wg sync.WaitGroup
			errs := make(chan error, c.goroutines)
			for range c.goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range c.gets {
						dk, err := p.Get()
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						got = append(got, dk)
						mu.Unlock()
					}
				}()
			}
			finished := make(chan struct{})
			go func() { wg.Wait(); close(finished) }()
			select {
			case <-finished:
			case <-time.After(2 * time.Minute):
				t.Fatal("Gets hang")
			}
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if len(got) != c.goroutines*c.gets {
				t.Fatalf("%d keys, want %d", len(got), c.goroutines*c.gets)
			}
			// Checked after Close: keys handed out are not cleared by it.
			seen := map[string]bool{}
			for _, dk := range got {
				checkKey(t, seen, dk)
			}
		})
	}
}

// TestKeyPoolRefillsAhead: the pool refills in the background once fewer
// than half a batch is left, before it runs empty.
func TestKeyPoolRefillsAhead(t *testing.T) {
	p := NewKeyPool(4) // low-water mark 2
	defer p.Close()
	for range 3 {
		if _, err := p.Get(); err != nil {
			t.Fatal(err)
		}
	}
	// One key left: a batch of four is on its way, with no Get waiting.
	waitFor(t, "the background refill", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.keys) == 5
	})
}

// TestKeyPoolGetAfterClose: Close is idempotent, Get after it returns an
// error, and Close clears the keys it drops but not those handed out.
func TestKeyPoolGetAfterClose(t *testing.T) {
	p := NewKeyPool(4)
	dk, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	kept := dk.Bytes()
	// Three keys are left, not below the low-water mark of two, so no
	// refill runs.
	p.mu.Lock()
	dropped := append([]*DecapsulationKey(nil), p.keys...)
	p.mu.Unlock()
	if len(dropped) != 3 {
		t.Fatalf("%d keys in the pool, want 3", len(dropped))
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := p.Get(); !errors.Is(err, errPoolClosed) {
		t.Fatalf("Get after Close: %v, want %v", err, errPoolClosed)
	}
	zero := make([]byte, DecapsulationKeySize)
	for _, d := range dropped {
		if !bytes.Equal(d.Bytes(), zero) {
			t.Fatal("Close left an unused key in memory")
		}
	}
	if !bytes.Equal(dk.Bytes(), kept) {
		t.Fatal("Close changed a key that Get had returned")
	}
}

// gatedReader blocks in Read until open is closed, then reads crypto/rand;
// entered is closed at the first Read.
type gatedReader struct {
	open, entered chan struct{}
	once          sync.Once
}

func (r *gatedReader) Read(b []byte) (int, error) {
	r.once.Do(func() { close(r.entered) })
	<-r.open
	return rand.Read(b)
}

// TestKeyPoolCloseWhileWaiting: Gets waiting on an empty pool return an
// error as soon as Close is called, even while a batch is still being
// generated; Close returns once the goroutine has stopped.
func TestKeyPoolCloseWhileWaiting(t *testing.T) {
	r := &gatedReader{open: make(chan struct{}), entered: make(chan struct{})}
	p := &KeyPool{batch: 2, rand: r}
	const n = 4
	errs := startGets(p, n)
	<-r.entered // generation has started and is blocked
	waitFor(t, "Gets to wait on the empty pool", func() bool {
		return countStacks("[chan receive", "sntrup761.(*KeyPool).Get(") == n
	})

	closed := make(chan error)
	go func() { closed <- p.Close() }()
	for range n {
		if err := receive(t, errs, "Close to end waiting Gets"); !errors.Is(err, errPoolClosed) {
			t.Fatalf("waiting Get: %v, want %v", err, errPoolClosed)
		}
	}
	select {
	case <-closed:
		t.Fatal("Close returned while its goroutine was still generating keys")
	default:
	}
	close(r.open)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refill goroutine to end", func() bool { return countStacks(refillFrame) == 0 })
	if p.keys != nil {
		t.Fatal("Close kept the batch that was being generated")
	}
}

// switchReader fails while fail is set and reads crypto/rand otherwise.
type switchReader struct {
	mu   sync.Mutex
	fail bool
}

func (r *switchReader) set(fail bool) { r.mu.Lock(); r.fail = fail; r.mu.Unlock() }

func (r *switchReader) Read(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return 0, errors.New("entropy source unavailable")
	}
	return rand.Read(b)
}

// TestKeyPoolFailingRand: a failing random source makes Get return an
// error (never a panic, never a hang), to every concurrent caller, and the
// pool recovers when the source does.
func TestKeyPoolFailingRand(t *testing.T) {
	r := &switchReader{fail: true}
	p := &KeyPool{batch: 3, rand: r}
	defer p.Close()
	const n = 8
	errs := startGets(p, n)
	for range n {
		err := receive(t, errs, "Gets to fail")
		if err == nil {
			t.Fatal("Get succeeded with a failing random source")
		}
		if want := "sntrup761: reading randomness: entropy source unavailable"; err.Error() != want {
			t.Fatalf("Get: %q, want %q", err, want)
		}
	}

	r.set(false)
	// A batch begun before the source recovered may still fail, and the
	// first Get may report that; it is the last such batch.
	if _, err := p.Get(); err != nil {
		t.Log("first Get after the source recovered:", err)
	}
	seen := map[string]bool{}
	for range 4 { // crosses a refill
		dk, err := p.Get()
		if err != nil {
			t.Fatal("Get after the source recovered:", err)
		}
		checkKey(t, seen, dk)
	}
	// Let the source fail again: the keys already in the pool (fewer than
	// one and a half batches, plus a batch in progress) are still handed
	// out, and then Get reports the error.
	r.set(true)
	var err error
	for range 3*p.BatchSize() + 1 {
		if _, err = p.Get(); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("Get kept succeeding with a failing random source")
	}
}

// TestKeyPoolNoGoroutineLeak: the number of goroutines returns to its
// baseline after the pools are closed.
func TestKeyPoolNoGoroutineLeak(t *testing.T) {
	waitFor(t, "earlier tests' goroutines to end", func() bool { return countStacks(refillFrame) == 0 })
	base := runtime.NumGoroutine()
	var pools []*KeyPool
	for i := range 4 {
		p := NewKeyPool(i + 1)
		if _, err := p.Get(); err != nil {
			t.Fatal(err)
		}
		pools = append(pools, p)
	}
	if got := countStacks(refillFrame); got != len(pools) {
		t.Fatalf("%d refill goroutines, want %d", got, len(pools))
	}
	for _, p := range pools {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Close returns when the goroutine has nothing left to do but return.
	waitFor(t, "the refill goroutines to end", func() bool { return countStacks(refillFrame) == 0 })
	waitFor(t, "the goroutine count to return to its baseline", func() bool {
		return runtime.NumGoroutine() <= base
	})
}
