package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// coverPackages returns the packages whose coverage is measured for the
// targets of p: the main module's packages that p's test binary links,
// p itself included when it has code of its own, except those matching
// exclude (test machinery: oracles, vector runners, references).
func coverPackages(mod module, p pkg, exclude *regexp.Regexp) ([]string, error) {
	out, err := goCmd("list", "-deps", "-test", "-f", "{{if .Module}}{{if eq .Module.Path \""+mod.Path+"\"}}{{.ImportPath}}\t{{len .GoFiles}}{{end}}{{end}}", p.Path)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		ip, n, _ := strings.Cut(line, "\t")
		ip, variant, _ := strings.Cut(ip, " ") // "x [p.test]" is x built for p's tests
		// p's own variant counts its test files as GoFiles: its plain
		// entry says whether it has code of its own.
		if ip == "" || strings.HasSuffix(ip, ".test") || ip == p.Path && variant != "" || n == "0" || seen[ip] || exclude.MatchString(ip) {
			continue
		}
		seen[ip] = true
		pkgs = append(pkgs, ip)
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

// A corpusView is a directory tree that shows the module root through
// symbolic links, except the target's corpus directory
// <rel>/testdata/fuzz/<target>, which is a real directory holding the
// entries to replay. A test binary run in <view>/<rel> finds the files
// it reads relative to its package (../vectors/...) and replays exactly
// the chosen entries, and the module's own testdata stays untouched.
type corpusView struct {
	root   string // the view's root
	pkgDir string // <root>/<rel>
	corpus string // <root>/<rel>/testdata/fuzz/<target>
}

func newCorpusView(modRoot string, t target) (*corpusView, error) {
	root, err := os.MkdirTemp("", "fuzzcampaign-view-")
	if err != nil {
		return nil, err
	}
	parts := append(strings.Split(t.Rel, "/"), "testdata", "fuzz", t.Name)
	if t.Rel == "." {
		parts = parts[1:]
	}
	src, dst := modRoot, root
	for _, part := range parts {
		entries, err := os.ReadDir(src)
		if err != nil && !os.IsNotExist(err) {
			os.RemoveAll(root)
			return nil, err
		}
		for _, e := range entries {
			if e.Name() == part {
				continue
			}
			if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				os.RemoveAll(root)
				return nil, err
			}
		}
		src, dst = filepath.Join(src, part), filepath.Join(dst, part)
		if err := os.Mkdir(dst, 0o755); err != nil {
			os.RemoveAll(root)
			return nil, err
		}
	}
	return &corpusView{root: root, pkgDir: filepath.Join(root, filepath.FromSlash(t.Rel)), corpus: dst}, nil
}

// reset empties the view's corpus directory.
func (v *corpusView) reset() error {
	if err := os.RemoveAll(v.corpus); err != nil {
		return err
	}
	return os.Mkdir(v.corpus, 0o755)
}

func (v *corpusView) Close() error { return os.RemoveAll(v.root) }

// add copies the corpus files in dir into the view, skipping names it
// already has (an entry's name is a hash of its contents).
func (v *corpusView) add(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyNew(filepath.Join(dir, e.Name()), filepath.Join(v.corpus, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyNew copies src to dst unless dst exists.
func copyNew(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if os.IsExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// replay runs the coverage binary in the view with -test.run run and
// returns its coverage profile: "^Fuzz$" replays the target's whole
// corpus, "^Fuzz$/^seed#" its f.Add seeds, "^Fuzz$/^<file>$" one corpus
// file, "^$" nothing but the packages' initialization. The run failing
// is an error carrying its output.
func (v *corpusView) replay(binary, run string, nice int) (profile, error) {
	prof, err := os.CreateTemp("", "fuzzcampaign-cover-")
	if err != nil {
		return nil, err
	}
	prof.Close()
	defer os.Remove(prof.Name())
	cmd := exec.Command("nice", "-n", strconv.Itoa(nice), binary, "-test.run", run, "-test.coverprofile", prof.Name())
	cmd.Dir = v.pkgDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s -test.run %s: %v\n%s", filepath.Base(binary), run, err, out)
	}
	f, err := os.Open(prof.Name())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseProfile(f)
}

// A profile maps each block of a coverage profile ("file:l.c,l.c") to its
// number of statements and how many times it ran (0 or 1 in set mode).
type profile map[string]block

type block struct {
	stmts int
	count int64
}

func (b block) hit() bool { return b.count > 0 }

// parseProfile reads a coverage profile (go tool cover's format: a mode
// line, then "file:start,end statements count" per block). The counts of
// a block listed more than once add up.
func parseProfile(r io.Reader) (profile, error) {
	p := profile{}
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.HasPrefix(line, "mode: ") {
				return nil, fmt.Errorf("coverage profile starts with %q", line)
			}
			continue
		}
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("coverage profile line %q", line)
		}
		stmts, err1 := strconv.Atoi(f[1])
		count, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("coverage profile line %q", line)
		}
		b := p[f[0]]
		b.stmts = stmts
		b.count += count
		p[f[0]] = b
	}
	if first {
		return nil, fmt.Errorf("empty coverage profile")
	}
	return p, sc.Err()
}

// pkgCoverage is one package's statement coverage. Reached is true when
// the run executed statements of it that its initialization alone does
// not: such are the packages the target fuzzes.
type pkgCoverage struct {
	Package    string  `json:"package"`
	Covered    int     `json:"covered"`
	Statements int     `json:"statements"`
	Percent    float64 `json:"percent"`
	Reached    bool    `json:"reached"`
}

// byPackage sums p per package (the directory part of each block's
// file), sorted by package; init is the profile of the packages'
// initialization alone.
func (p profile) byPackage(init profile) []pkgCoverage {
	sums := map[string]*pkgCoverage{}
	for key, b := range p {
		file, _, _ := strings.Cut(key, ":")
		ip := path.Dir(file)
		s := sums[ip]
		if s == nil {
			s = &pkgCoverage{Package: ip}
			sums[ip] = s
		}
		s.Statements += b.stmts
		if b.hit() {
			s.Covered += b.stmts
			s.Reached = s.Reached || !init[key].hit()
		}
	}
	var out []pkgCoverage
	for _, s := range sums {
		if s.Statements > 0 {
			s.Percent = float64(int(1000*float64(s.Covered)/float64(s.Statements)+0.5)) / 10
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out
}

// features returns what a corpus entry is kept for (mergeTarget), with
// its weight: each block the profile ran, weighted by its statements, and
// the bucket of the number of times it ran (1, 2, 3, 4-7, 8-15, 16-31,
// 32-127, 128 or more: how libFuzzer and Go's fuzzer bucket their edge
// counters), weighted 1, so that an input that runs a loop a different
// number of times counts too. A count-mode profile is needed for the
// buckets.
func (p profile) features() map[string]int {
	f := map[string]int{}
	for key, b := range p {
		if !b.hit() {
			continue
		}
		f[key] = b.stmts
		bucket := 0
		for _, bound := range []int64{1, 2, 3, 7, 15, 31, 127} {
			if b.count > bound {
				bucket++
			}
		}
		f[key+"#"+strconv.Itoa(bucket)] = 1
	}
	return f
}
