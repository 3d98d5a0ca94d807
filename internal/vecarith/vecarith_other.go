//go:build !amd64 || purego

package vecarith

// Without amd64, or with -tags purego, there is no vector path.
const (
	built = false
	path  = ""
	AVX2  = false
)
