package mlkem768nistp256_test

import (
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// public runs the package's exported API (with the engine's explicit-key
// constructors) as a hybridtest.Exchange.
func public() hybridtest.Exchange { return hybridtest.Public(mlkem768nistp256.Name) }

// exchanges is the public API and the engine with each ML-KEM backend.
func exchanges() []hybridtest.Exchange {
	return append([]hybridtest.Exchange{public()}, hybridtest.Backends(mlkem768nistp256.Name, mlkem768nistp256.Engine)...)
}
