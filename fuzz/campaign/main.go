// Command fuzzcampaign runs the module's go test fuzz targets for a
// budget of CPU time each and reports, per target, the CPU and wall
// time, the executions, the new corpus entries, the statement coverage
// that the whole corpus reaches of the packages under test, and any
// failure with its reproducer. It keeps a JSON summary and a markdown
// table in its output directory and resumes from them: a target's
// budget is the sum of its runs there. With -merge it adds to the
// committed corpora the fuzz cache's entries that reach new coverage.
//
//	go -C fuzz/campaign run . -C ../.. [flags] [target ...]
//
// It is a module of its own (fuzz/campaign), so it is run with go -C from
// anywhere in pqkex's tree, and its own -C names the module whose
// targets it fuzzes (like go's -C, it changes directory first, so the
// other flags' relative paths are relative to that directory).
//
// A target is named by its function name (FuzzX) or by its
// package directory and name (fuzz.FuzzX); with none, every target
// of the packages -pkgs matches runs, one after another. Targets are
// found as go test finds them, so a new one needs no change here. See
// docs/testing.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// defaultExclude are the packages whose coverage is not reported: the
// test machinery that the targets use as oracles or for seeds (vector
// runners and files, sntrup761's reference, the test kits of
// internal/testkit, among them fuzzcorpus, and the *test packages of
// deterministic randomness).
const defaultExclude = `/internal/(kat|ref|testkit/[^/]+)$|/vectors$|test$`

type config struct {
	pkgs, out, cache, minimize string
	budget, grace, progress    time.Duration
	parallel, nice             int
	exclude                    *regexp.Regexp
	names                      []string
}

func main() {
	var c config
	var exclude string
	var list, report, merge bool
	var dir string
	var export, fromLibFuzzer string
	flag.StringVar(&c.pkgs, "pkgs", "./...", "packages to look for fuzz targets in (go list patterns, space-separated)")
	flag.DurationVar(&c.budget, "budget", 35*time.Minute, "CPU time per target: the fuzz process tree's user+system time, summed over the target's runs in the summary")
	flag.IntVar(&c.parallel, "parallel", 2, "fuzz workers per target (go test -parallel)")
	flag.IntVar(&c.nice, "nice", 19, "nice increment of the fuzzing and coverage processes")
	flag.StringVar(&c.out, "out", filepath.Join(os.TempDir(), "fuzzcampaign"), "output directory: summary.json, summary.md, logs/, bin/")
	flag.StringVar(&c.cache, "cache", "", "fuzz cache root, entries in <cache>/<import path>/<target> (default $GOCACHE/fuzz, go test's)")
	// go test's default is 60s: a target whose inputs must keep their
	// size (a method's C_INIT or S_REPLY) spends it all on every new input
	// without shrinking it, while no other input is tried by that worker.
	flag.StringVar(&c.minimize, "minimizetime", "10s", "go test -fuzzminimizetime: how long the fuzzer minimizes each new input (a duration, or Nx runs)")
	flag.DurationVar(&c.grace, "grace", 2*time.Minute, "wall time a fuzzer may take to stop after its budget is spent before it is killed")
	flag.DurationVar(&c.progress, "progress", 5*time.Minute, "wall time between progress lines")
	flag.StringVar(&exclude, "exclude", defaultExclude, "regular expression of import paths whose coverage is not reported")
	flag.BoolVar(&list, "list", false, "print one line per target, tab-separated: its ID, import path, directory, file, and the packages whose coverage is reported; then exit")
	flag.StringVar(&dir, "C", "", "change to `dir` before anything else: the module whose fuzz targets it runs (default: the current directory's)")
	flag.BoolVar(&report, "report", false, "print the markdown table of -out's summary and exit")
	flag.BoolVar(&merge, "merge", false, "instead of fuzzing, copy the cache entries that add coverage (statements, or buckets of block counts) into the targets' testdata/fuzz")
	flag.StringVar(&fromLibFuzzer, "from-libfuzzer", "", "instead of fuzzing, write the libFuzzer input in `file` (a crash OSS-Fuzz or ClusterFuzzLite reported) to the one target named as a go test corpus file in its testdata/fuzz")
	flag.StringVar(&export, "libfuzzer-corpus", "", "instead of fuzzing, write each target's committed corpus to `dir`/<target name>/ as inputs of its libFuzzer binary")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fuzzcampaign [flags] [target ...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			fatal(err)
		}
	}
	c.names = flag.Args()
	var err error
	if c.exclude, err = regexp.Compile(exclude); err != nil {
		fatal(err)
	}
	if c.parallel < 1 || c.budget <= 0 {
		fatal(fmt.Errorf("-parallel and -budget must be positive"))
	}
	mod, err := mainModule()
	if err != nil {
		fatal(err)
	}
	if report {
		s, err := loadSummary(filepath.Join(c.out, "summary.json"), mod.Path)
		if err != nil {
			fatal(err)
		}
		s.markdown(os.Stdout, c.exclude)
		return
	}
	if c.cache == "" {
		gocache, err := goCmd("env", "GOCACHE")
		if err != nil {
			fatal(err)
		}
		c.cache = filepath.Join(strings.TrimSpace(gocache), "fuzz")
	}
	if c.out, err = filepath.Abs(c.out); err != nil {
		fatal(err)
	}
	if c.cache, err = filepath.Abs(c.cache); err != nil {
		fatal(err)
	}
	noBuild := list || export != "" || fromLibFuzzer != ""
	for _, d := range []string{c.out, filepath.Join(c.out, "logs"), filepath.Join(c.out, "bin")} {
		if noBuild {
			break
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			fatal(err)
		}
	}
	ts, bins, err := prepare(mod, c, noBuild)
	if err != nil {
		fatal(err)
	}
	switch {
	case list:
		for _, t := range ts {
			if err := namedOnce(t); err != nil {
				fatal(err)
			}
		}
		for _, t := range ts {
			fmt.Printf("%s\t%s\t%s\t%s\t%s\n", t.ID(), t.Pkg, t.Dir, t.File, strings.Join(bins[t.Pkg].coverPkgs, " "))
		}
	case export != "":
		if err := exportLibFuzzer(ts, export); err != nil {
			fatal(err)
		}
	case fromLibFuzzer != "":
		if len(c.names) != 1 || len(ts) != 1 {
			fatal(fmt.Errorf("-from-libfuzzer takes one target"))
		}
		if err := importLibFuzzer(ts[0], fromLibFuzzer); err != nil {
			fatal(err)
		}
	case merge:
		if err := mergeAll(mod, c, ts, bins); err != nil {
			fatal(err)
		}
	default:
		if err := campaign(mod, c, ts, bins); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fuzzcampaign:", err)
	os.Exit(1)
}

// binaries are a package's two test binaries: one instrumented for
// fuzzing as go test -fuzz builds it, one built for coverage of the
// packages under test.
type binaries struct {
	fuzz, cover string
	coverPkgs   []string
}

// prepare finds the targets named in c (all without names) and builds
// the binaries of their packages; with noBuild it only finds the targets
// (from their test files) and the packages of their coverage.
func prepare(mod module, c config, noBuild bool) ([]target, map[string]*binaries, error) {
	pkgs, err := fuzzPackages(mod, strings.Fields(c.pkgs))
	if err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	for _, n := range c.names {
		want[n] = true
	}
	found := map[string]bool{}
	var ts []target
	bins := map[string]*binaries{}
	for _, p := range pkgs {
		var names []string
		for _, n := range p.fuzzFuncs {
			id := p.Rel + "." + n
			if len(want) == 0 || want[n] || want[id] {
				found[n], found[id] = true, true
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		b := &binaries{}
		bins[p.Path] = b
		if b.coverPkgs, err = coverPackages(mod, p, c.exclude); err != nil {
			return nil, nil, err
		}
		if noBuild {
			for _, n := range names {
				ts = append(ts, p.target(n))
			}
			continue
		}
		base := filepath.Join(c.out, "bin", strings.ReplaceAll(p.Rel, "/", "_"))
		b.fuzz, b.cover = base+".fuzz.test", base+".cover.test"
		fmt.Printf("building %s's test binaries (for fuzzing, and for coverage of %s)\n", p.Path, strings.Join(b.coverPkgs, " "))
		if err := build(c, p, "-fuzz", "^Fuzz", "-o", b.fuzz); err != nil {
			return nil, nil, err
		}
		// count mode: statement coverage from counts > 0, and the
		// counts' buckets for -merge (profile.features).
		coverArgs := []string{"-cover", "-covermode", "count", "-o", b.cover}
		if len(b.coverPkgs) > 0 {
			coverArgs = append(coverArgs, "-coverpkg", strings.Join(b.coverPkgs, ","))
		}
		if err := build(c, p, coverArgs...); err != nil {
			return nil, nil, err
		}
		listed, err := listTargets(p, b.fuzz)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range listed {
			if len(want) == 0 || want[t.Name] || want[t.ID()] {
				ts = append(ts, t)
			}
		}
	}
	for _, n := range c.names {
		if !found[n] {
			return nil, nil, fmt.Errorf("no fuzz target %s in %s", n, c.pkgs)
		}
	}
	if len(ts) == 0 {
		return nil, nil, fmt.Errorf("no fuzz targets in %s", c.pkgs)
	}
	// Named targets run in the order named.
	order := func(t target) int {
		for i, n := range c.names {
			if n == t.Name || n == t.ID() {
				return i
			}
		}
		return 0
	}
	sort.SliceStable(ts, func(i, j int) bool { return order(ts[i]) < order(ts[j]) })
	return ts, bins, nil
}

func build(c config, p pkg, args ...string) error {
	cmd := exec.Command("nice", append([]string{"-n", strconv.Itoa(c.nice), "go", "test", "-c"}, append(args, p.Path)...)...)
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %v", p.Path, err)
	}
	return nil
}
