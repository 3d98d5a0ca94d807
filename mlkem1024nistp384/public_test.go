package mlkem1024nistp384_test

import (
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
)

// public runs the package's exported API (with the engine's explicit-key
// constructors) as a hybridtest.Exchange.
func public() hybridtest.Exchange { return hybridtest.Public(mlkem1024nistp384.Name) }

// exchanges is the public API and the engine with each ML-KEM backend.
func exchanges() []hybridtest.Exchange {
	return append([]hybridtest.Exchange{public()}, hybridtest.Backends(mlkem1024nistp384.Name, mlkem1024nistp384.Engine)...)
}
