// Package fuzz holds go test -fuzz targets for every function of pqkex that
// reads bytes from a peer. Run one with
//
//	go test ./fuzz -run '^$' -fuzz '^<target>$' -fuzztime 60s
//
// or several for a budget of CPU time with the campaign runner
// (go -C fuzz/campaign run . -C ../..; see docs/testing.md). Without -fuzz,
// go test runs each target once on its seed corpus and its committed
// corpus, testdata/fuzz/<target>.
//
// A target's name appears in its own file only, and that file holds
// fuzz targets only, which hand their *testing.F and *testing.T to the
// shared code only as a TB: so go-118-fuzz-build can build each target as
// a libFuzzer binary for OSS-Fuzz and ClusterFuzzLite.
package fuzz
