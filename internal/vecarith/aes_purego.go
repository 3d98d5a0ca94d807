//go:build purego

package vecarith

// With -tags purego the standard library's crypto/aes runs its
// table-based code, which is not constant time.
const AES = false
