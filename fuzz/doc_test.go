// Package fuzz holds go test -fuzz targets for every function of pqkex that
// reads bytes from a peer. Run one with, for example:
//
//	go test ./fuzz -run '^$' -fuzz FuzzSNTRUP761Decapsulate -fuzztime 60s
//
// Without -fuzz, go test runs each target once on its seed corpus.
package fuzz
