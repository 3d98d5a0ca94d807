// Package kat runs the known-answer vector formats of package vectors
// (vectors/testdata, whose README.md records their provenance) against
// pqkex: Detect and Methods.Run (formats.go: the table of formats), and
// one runner per format, for every method it applies to (ssh.go and
// ssh_edge.go: the SSH exchanges of all four methods; mlkem.go: the
// ML-KEM files on Targets, targets.go; dh.go: Wycheproof XDH and ECDH;
// x25519.go: RFC 7748; run_sntrup761.go: the sntrup761 NIST KAT).
// Baseline and XCrypto are straightforward standard-library and x/crypto
// implementations to measure against. An Exchange (exchange.go) is one
// way to run a method: its public API (Public, from the method package's
// NewClient and Respond, which the caller passes in: this package
// imports no method package) or its engine on one KEM backend. The
// runners take a TB (tb.go): Run passes a recorder that counts vectors
// into a Result, this package's tests their *testing.T, with
// file-specific expectations and independent implementations.
package kat

import (
	"bytes"
	"fmt"
)

// Result is the outcome of running one vector file (package vectors
// documents it as vectors.Result). File labels it; Format is the name of
// the file's format (Detect), empty if none was recognised. Passed and
// Failed count individual vectors; Failures has one line per failed
// vector (its identifier and the first difference found), in file order,
// for the first maxFailures of them. A file that was recognised but does
// not parse or cannot be read has Err set and counts as one failed
// vector; a file that is not run at all has Skipped set (the reason) and
// no vectors.
type Result struct {
	File     string
	Format   string
	Passed   int
	Failed   int
	Failures []string
	Skipped  string
	Err      error
}

// AccumulatedTests is the number of accumulated ML-KEM tests Run performs
// for an accumulated recipe file.
const AccumulatedTests = 10000

// Short makes Run the quick loop's run (go test -short), as crypto/mlkem
// sizes its accumulated test: the accumulated recipes at ShortVectors
// tests instead of AccumulatedTests, and every other file at its first
// ShortVectors vectors. Only the vectors package's tests set it, under
// -short and for the test's duration (TestBundled, TestRunDetectsChange:
// its quick helper); pqkex kat never does.
var Short bool

// ShortVectors is Short's size: the accumulated files publish the hash
// after 100 tests.
const ShortVectors = 100

// What one file can make the runners do and keep: a hostile file must
// not run for hours or fill memory. A gzipped file may decompress to
// maxDecompressed bytes and a line-based file (.rsp, CCTV's) hold
// maxLines lines, each 20 times the largest bundled one (3.2 MB, 1040
// lines); beyond, the file fails as a whole. Of the failed vectors, the
// first maxFailures keep their message.
const (
	maxDecompressed = 64 << 20
	maxLines        = 20000
	maxFailures     = 100
)

// record counts one vector: passed if err is nil, failed otherwise.
func (r *Result) record(id string, err error) {
	if err == nil {
		r.Passed++
		return
	}
	r.fail(id + ": " + err.Error())
}

// fail counts one failed vector and keeps msg if fewer than maxFailures
// are kept.
func (r *Result) fail(msg string) {
	r.Failed++
	if len(r.Failures) < maxFailures {
		r.Failures = append(r.Failures, msg)
	}
}

// equal returns an error naming what if got and want differ.
func equal(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s differs", what)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
