// Command fuzzcampaign runs the module's go test fuzz targets for a
// budget of CPU time each and reports, per target, the CPU and wall
// time, the executions, the new corpus entries, the statement coverage
// that the whole corpus reaches of the packages under test, and any
// failure with its reproducer. It keeps a JSON summary and a markdown
// table in its output directory and resumes from them: a target's
// budget is the sum of its runs there. With -merge it adds to the
// committed corpora the fuzz cache's entries that reach new coverage.
//
//	go run ./internal/fuzzcampaign [flags] [target ...]
//
// A target is named by its function name (FuzzKexInit) or by its
// package directory and name (fuzz.FuzzKexInit); with none, every target
// of the packages -pkgs matches runs, one after another. Targets are
// found as go test finds them, so a new one needs no change here. See
// docs/testing.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultExclude are the packages whose coverage is not reported: the
// test machinery that the targets use as oracles or for seeds (vector
// runners and files, sntrup761's reference, the dudect harness, the
// *test packages of deterministic randomness, fuzzcorpus) and this
// command.
const defaultExclude = `/internal/(kat|dudect|ref|fuzzcampaign|fuzzcorpus)$|/vectors$|test$`

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
	flag.BoolVar(&report, "report", false, "print the markdown table of -out's summary and exit")
	flag.BoolVar(&merge, "merge", false, "instead of fuzzing, copy the cache entries that add statement coverage into the targets' testdata/fuzz")
	flag.StringVar(&fromLibFuzzer, "from-libfuzzer", "", "instead of fuzzing, write the libFuzzer input in `file` (a crash OSS-Fuzz or ClusterFuzzLite reported) to the one target named as a go test corpus file in its testdata/fuzz")
	flag.StringVar(&export, "libfuzzer-corpus", "", "instead of fuzzing, write each target's committed corpus to `dir`/<target name>/ as inputs of its libFuzzer binary")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fuzzcampaign [flags] [target ...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
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
	for _, d := range []string{c.out, filepath.Join(c.out, "logs"), filepath.Join(c.out, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fatal(err)
		}
	}
	ts, bins, err := prepare(mod, c, list || export != "" || fromLibFuzzer != "")
	if err != nil {
		fatal(err)
	}
	switch {
	case list:
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

// campaign runs each target that has not spent its budget yet, one
// after another, recording each run in the summary as soon as it ends.
// It fails if a target failed (now or in an earlier run) or could not
// run; SIGINT or SIGTERM stops it after recording the current run.
func campaign(mod module, c config, ts []target, bins map[string]*binaries) error {
	sumFile := filepath.Join(c.out, "summary.json")
	s, err := loadSummary(sumFile, mod.Path)
	if err != nil {
		return err
	}
	commit := gitCommit(mod.Dir)
	fmt.Printf("fuzzing %d target(s) of %s at commit %s with %s: %s of CPU time each, %d workers, nice %d; cache %s\n",
		len(ts), mod.Dir, commit, runtime.Version(), c.budget, c.parallel, c.nice, c.cache)
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; close(stop) }()
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}

	var bad []string
	for _, t := range ts {
		rec := s.Targets[t.ID()]
		if rec == nil {
			rec = &record{Target: t.ID(), Package: t.Pkg}
			s.Targets[t.ID()] = rec
		}
		// Runs until the budget is spent: a run can end early without a
		// finding (an unconfirmed hang, see confirmHang), up to
		// maxUnconfirmed times in a row.
		for unconfirmed := 0; ; {
			if f := rec.failed(); f != nil {
				fmt.Printf("== %s: failed in an earlier run (commit %s): %s\n", t.ID(), f.Commit, f.Reproducer)
				bad = append(bad, t.ID())
				break
			}
			left := c.budget - rec.cpu()
			if left <= 0 {
				fmt.Printf("== %s: done, %s of CPU time in %d run(s)\n", t.ID(), rec.cpu().Round(time.Second), len(rec.Runs))
				break
			}
			if stopped() {
				return fmt.Errorf("interrupted before %s", t.ID())
			}
			fmt.Printf("== %s: fuzzing for %s of CPU time with %d workers (%s)\n", t.ID(), left.Round(time.Second), c.parallel, time.Now().Format(time.DateTime))
			x, err := runTarget(mod, c, t, bins[t.Pkg], left, commit, stop)
			if err != nil {
				return err
			}
			rec.Runs = append(rec.Runs, x)
			if err := s.save(sumFile); err != nil {
				return err
			}
			if err := writeMarkdown(s, filepath.Join(c.out, "summary.md"), c.exclude); err != nil {
				return err
			}
			printRun(os.Stdout, t, x, c.budget)
			if stopped() {
				return fmt.Errorf("interrupted during %s (its run is recorded; run again to resume)", t.ID())
			}
			if x.Status == "unconfirmed" {
				if unconfirmed++; unconfirmed < maxUnconfirmed {
					continue
				}
			}
			if x.Status != "ok" && x.Status != "interrupted" {
				bad = append(bad, t.ID())
			}
			break
		}
	}
	fmt.Printf("\nsummary: %s\ntable: %s\n", sumFile, filepath.Join(c.out, "summary.md"))
	if len(bad) > 0 {
		return fmt.Errorf("%d target(s) failed or could not run: %s", len(bad), strings.Join(bad, " "))
	}
	return nil
}

// runTarget fuzzes t for budget and measures the corpus's coverage.
func runTarget(mod module, c config, t target, b *binaries, budget time.Duration, commit string, stop <-chan struct{}) (*run, error) {
	cacheDir, testdata := t.cacheDir(c.cache), t.testdata()
	before, _, err := countFiles(cacheDir)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(c.out, "logs", strings.ReplaceAll(t.ID(), "/", "_")+".log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	x := &run{Commit: commit, GoVersion: runtime.Version(), Started: time.Now().UTC(), BudgetSeconds: budget.Seconds(),
		Parallel: c.parallel, CacheDir: cacheDir, Log: logPath}
	fmt.Fprintf(log, "==== %s: %s of CPU time, %d workers, commit %s, %s\n", t.ID(), budget, c.parallel, commit, x.Started.Format(time.RFC3339))
	o := runOpts{budget: budget, parallel: c.parallel, nice: c.nice, cacheRoot: c.cache, minimize: c.minimize,
		grace: c.grace, progress: os.Stdout, progressDur: c.progress}
	res, err := fuzz(t, b.fuzz, o, log, stop)
	if err != nil {
		return nil, err
	}
	x.CPUSeconds, x.WallSeconds = res.CPU.Seconds(), res.Wall.Seconds()
	x.Execs, x.Baseline, x.NewInteresting = res.Execs, res.Baseline, res.NewInteresting
	x.Reproducer, x.Rerun, x.FailureExcerpt = res.Reproducer, res.Rerun, res.FailureExcerpt
	x.Status, x.Error, x.Note = classify(res, logPath)
	if x.Status == "failed" {
		if err := keepReproducer(c, t, b, x); err != nil {
			return nil, err
		}
	}
	after, _, err := countFiles(cacheDir)
	if err != nil {
		return nil, err
	}
	x.NewEntries = after - before
	x.CacheFiles = after
	if x.TestdataFiles, _, err = countFiles(testdata); err != nil {
		return nil, err
	}
	cov, err := corpusCoverage(mod, c, t, b, cacheDir, testdata)
	if err != nil {
		x.CoverageError = err.Error()
	}
	x.Coverage = cov
	return x, nil
}

// corpusCoverage replays t's whole corpus, seeds, testdata and cache,
// with the coverage binary.
func corpusCoverage(mod module, c config, t target, b *binaries, cacheDir, testdata string) ([]pkgCoverage, error) {
	v, err := newCorpusView(mod.Dir, t)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	for _, d := range []string{testdata, cacheDir} {
		if err := v.add(d); err != nil {
			return nil, err
		}
	}
	p, err := v.replay(b.cover, "^"+t.Name+"$", c.nice)
	if err != nil {
		return nil, err
	}
	init, err := v.replay(b.cover, "^$", c.nice)
	if err != nil {
		return nil, err
	}
	return p.byPackage(init), nil
}

func printRun(w io.Writer, t target, x *run, budget time.Duration) {
	fmt.Fprintf(w, "== %s: %s\n", t.ID(), x.Status)
	fmt.Fprintf(w, "   CPU time %s (this run; budget %s in all), wall time %s, %d workers\n",
		dur(x.CPUSeconds), budget, dur(x.WallSeconds), x.Parallel)
	fmt.Fprintf(w, "   executions %d, new corpus entries %d (the fuzzer counted %d new interesting), corpus now %d testdata + %d cache files, started from %d entries\n",
		x.Execs, x.NewEntries, x.NewInteresting, x.TestdataFiles, x.CacheFiles, x.Baseline)
	for _, cv := range x.Coverage {
		if cv.Reached {
			fmt.Fprintf(w, "   coverage of %s: %.1f%% (%d of %d statements)\n", cv.Package, cv.Percent, cv.Covered, cv.Statements)
		}
	}
	if x.CoverageError != "" {
		// The replay of a failing input fails too; its first lines
		// say how (the summary has all).
		lines := strings.SplitN(x.CoverageError, "\n", 9)
		fmt.Fprintf(w, "   coverage: replaying the corpus failed:\n%s\n", indent(strings.Join(lines[:min(len(lines), 8)], "\n")))
	}
	if x.Status == "failed" {
		fmt.Fprintf(w, "   FAILURE: reproducer %s\n   to re-run: (cd %s && go test -run='%s' .)\n%s\n", x.Reproducer, t.Dir, x.Rerun, indent(x.FailureExcerpt))
	}
	if x.Error != "" && x.Status != "failed" {
		fmt.Fprintf(w, "   ERROR: %s\n", x.Error)
	}
	if x.Note != "" {
		fmt.Fprintf(w, "   note: %s\n", x.Note)
	}
	fmt.Fprintf(w, "   log: %s\n", x.Log)
}

func indent(s string) string {
	return "   | " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n   | ")
}

func writeMarkdown(s *summary, file string, exclude *regexp.Regexp) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	s.markdown(f, exclude)
	return f.Close()
}

// gitCommit returns the commit checked out in dir, with "+dirty" when
// tracked files differ from it, or "unknown" outside git.
func gitCommit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(st) > 0 {
		commit += "+dirty"
	}
	return commit
}
