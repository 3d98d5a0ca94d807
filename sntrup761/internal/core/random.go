package core

import (
	cryptorand "crypto/rand"
	"io"
	"sync"
)

// Key generation, batch key generation and encapsulation read their
// randomness from the caller's reader, or from crypto/rand's Reader when
// the reader is nil: nil is how package sntrup761's own API (which the
// SSH engine, internal/hybrid, calls once it has decided on the default
// source) says "draw your own". Nothing below compares readers.
// Every read goes through io.ReadFull, so a reader that fails, crypto/rand's
// Reader replaced by one that fails included, gives an error to return,
// never a crash (crypto/rand.Read would end the process).

// source returns rand, or crypto/rand's Reader if rand is nil: the
// variable's value at the call, so that a replacement (such as
// testing/cryptotest.SetGlobalRandom's) is read like the original.
func source(rand io.Reader) io.Reader {
	if rand == nil {
		return cryptorand.Reader
	}
	return rand
}

// listPool holds the buffers readList reads a list into. Passed to an
// io.Reader, a buffer escapes to the heap; the pool saves allocating one
// per list. A buffer holds a secret list until readList clears it, which
// it does before the buffer goes back, whether the read succeeded, failed
// or panicked.
var listPool = sync.Pool{New: func() any { return new([randomBytes]byte) }}

// readList reads one list of 761 little-endian uint32 with a single Read of
// 3044 bytes (from a reader that returns them at once), the call pattern of
// the reference code and the NIST KAT. rand is not nil (source).
func readList(rand io.Reader, L *[P]uint32) error {
	buf := listPool.Get().(*[randomBytes]byte)
	decoded := false
	defer func() {
		if !decoded { // a failed or panicking read: a partial list is as secret as a whole one
			clear(buf[:])
		}
		listPool.Put(buf)
	}()
	if _, err := io.ReadFull(rand, buf[:]); err != nil {
		return err
	}
	decodeList(L, buf) // clears buf
	decoded = true
	return nil
}
