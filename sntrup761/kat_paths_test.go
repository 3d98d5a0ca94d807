package sntrup761_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/vectors"
)

// TestKnownAnswersBothPaths runs the bundled sntrup761 vector files (the
// NIST KAT's 100 counts and the sntrup761x25519-sha512 exchanges) with the
// AVX2 assembly path on, then forced off in the same binary: both must
// pass every vector. (With -tags purego, or without AVX2, both runs are
// of the scalar code.)
func TestKnownAnswersBothPaths(t *testing.T) {
	files, err := fs.Glob(vectors.Bundled(), "sntrup761*")
	if err != nil || len(files) < 2 {
		t.Fatalf("bundled sntrup761 files %v (%v)", files, err)
	}
	defer sntrup761.UseVectorPath(sntrup761.UseVectorPath(true))
	for _, on := range []bool{true, false} {
		sntrup761.UseVectorPath(on)
		active := sntrup761.UseVectorPath(on) // what the first call set
		for _, name := range files {
			data, err := fs.ReadFile(vectors.Bundled(), name)
			if err != nil {
				t.Fatal(err)
			}
			r := vectors.Run(name, data)
			t.Logf("assembly path %v: %s: %d passed, %d failed", active, name, r.Passed, r.Failed)
			if r.Err != nil || r.Failed != 0 || r.Passed == 0 || r.Skipped != "" {
				t.Errorf("assembly path %v: %s: %d passed, %d failed, skipped %q, %v %s",
					active, name, r.Passed, r.Failed, r.Skipped, r.Err, strings.Join(r.Failures, "; "))
			}
		}
	}
}
