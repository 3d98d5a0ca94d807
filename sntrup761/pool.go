package sntrup761

import (
	"errors"
	"io"
	"sync"

	"github.com/pqkex/pqkex/sntrup761/internal/core"
)

// defaultBatchSize is the batch size of a zero KeyPool and of
// NewKeyPool(n) for n < 1.
const defaultBatchSize = 32

var errPoolClosed = errors.New("sntrup761: Get on a closed KeyPool")

// KeyPool hands out fresh single-use decapsulation keys, generated in
// batches with GenerateKeys from crypto/rand. A key returned by Get is
// removed from the pool and is never returned again. A KeyPool is safe for
// concurrent use. The zero value is an empty pool with the default batch
// size of 32, ready to use. A KeyPool must not be copied after first use.
//
// The pool refills ahead of demand. The first Get starts one goroutine,
// which generates a new batch whenever fewer than half a batch of keys
// remain. While demand stays below the rate at which that goroutine
// generates keys, Get takes a key without waiting for key generation. When
// the pool runs empty, Gets wait for the batch in progress and are served
// in the order they arrived; the pool's lock is not held while keys are
// generated.
//
// Every unused key in the pool is secret. The pool holds fewer than one
// and a half batches of them (about 40 KB each, so under 2 MB at the
// default batch size); while a batch is generated, it takes about 80 KB
// more per key of the batch.
//
// Close stops the goroutine and overwrites the unused keys with zeros; Go
// cannot guarantee that no other copy of a secret remains in memory (the
// runtime may have copied it, and freed memory is not cleared), so this
// narrows the exposure but does not remove it. A pool that is used and
// never closed keeps its goroutine and its keys until the program exits.
type KeyPool struct {
	batch int // keys per generation; < 1 means defaultBatchSize

	// rand replaces crypto/rand as the pool's random source when non-nil;
	// only this package's tests set it.
	rand io.Reader

	mu      sync.Mutex
	keys    []*DecapsulationKey // unused keys, taken from the end
	waiters []chan<- getResult  // Gets waiting for a key, oldest first; only while keys is empty
	closed  bool

	// Made, and the goroutine started, by the first Get; nil before.
	wake   chan struct{} // capacity 1: a request for a batch
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when the goroutine returns
}

// getResult is what a waiting Get receives.
type getResult struct {
	dk  *DecapsulationKey
	err error
}

// NewKeyPool returns a pool that generates batchSize keys at a time
// (batchSize < 1 means 32). It starts no goroutine.
func NewKeyPool(batchSize int) *KeyPool {
	return &KeyPool{batch: batchSize}
}

// BatchSize returns the number of keys the pool generates at a time.
func (p *KeyPool) BatchSize() int {
	if p.batch < 1 {
		return defaultBatchSize
	}
	return p.batch
}

// lowWater is the number of keys below which the pool refills.
func (p *KeyPool) lowWater() int { return (p.BatchSize() + 1) / 2 }

// Get returns a fresh decapsulation key, which the caller must keep secret
// and use for one key exchange only. If the pool is empty, Get waits for
// the batch being generated; waiting Gets are served in the order they
// arrived. If generating a batch fails while Get waits, Get returns the
// error, and a later Get tries again. After Close, and when Close is
// called while Get waits, Get returns an error.
func (p *KeyPool) Get() (*DecapsulationKey, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	p.startLocked()
	if len(p.keys) == 0 {
		w := make(chan getResult, 1)
		p.waiters = append(p.waiters, w)
		p.requestLocked()
		p.mu.Unlock()
		r := <-w
		return r.dk, r.err
	}
	dk := p.popLocked()
	if len(p.keys) < p.lowWater() {
		p.requestLocked()
	}
	p.mu.Unlock()
	return dk, nil
}

// Close stops the pool's goroutine and overwrites the unused keys with
// zeros (see KeyPool for what that guarantees). Gets that are waiting, and
// every later Get, return an error at once. Close waits for a batch being
// generated to finish, then discards it too. Keys that Get has already
// returned are not affected. Close always returns nil; calling it again
// has no effect.
func (p *KeyPool) Close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		clearKeys(p.keys)
		p.keys = nil
		p.failWaitersLocked(errPoolClosed)
		if p.done != nil {
			close(p.done)
		}
	}
	exited := p.exited
	p.mu.Unlock()
	if exited != nil {
		<-exited
	}
	return nil
}

// startLocked starts the refill goroutine on first use; p.mu is held.
func (p *KeyPool) startLocked() {
	if p.wake != nil {
		return
	}
	p.wake = make(chan struct{}, 1)
	p.done = make(chan struct{})
	p.exited = make(chan struct{})
	go p.refill()
}

// requestLocked asks the goroutine for a batch, unless a request is
// already pending; p.mu is held.
func (p *KeyPool) requestLocked() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// refill is the pool's goroutine: on each request it generates a batch,
// without holding p.mu, if the pool is still below its low-water mark.
func (p *KeyPool) refill() {
	defer close(p.exited)
	r := p.rand // nil: crypto/rand, read by the core
	for {
		select {
		case <-p.done:
			return
		case <-p.wake:
		}
		p.mu.Lock()
		need := len(p.keys) < p.lowWater() // a request made while a batch was generated may be stale
		p.mu.Unlock()
		if !need {
			continue
		}
		keys, err := newKeys(r, p.BatchSize())
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			clearKeys(keys)
			return
		}
		if err != nil {
			p.failWaitersLocked(err)
		} else {
			p.keys = append(p.keys, keys...)
			for len(p.waiters) > 0 && len(p.keys) > 0 {
				p.waiters[0] <- getResult{dk: p.popLocked()}
				p.waiters[0] = nil
				p.waiters = p.waiters[1:]
			}
			if len(p.keys) < p.lowWater() {
				p.requestLocked() // more Gets waited than the batch held
			}
		}
		p.mu.Unlock()
	}
}

// popLocked removes and returns the last key; p.mu is held and the pool
// is not empty.
func (p *KeyPool) popLocked() *DecapsulationKey {
	n := len(p.keys) - 1
	dk := p.keys[n]
	p.keys[n] = nil
	p.keys = p.keys[:n]
	return dk
}

// failWaitersLocked makes every waiting Get return err; p.mu is held.
func (p *KeyPool) failWaitersLocked(err error) {
	for _, w := range p.waiters {
		w <- getResult{err: err} // buffered: never blocks
	}
	clear(p.waiters)
	p.waiters = p.waiters[:0]
}

// clearKeys overwrites keys with zeros: the pool's keys that were never
// handed out, and (clearKey, linkname.go) a key a key exchange has
// finished with.
func clearKeys(keys []*DecapsulationKey) {
	for i, dk := range keys {
		*dk.sk = core.PrivateKey{}
		keys[i] = nil
	}
}
