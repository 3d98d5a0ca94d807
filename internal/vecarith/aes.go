//go:build !purego

package vecarith

import "golang.org/x/sys/cpu"

// AES reports whether crypto/aes runs on the CPU's AES instructions here,
// the condition under which the Go standard library uses them (amd64 with
// AES-NI, SSE4.1 and SSSE3; arm64 with the AES extension): constant time,
// unlike its table-based fallback. GODEBUG=cpu.aes=off turns it off for
// both. sntrup761 expands the randomness it draws from crypto/rand with
// AES-256-CTR only when it is true (sntrup761/internal/core/random.go).
var AES = cpu.X86.HasAES && cpu.X86.HasSSE41 && cpu.X86.HasSSSE3 || cpu.ARM64.HasAES
