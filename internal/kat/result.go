// Package kat checks the known-answer vector formats that package vectors
// runs (vectors/testdata, whose README.md records their provenance)
// against pqkex: one runner per format, for every method it applies to
// (ssh.go: the SSH exchanges of all four methods; mlkem.go: the ML-KEM
// files on Targets; dh.go: Wycheproof XDH and ECDH; x25519.go: RFC 7748;
// rsp.go: the sntrup761 NIST KAT). An Exchange (exchange.go) is one way
// to run a method: its public API or its engine on one KEM backend. The
// runners take a TB: vectors.Run passes a recorder (Record) that counts
// vectors into a Result, this package's tests their *testing.T, with
// file-specific expectations and independent implementations.
//
// To add a format: a runner, a Format constant and a case in
// vectors.Detect and in vectors' run switch, and the file in
// vectors/testdata with its provenance.
package kat

import (
	"bytes"
	"fmt"
)

// Result counts the vectors of one file. Passed and Failed count
// individual vectors; Failures has one line per failed vector (its
// identifier and the first difference found), in file order. Err is set
// when the file cannot be run at all, Skipped (with no vectors) when its
// vectors are for an algorithm or parameter set pqkex does not implement.
type Result struct {
	Passed   int
	Failed   int
	Failures []string
	Skipped  string
	Err      error
}

// AccumulatedTests is the number of accumulated ML-KEM tests vectors.Run
// performs for an accumulated recipe file.
const AccumulatedTests = 10000

// record counts one vector: passed if err is nil, failed otherwise.
func (r *Result) record(id string, err error) {
	if err == nil {
		r.Passed++
		return
	}
	r.Failed++
	r.Failures = append(r.Failures, id+": "+err.Error())
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
