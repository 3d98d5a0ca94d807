package dudect

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Case is a target to be set up inside its own subtest.
type Case struct {
	Name  string
	About string // the two classes, for the log
	Setup func(t *testing.T) Target
}

// RunCases measures every case in a subtest of t named after it and logs a
// Markdown table of the results. The environment sets the measurements per
// case (PQKEX_DUDECT_N, default 50000) and the |t| that fails a case
// (PQKEX_DUDECT_T, default 4.5); PQKEX_DUDECT_DUMP, if set, names a
// directory that receives every measurement, one TSV file per case.
func RunCases(t *testing.T, cases []Case) {
	n, err := EnvInt("PQKEX_DUDECT_N", 50000)
	if err != nil {
		t.Fatal(err)
	}
	bar, err := EnvFloat("PQKEX_DUDECT_T", 4.5)
	if err != nil {
		t.Fatal(err)
	}
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
			if dir := os.Getenv("PQKEX_DUDECT_DUMP"); dir != "" {
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
