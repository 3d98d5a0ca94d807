package sntrup761

import "github.com/pqkex/pqkex/sntrup761/internal/core"

// GenerateKeysFrom is GenerateKeys reading its randomness from rand, for
// the known-answer tests of package sntrup761_test.
var GenerateKeysFrom = generateKeys

// UseVectorPath switches the AVX2 assembly path on (on a CPU with AVX2) or
// off for the tests and returns whether it was on; package sntrup761 does
// not export it.
var UseVectorPath = core.UseVectorPath
