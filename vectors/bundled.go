package vectors

import "embed"

// Bundled holds the bundled vector files, testdata/ as in the source tree
// (with its README.md, which records their provenance), for programs that
// run them, such as "pqkex kat". The embedding lives here because an embed
// pattern cannot reach a parent directory; only the tests and cmd/pqkex
// import this package, and the linker drops the data from binaries that
// do not use Bundled.
//
//go:embed testdata
var Bundled embed.FS
