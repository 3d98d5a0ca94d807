// Module ossfuzz pins the tool that builds pqkex's go test fuzz targets
// as libFuzzer binaries, as OSS-Fuzz and ClusterFuzzLite do
// (.clusterfuzzlite/build.sh, scripts/libfuzzer.sh), and the version of
// its testing shim that the build adds to pqkex's go.mod in the build's
// own copy of the tree; its test checks the seed encoding of
// internal/testkit/fuzzcorpus against that shim. It is a module of its own so
// that pqkex's go.mod does not grow.
module github.com/pqkex/pqkex/fuzz/ossfuzz

go 1.26.0

tool github.com/AdamKorcz/go-118-fuzz-build

require (
	github.com/AdaLogics/go-fuzz-headers v0.0.0-20230811130428-ced1acdcaa24 // indirect
	golang.org/x/mod v0.6.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/tools v0.2.0 // indirect
)

require (
	github.com/AdamKorcz/go-118-fuzz-build v0.0.0-20250520111509-a70c2aa677fa
	github.com/pqkex/pqkex v0.0.0
)

replace github.com/pqkex/pqkex => ../..
