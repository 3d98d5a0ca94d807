// Module campaign is the fuzz campaign runner: a program with flags of
// its own that runs pqkex's go test fuzz targets for a budget of CPU time
// each (see main.go and docs/testing.md). It is a module of its own, as
// fuzz/ossfuzz is, so that pqkex's go.mod does not carry a tool; it
// requires only pqkex (for internal/testkit/fuzzcorpus, the corpus file format).
module github.com/pqkex/pqkex/fuzz/campaign

go 1.26.0

require github.com/pqkex/pqkex v0.0.0

replace github.com/pqkex/pqkex => ../..
