package sntrup761

import (
	"crypto/rand"
	"errors"
	"io"
	"sync"

	"github.com/pqkex/pqkex/sntrup761/internal/core"
)

// GenerateKeys generates n new decapsulation keys, drawing random bytes
// from crypto/rand. It is much cheaper per key than n calls of GenerateKey:
// the keys share one inversion in each of R/q and R/3 (Montgomery's batch
// inversion, as in OpenSSLNTRU), at the price of three extra ring
// multiplications per key in each ring.
//
// The keys are independent and each must be kept secret. Use each key for
// one key exchange only.
func GenerateKeys(n int) ([]*DecapsulationKey, error) {
	if n < 0 {
		return nil, errors.New("sntrup761: negative key count")
	}
	dks, err := generateKeys(rand.Reader, n)
	if err != nil {
		return nil, errors.New("sntrup761: reading randomness: " + err.Error())
	}
	return dks, nil
}

func generateKeys(rand io.Reader, n int) ([]*DecapsulationKey, error) {
	sks, err := core.GenerateKeys(rand, n)
	if err != nil {
		return nil, err
	}
	dks := make([]*DecapsulationKey, len(sks))
	for i, sk := range sks {
		dks[i] = &DecapsulationKey{sk}
	}
	return dks, nil
}

// KeyPool hands out fresh single-use decapsulation keys, generating them in
// batches with GenerateKeys. A key returned by Get is removed from the pool
// and is never returned again.
//
// The pool keeps up to BatchSize-1 unused secret keys in memory between
// calls. It is safe for concurrent use. The zero value is not usable; use
// NewKeyPool.
type KeyPool struct {
	mu    sync.Mutex
	batch int
	keys  []*DecapsulationKey
}

// NewKeyPool returns a pool that generates batchSize keys at a time
// (batchSize < 1 means 32).
func NewKeyPool(batchSize int) *KeyPool {
	if batchSize < 1 {
		batchSize = 32
	}
	return &KeyPool{batch: batchSize}
}

// BatchSize returns the number of keys the pool generates at a time.
func (p *KeyPool) BatchSize() int { return p.batch }

// Get returns a fresh decapsulation key. When the pool is empty it
// generates a new batch first, so an occasional call takes as long as
// GenerateKeys(BatchSize).
func (p *KeyPool) Get() (*DecapsulationKey, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.keys) == 0 {
		keys, err := GenerateKeys(p.batch)
		if err != nil {
			return nil, err
		}
		p.keys = keys
	}
	dk := p.keys[len(p.keys)-1]
	p.keys[len(p.keys)-1] = nil
	p.keys = p.keys[:len(p.keys)-1]
	return dk, nil
}
