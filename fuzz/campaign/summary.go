package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A summary is the campaign's record, kept as JSON in the output
// directory: every run of every target, so that a later invocation
// resumes (a target's CPU time is the sum of its runs) and the tables
// are made from it.
type summary struct {
	Module  string             `json:"module"`
	Targets map[string]*record `json:"targets"` // by target.ID
}

type record struct {
	Target  string `json:"target"` // target.ID
	Package string `json:"package"`
	Runs    []*run `json:"runs"`
}

// A run is one fuzzing run of a target and the coverage of its corpus
// afterwards.
type run struct {
	Commit    string    `json:"commit"` // the module's git commit, "+dirty" if it had changes
	GoVersion string    `json:"go_version"`
	Started   time.Time `json:"started"`
	// Status is "ok" (the budget was spent without a failure), "failed"
	// (the fuzzer found a failing input: Reproducer), "unconfirmed" (it
	// reported a hung worker whose input then passed: see confirmHang),
	// "interrupted" (the runner was stopped first) or "error" (the fuzzer
	// exited otherwise).
	Status         string  `json:"status"`
	BudgetSeconds  float64 `json:"budget_cpu_seconds"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
	Parallel       int     `json:"parallel"`
	Execs          int64   `json:"execs"`
	Baseline       int     `json:"baseline_entries"` // seeds + testdata + cache entries at the start
	NewInteresting int     `json:"new_interesting"`  // as the fuzzer counted them
	NewEntries     int     `json:"new_cache_entries"`
	// The corpus after the run: committed files (testdata/fuzz/<target>)
	// and the fuzz cache's.
	TestdataFiles int    `json:"testdata_files"`
	CacheFiles    int    `json:"cache_files"`
	CacheDir      string `json:"cache_dir"`
	// Coverage is the statement coverage of the packages under test that
	// replaying the whole corpus (seeds, testdata and cache) reaches.
	Coverage       []pkgCoverage `json:"coverage"`
	CoverageError  string        `json:"coverage_error,omitempty"`
	Error          string        `json:"error,omitempty"`
	Note           string        `json:"note,omitempty"`
	Reproducer     string        `json:"reproducer,omitempty"`
	Kept           string        `json:"reproducer_copy,omitempty"` // in the output directory
	ReplaySeconds  float64       `json:"replay_seconds,omitempty"`  // of the reproducer, for a hang
	Rerun          string        `json:"rerun,omitempty"`
	FailureExcerpt string        `json:"failure_excerpt,omitempty"`
	Log            string        `json:"log"`
}

func loadSummary(file, modPath string) (*summary, error) {
	s := &summary{Module: modPath, Targets: map[string]*record{}}
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if s.Module != modPath {
		return nil, fmt.Errorf("%s is the summary of module %s, not %s", file, s.Module, modPath)
	}
	if s.Targets == nil {
		s.Targets = map[string]*record{}
	}
	return s, nil
}

// save writes the summary to file through a temporary file, so that an
// interruption leaves the previous one whole.
func (s *summary) save(file string) error {
	data, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// cpu is the CPU time of the target's runs that count towards its
// budget: all but those that ended in an error.
func (r *record) cpu() time.Duration {
	var sec float64
	for _, x := range r.Runs {
		if x.Status != "error" {
			sec += x.CPUSeconds
		}
	}
	return time.Duration(sec * float64(time.Second))
}

// failed reports the target's last failing run, if any run failed.
func (r *record) failed() *run {
	for i := len(r.Runs) - 1; i >= 0; i-- {
		if r.Runs[i].Status == "failed" {
			return r.Runs[i]
		}
	}
	return nil
}

// markdown writes the table of the summary: per target the sums over
// its runs (CPU, wall, executions, new entries), the corpus and coverage
// after its last run (of the packages it reaches but those matching
// exclude), and its result.
func (s *summary) markdown(w io.Writer, exclude *regexp.Regexp) {
	ids := make([]string, 0, len(s.Targets))
	for id := range s.Targets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintln(w, "| target | CPU time | wall time | executions | new entries | corpus (testdata + cache) | statement coverage of the corpus | result | commit |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---|---|")
	for _, id := range ids {
		r := s.Targets[id]
		if len(r.Runs) == 0 {
			continue
		}
		var wall float64
		var execs int64
		var newEntries int
		commits := []string{}
		results := map[string]int{}
		for _, x := range r.Runs {
			wall += x.WallSeconds
			execs += x.Execs
			newEntries += x.NewEntries
			results[x.Status]++
			c := shortCommit(x.Commit)
			if len(commits) == 0 || commits[len(commits)-1] != c {
				commits = append(commits, c)
			}
		}
		last := r.Runs[len(r.Runs)-1]
		var cov []string
		for _, c := range last.Coverage {
			if c.Reached && !exclude.MatchString(c.Package) {
				cov = append(cov, fmt.Sprintf("%s %.1f%% (%d/%d)", strings.TrimPrefix(strings.TrimPrefix(c.Package, s.Module), "/"), c.Percent, c.Covered, c.Statements))
			}
		}
		if last.CoverageError != "" {
			cov = append(cov, "coverage run failed")
		}
		var res []string
		for _, st := range []string{"ok", "failed", "unconfirmed", "interrupted", "error"} {
			if n := results[st]; n > 0 {
				res = append(res, fmt.Sprintf("%d %s", n, st))
			}
		}
		result := strings.Join(res, ", ") + " run(s)"
		if f := r.failed(); f != nil {
			result += ": FAILED, " + path.Base(f.Reproducer)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %d | %d | %d + %d | %s | %s | %s |\n", id, dur(r.cpu().Seconds()), dur(wall), execs, newEntries,
			last.TestdataFiles, last.CacheFiles, strings.Join(cov, "; "), result, strings.Join(commits, ", "))
	}
}

// dur formats seconds as the table shows them: 35m12s, 1h02m03s.
func dur(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	}
	return fmt.Sprintf("%dm%02ds", m, s)
}

// shortCommit shortens a commit hash to 12 digits, keeping "+dirty".
func shortCommit(c string) string {
	hash, dirty := strings.CutSuffix(c, "+dirty")
	if len(hash) > 12 {
		hash = hash[:12]
	}
	if dirty {
		hash += "+dirty"
	}
	return hash
}
