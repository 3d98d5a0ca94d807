package hybrid

import (
	"bytes"
	"sync/atomic"
)

// ResetUpperState must be called after circl's ML-KEM functions on amd64.
// circl's AVX2 Keccak assembly (simd/keccakf1600, f1600x4_amd64.s in
// v1.4.0, the version go.mod builds, and v1.6.5) returns without VZEROUPPER; until something clears the upper
// halves of the YMM registers, every legacy-SSE instruction on the thread
// pays a transition penalty: a SHA-256 (SHA-NI, SSE encoded) of an
// exchange hash's input right after an ML-KEM encapsulation is two orders
// of magnitude slower than after ResetUpperState (go test -run '^$'
// -bench SHA256AfterMLKEM -count 5 ./internal/hybrid), which made whole
// x/crypto/ssh handshakes slower than with x/crypto's own ML-KEM, and
// slows AES-GCM and everything else after it.
//
// Pure Go cannot execute VZEROUPPER, but the runtime's memequal does after
// its AVX2 loop for inputs of 64 bytes or more (internal/bytealg,
// equal_amd64.s), so comparing two distinct 64-byte buffers clears the
// state. It costs one 64-byte comparison and is harmless elsewhere.
func ResetUpperState() {
	// The atomic store keeps the comparison from being optimized away and
	// is safe from any number of goroutines at once.
	equalSink.Store(bytes.Equal(resetA[:], resetB[:]))
}

var resetA, resetB [64]byte

var equalSink atomic.Bool
