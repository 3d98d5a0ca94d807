package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
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
// starting from the coverage of the seeds and the files already there
// (which all stay), it adds cache entries greedily, each time the one
// reaching the most statements not yet reached (the smaller on a tie),
// until none reaches more. The fuzzer minimized each entry when it found
// it. An entry that fails is reported and left out: a failing input is
// committed with its fix, by hand.
func mergeTarget(mod module, c config, t target, b *binaries) error {
	v, err := newCorpusView(mod.Dir, t)
	if err != nil {
		return err
	}
	defer v.Close()
	if err := v.add(t.testdata()); err != nil {
		return err
	}
	base, err := v.replay(b.cover, "^"+t.Name+"$", c.nice)
	if err != nil {
		return err
	}
	covered := base.hits()
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
		cands = append(cands, candidate{e.Name(), info.Size(), p.hits()})
	}
	startStmts := stmts(base, covered)
	added := greedy(base, covered, cands)
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
	fmt.Printf("%s: %d cache entries replayed; seeds and %d committed files reach %d statements; added %d files (%d bytes) reaching %d more; testdata now %d files, %d bytes\n",
		t.ID(), len(entries), len(committed), startStmts, len(added), addedBytes, stmts(base, covered)-startStmts, n, size)
	return nil
}

// stmts counts the statements of the blocks in hit.
func stmts(p profile, hit map[string]bool) (n int) {
	for k := range hit {
		n += p[k].stmts
	}
	return n
}

// A candidate is a corpus entry and the blocks it reaches.
type candidate struct {
	name string
	size int64
	hits map[string]bool
}

// greedy picks from cands, one at a time, the entry that reaches the
// most statements of p not yet in covered (the smaller, then the first
// by name, on a tie), adding what it reaches to covered, until no entry
// reaches more. It returns the entries in the order picked.
func greedy(p profile, covered map[string]bool, cands []candidate) []candidate {
	cands = append([]candidate(nil), cands...)
	sort.Slice(cands, func(i, j int) bool { return cands[i].name < cands[j].name })
	gain := func(h map[string]bool) (n int) {
		for k := range h {
			if !covered[k] {
				n += p[k].stmts
			}
		}
		return n
	}
	var picked []candidate
	for {
		best, bestGain := -1, 0
		for i, cd := range cands {
			if g := gain(cd.hits); g > bestGain || g == bestGain && g > 0 && cd.size < cands[best].size {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			return picked
		}
		for k := range cands[best].hits {
			covered[k] = true
		}
		picked = append(picked, cands[best])
		cands = append(cands[:best], cands[best+1:]...)
	}
}
