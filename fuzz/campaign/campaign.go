package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"
)

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
		fmt.Fprintf(w, "   FAILURE: reproducer %s (a copy: %s)\n   to re-run: (cd %s && go test -run='%s' .)\n%s\n",
			x.Reproducer, x.Kept, t.Dir, x.Rerun, indent(x.FailureExcerpt))
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
