package sntrup761_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/selfexec"
)

// coreInit is the line GODEBUG=inittrace=1 prints for the core's package
// initialisation: its heap bytes and allocations.
var coreInit = regexp.MustCompile(`(?m)^init github\.com/pqkex/pqkex/sntrup761/internal/core @.*, ([0-9]+) bytes, ([0-9]+) allocs$`)

// TestInitBuildsNoTables: linking the package costs nothing at start-up.
// Every program with an SSH method links it (the hybrid engine imports
// it), mlkem768nistp256 alone in a FIPS 140-3 deployment too, so the
// core builds its tables (FFT plans, radix codecs, the R/3 factor
// tables) on first use, not at init. This test binary (which holds none
// of the core's tests) runs again with GODEBUG=inittrace=1 and no test,
// and the core's init must allocate next to nothing (building the tables
// allocates about 440 KB in 566 allocations).
func TestInitBuildsNoTables(t *testing.T) {
	cmd, err := selfexec.Command("-test.run=^$", "-test.count=1")
	if err != nil {
		t.Fatal(err)
	}
	godebug := "inittrace=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + godebug
	}
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := coreInit.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no inittrace line for the core in the child's output:\n%s", out)
	}
	bytes, _ := strconv.Atoi(string(m[1]))
	allocs, _ := strconv.Atoi(string(m[2]))
	const maxBytes, maxAllocs = 4096, 64
	if bytes > maxBytes || allocs > maxAllocs {
		t.Errorf("the core's init allocates %d bytes in %d allocations, want at most %d in %d: a table is built at init", bytes, allocs, maxBytes, maxAllocs)
	}
	t.Logf("the core's init: %d bytes, %d allocations", bytes, allocs)
}
