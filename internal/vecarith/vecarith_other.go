//go:build !(goexperiment.simd && amd64)

package vecarith

// Without GOEXPERIMENT=simd on amd64 there is no vector path.
const (
	built = false
	AVX2  = false
)
