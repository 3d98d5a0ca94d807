package core

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/fips140"
	cryptorand "crypto/rand"
	"sync"

	"github.com/pqkex/pqkex/internal/vecarith"
)

// keystream is whether systemRandom expands a key from crypto/rand with
// AES-256-CTR: when crypto/aes runs on the CPU's AES instructions
// (constant time) and outside FIPS 140-3 mode. In FIPS 140-3 mode
// crypto/rand is the module's own DRBG (AES-256 CTR_DRBG), approved and
// about as fast: 0.9 µs per 3044-byte list. Elsewhere it is the kernel's
// generator (getrandom), which cost 10 µs a list where AES-256-CTR costs
// 0.6 µs (2026-12-06, a 2-vCPU "Oxide Virtual Turin-like" VM): a fifth of
// a key in a batch and half an encapsulation.
var keystream = vecarith.AES && !fips140.Enabled()

// KeystreamLists reports whether lists drawn from crypto/rand are
// AES-256-CTR keystreams here (keystream); package sntrup761's tests read
// it, the package does not export it.
func KeystreamLists() bool { return keystream }

// systemRandom fills buf with the random bytes of one list (GenerateKey's
// g and f, Encapsulate's r) when the caller's source is crypto/rand. With
// keystream it reads a fresh 32-byte key from crypto/rand and writes the
// AES-256-CTR keystream under it (zero counter block) into buf, one key per
// list: a pseudorandom generator keyed from the operating system's, as
// OpenSSH draws these bytes from arc4random (ChaCha20 keyed from the
// kernel); a list is 191 blocks, far inside CTR's bounds for one key.
// Otherwise buf is read from crypto/rand itself. buf is secret; the key
// is cleared after use, but the expanded key schedule inside crypto/aes
// cannot be, and lives until the garbage collector frees it.
func systemRandom(buf *[randomBytes]byte) {
	if !keystream {
		cryptorand.Read(buf[:])
		return
	}
	var key [32]byte
	cryptorand.Read(key[:])
	fillKeystream(buf, &key)
	clear(key[:])
}

// fillKeystream writes the AES-256-CTR keystream under key, from a zero
// counter block, into buf.
func fillKeystream(buf *[randomBytes]byte, key *[32]byte) {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic("sntrup761: " + err.Error()) // a 32-byte key is always accepted
	}
	s := scratchPool.Get().(*[randomBytes]byte)
	clear(s[:])
	cipher.NewCTR(block, zeroBlock[:]).XORKeyStream(s[:], s[:])
	*buf = *s
	clear(s[:])
	scratchPool.Put(s)
}

// zeroBlock is the initial counter block (NewCTR copies it).
var zeroBlock [aes.BlockSize]byte

// scratchPool holds the buffers systemRandom writes the keystream into:
// through the cipher.Stream interface the buffer escapes, and the
// caller's list buffer stays on its stack only if this one is another.
var scratchPool = sync.Pool{New: func() any { return new([randomBytes]byte) }}
