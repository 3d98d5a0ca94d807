package dudect

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// Case is a target to be set up inside its own subtest.
type Case struct {
	Name  string
	About string // the two classes, for the log
	Setup func(t *testing.T) Target
}

// Measurements is how many measurements RunCases takes per case (the
// usual bar of dudect-style checks), and Bar the |t| that fails a case.
const (
	Measurements = 1_000_000
	Bar          = 4.5
)

// dumpDir and countSpec are the test binary's -dudect.dump and
// -dudect.count flags (for the few tests that import this package, run
// one package at a time).
var (
	dumpDir   = flag.String("dudect.dump", "", "RunCases: write every measurement to a TSV file per case in `dir`")
	countSpec = flag.String("dudect.count", "", "CountCases: run `NAME:CLASS:K`, K inputs of class CLASS of case NAME, for an instruction counter")
)

// RunCases measures every case in a subtest of t named after it and logs a
// Markdown table of the results: Measurements per case, failing a case at
// |t| >= Bar. It is a long run (tier.Long: minutes to an hour) and skips t
// otherwise. With -dudect.dump DIR every measurement goes to DIR, one TSV
// file ("class<TAB>ns" lines) per case.
func RunCases(t *testing.T, cases []Case) {
	tier.SkipUnlessLong(t, "10^6 timed measurements per case")
	n, bar := Measurements, Bar
	t.Logf("%d measurements per test, fail at |t| >= %v", n, bar)
	var results []Result
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Logf("%s: %s", c.Name, c.About)
			tg := c.Setup(t)
			tg.Name = c.Name
			opts := Options{
				Measurements:  n,
				Progress:      func(r Result) { t.Logf("progress: %v", r) },
				ProgressEvery: time.Minute,
			}
			if dir := *dumpDir; dir != "" {
				f, err := os.Create(filepath.Join(dir, strings.ReplaceAll(c.Name, "/", "_")+".tsv"))
				if err != nil {
					t.Fatal(err)
				}
				w := bufio.NewWriter(f)
				defer func() {
					if err := w.Flush(); err != nil {
						t.Error(err)
					}
					if err := f.Close(); err != nil {
						t.Error(err)
					}
				}()
				opts.Record = func(class int, ns int64) { fmt.Fprintf(w, "%d\t%d\n", class, ns) }
			}
			r := Measure(tg, opts)
			r.Judge(bar)
			results = append(results, r)
			t.Logf("%v", r)
			if !r.Passed {
				t.Errorf("%s: max |t| = %.2f >= %v: timing differs between the classes", c.Name, r.MaxT, bar)
			}
		})
	}
	if len(results) > 0 {
		t.Logf("results:\n%s", Table(results))
	}
}

// CountCases runs one case on inputs of one class without timing, for
// counting instructions with a noise-free tool such as valgrind's
// callgrind: -dudect.count NAME:CLASS:K prepares K inputs of class
// CLASS for the case NAME and runs each through runOne, which calls
// tg.Run(i) and is what the tool is told to count (a //go:noinline
// function of the caller's, so that the tool can find it by name). It
// skips t without -dudect.count. Equal instruction counts
// for the two classes (with the same K) mean that the instruction stream
// does not depend on the class.
//
// Go's scheduler asks a goroutine that has run for 10 ms to yield at its
// next function prologue, which adds a few instructions to the function
// it hits (a retried stack check and a call of runtime.morestack) and
// some to the runtime. Each input therefore runs right after a
// runtime.Gosched, outside the counted region, so only an operation that
// takes over 10 ms under the tool can be preempted; compare the counts of
// such functions with their calls of runtime.morestack in mind.
func CountCases(t *testing.T, cases []Case, runOne func(tg Target, i int)) {
	spec := *countSpec
	if spec == "" {
		t.Skip("no -dudect.count NAME:CLASS:K")
	}
	i := strings.LastIndexByte(spec, ':')
	j := strings.LastIndexByte(spec[:max(i, 0)], ':')
	if j < 0 {
		t.Fatalf("-dudect.count %q: want NAME:CLASS:K", spec)
	}
	name := spec[:j]
	class, err1 := strconv.Atoi(spec[j+1 : i])
	k, err2 := strconv.Atoi(spec[i+1:])
	if err1 != nil || err2 != nil || class < 0 || class > 1 || k < 1 {
		t.Fatalf("-dudect.count %q: want NAME:CLASS:K", spec)
	}
	for _, c := range cases {
		if c.Name != name {
			continue
		}
		tg := c.Setup(t)
		slots := tg.Slots
		if slots <= 0 {
			slots = 1000
		}
		if k >= slots {
			t.Fatalf("K = %d: at most %d for %s", k, slots-1, name)
		}
		for i := range k + 1 {
			tg.Prepare(i, class)
		}
		// With the collector off, a first run outside the counted region
		// grows the goroutine stack for good: a stack copy inside runOne
		// would confuse callgrind's tracking of it.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		runtime.GC()
		tg.Run(k)
		for i := range k {
			runtime.Gosched()
			runOne(tg, i)
		}
		t.Logf("%s: ran %d inputs of class %d", name, k, class)
		return
	}
	t.Fatalf("no target %q", name)
}
