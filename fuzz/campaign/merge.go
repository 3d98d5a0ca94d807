package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// mergeAll adds to each target's committed corpus the cache entries that
// reach statements the corpus does not (mergeTarget).
func mergeAll(mod module, c config, ts []target, bins map[string]*binaries) error {
	for _, t := range ts {
		if err := mergeTarget(mod, c, t, bins[t.Pkg]); err != nil {
			return fmt.Errorf("%s: %v", t.ID(), err)
		}
	}
	return nil
}

// mergeTarget minimizes t's fuzz cache into its testdata/fuzz directory:
// starting from the features (profile.features: the statements run and
// the buckets of how often each block ran) of the seeds and the files
// already there (which all stay), each input replayed alone, it adds
// cache entries greedily, each time the one adding the most weight of
// features not yet had (the smaller on a tie), until none adds any. The fuzzer minimized each entry
// when it found it. An entry that fails is reported and left out: a
// failing input is committed with its fix, by hand.
func mergeTarget(mod module, c config, t target, b *binaries) error {
	v, err := newCorpusView(mod.Dir, t)
	if err != nil {
		return err
	}
	defer v.Close()
	if err := v.add(t.testdata()); err != nil {
		return err
	}
	// What the seeds and committed files have, each replayed alone: a
	// replay of several inputs adds up their counts.
	names, err := v.inputs(b.cover, t, c.nice)
	if err != nil {
		return err
	}
	var base profile
	covered := map[string]bool{}
	for _, name := range names {
		p, err := v.replay(b.cover, "^"+t.Name+"$/^"+regexp.QuoteMeta(name)+"$", c.nice)
		if err != nil {
			return err
		}
		base = p
		for k := range p.features() {
			covered[k] = true
		}
	}
	if base == nil {
		return fmt.Errorf("%s has no seeds or committed files", t.ID())
	}
	have, err := os.ReadDir(t.testdata())
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	committed := map[string]bool{}
	for _, e := range have {
		committed[e.Name()] = true
	}
	entries, err := os.ReadDir(t.cacheDir(c.cache))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var cands []candidate
	for _, e := range entries {
		if !e.Type().IsRegular() || committed[e.Name()] {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if err := v.reset(); err != nil {
			return err
		}
		if err := copyNew(filepath.Join(t.cacheDir(c.cache), e.Name()), filepath.Join(v.corpus, e.Name())); err != nil {
			return err
		}
		p, err := v.replay(b.cover, "^"+t.Name+"$/^"+regexp.QuoteMeta(e.Name())+"$", c.nice)
		if err != nil {
			fmt.Printf("%s: cache entry %s fails, left out:\n%v\n", t.ID(), e.Name(), err)
			continue
		}
		cands = append(cands, candidate{e.Name(), info.Size(), p.features()})
	}
	startStmts, startFeatures := stmts(base, covered), len(covered)
	added := greedy(covered, cands)
	var addedBytes int64
	for _, a := range added {
		addedBytes += a.size
	}
	if len(added) > 0 {
		if err := os.MkdirAll(t.testdata(), 0o755); err != nil {
			return err
		}
	}
	for _, a := range added {
		if err := copyNew(filepath.Join(t.cacheDir(c.cache), a.name), filepath.Join(t.testdata(), a.name)); err != nil {
			return err
		}
	}
	n, size, err := countFiles(t.testdata())
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d cache entries replayed; seeds and %d committed files reach %d statements (%d features); added %d files (%d bytes) reaching %d more statements (%d more features); testdata now %d files, %d bytes\n",
		t.ID(), len(entries), len(committed), startStmts, startFeatures, len(added), addedBytes, stmts(base, covered)-startStmts, len(covered)-startFeatures, n, size)
	return nil
}

// stmts counts the statements of the blocks among the features had
// (the keys that are blocks, not buckets).
func stmts(p profile, had map[string]bool) (n int) {
	for k := range had {
		n += p[k].stmts
	}
	return n
}

// A candidate is a corpus entry and its features with their weights.
type candidate struct {
	name  string
	size  int64
	feats map[string]int
}

// greedy picks from cands, one at a time, the entry whose features not
// yet in covered weigh the most (the smaller, then the first by name, on
// a tie), adding its features to covered, until no entry adds any. It
// returns the entries in the order picked.
func greedy(covered map[string]bool, cands []candidate) []candidate {
	cands = append([]candidate(nil), cands...)
	sort.Slice(cands, func(i, j int) bool { return cands[i].name < cands[j].name })
	gain := func(f map[string]int) (n int) {
		for k, w := range f {
			if !covered[k] {
				n += w
			}
		}
		return n
	}
	var picked []candidate
	for {
		best, bestGain := -1, 0
		for i, cd := range cands {
			if g := gain(cd.feats); g > bestGain || g == bestGain && g > 0 && cd.size < cands[best].size {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			return picked
		}
		for k := range cands[best].feats {
			covered[k] = true
		}
		picked = append(picked, cands[best])
		cands = append(cands[:best], cands[best+1:]...)
	}
}

// inputs lists what the view's replay of t runs, as go test -v names the
// subtests: its seeds ("seed#0", ...) and its corpus files.
func (v *corpusView) inputs(binary string, t target, nice int) ([]string, error) {
	cmd := exec.Command("nice", "-n", strconv.Itoa(nice), binary, "-test.run", "^"+t.Name+"$", "-test.v")
	cmd.Dir = v.pkgDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s -test.run ^%s$: %v\n%s", filepath.Base(binary), t.Name, err, out)
	}
	var names []string
	prefix := "=== RUN   " + t.Name + "/"
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, prefix); ok {
			names = append(names, name)
		}
	}
	return names, nil
}
