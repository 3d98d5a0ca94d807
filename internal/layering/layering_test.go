// Package layering holds only a test: the module's layering, written down
// in the style of Go's own go/build/deps_test.go, which package may import
// which, and the three wings the packages stand in (wings, below). Imports
// point one way: arithmetic and encodings, then the hybrid engine and the
// SSH methods, then the adapters (x/crypto/ssh, the known-answer runners),
// then the command and its engines, then the test kits and the tests.
package layering

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// rules says, for each package of the module, which packages of the
// module and of other modules it may import directly; every package may
// import the standard library. "a, b < c, d;" means that c and d may
// import a and b; NONE lists none. Names are paths inside the module; the
// groups below stand for several. A package's tests (its _test.go files)
// may import any package of the module and, of other modules, what its
// rule allows and TEST.
//
// Never, whatever a new rule says: sntrup761 and its internals import
// nothing of the SSH side; the method packages do not import each other
// or sshkex; x/crypto/ssh appears only in sshkex, the test server, the
// conformance checker and the command; the conformance checker, an
// independent oracle, imports neither sshkex nor the hybrid engine.
const rules = `
	# Arithmetic and encodings: the standard library only, and the CPU's
	# features (x/sys/cpu) for the choice of sntrup761's vector path,
	# which the core makes and internal/vecarith mirrors for pqkex bench.
	NONE < kexhash, sntrup761/internal/ref;
	XSYSCPU < sntrup761/internal/core, internal/vecarith;

	# The generator of the four method packages' facades (go generate).
	NONE < internal/methodgen;

	# The public keys a peer must refuse, as data (pqkex check sends them;
	# the tests of sshkex and fuzz feed them too).
	NONE < internal/tool/badkeys;

	# The sntrup761 KEM and its derandomized form for known answers (and
	# for a caller's reader), which it reaches through sntrup761's
	# linkname pushes, not an import.
	sntrup761/internal/core < sntrup761;
	sntrup761 < sntrup761/sntrup761test;
	sntrup761, sntrup761/internal/core < sntrup761/internal/instrcount;

	# The hybrid engine and the four SSH methods on it. The engine stands
	# above sntrup761 and reaches it as it reaches crypto/mlkem: its public
	# API, and sntrup761test for a caller's reader.
	CIRCL, sntrup761, sntrup761/sntrup761test < internal/hybrid;
	internal/hybrid < mlkem768x25519, mlkem768nistp256, mlkem1024nistp384;
	internal/hybrid, sntrup761, CIRCL < sntrup761x25519;

	# SSH framing and packets (for sshkex, scan, check and the server).
	kexhash, XCRYPTO < internal/sshwire;

	# The adapter to x/crypto/ssh: the methods' public APIs only.
	METHODS, sntrup761, kexhash, internal/sshwire, XSSH < sshkex;

	# The known-answer runners and the public package running them. The
	# runners stand below the method packages and import none: their
	# callers (vectors, the command, the tests) pass each method's
	# exported NewClient and Respond in (kat.Public, kat.Methods).
	internal/hybrid, sntrup761, sntrup761/sntrup761test, kexhash, CIRCL, XCRYPTO < internal/kat;
	internal/kat, METHODS < vectors;

	# The test server behind "pqkex serve".
	internal/sshwire, XSSH < internal/tool/kexserver;

	# The conformance checker behind "pqkex check": the methods for their
	# names and constants, its own client and server halves.
	METHODS, sntrup761, kexhash, internal/sshwire, internal/tool/badkeys, XSSH < cmd/pqkex/internal/conformance;

	# The command.
	METHODS, sntrup761, internal/hybrid, internal/kat, internal/vecarith, internal/sshwire,
	internal/tool/kexserver, cmd/pqkex/internal/conformance, sshkex, vectors, CIRCL, XCRYPTO, XSSH < cmd/pqkex;

	# Test machinery: a timing harness, the loopback servers and keys
	# several packages' tests share, the real SSH peers that the interop
	# and examples tests run, the re-run of a test binary in a child, and
	# what GODEBUG does to the CPU features; which tier of the suite runs
	# (PQKEX_LONG), which the timing harness asks too.
	NONE < internal/testkit/tier, internal/testkit/peertest, internal/testkit/selfexec, internal/testkit/cpudebug;
	internal/testkit/tier < internal/testkit/dudect;
	XSSH < internal/testkit/sshtest;

	# Fuzzing tools: what the targets and the tools (fuzz/campaign and
	# fuzz/ossfuzz, modules of their own) share about corpus entries.
	NONE < internal/testkit/fuzzcorpus;

	# Test-only packages.
	NONE < fuzz, interop, internal/layering;
`

// The other modules' packages, by group.
var groups = map[string][]string{
	"CIRCL":   {"github.com/cloudflare/circl/..."},
	"XCRYPTO": {"golang.org/x/crypto/chacha20", "golang.org/x/crypto/poly1305", "golang.org/x/crypto/curve25519"},
	"XSSH":    {"golang.org/x/crypto/ssh"},
	"XSYSCPU": {"golang.org/x/sys/cpu"},
	"METHODS": {"mlkem768x25519", "mlkem768nistp256", "mlkem1024nistp384", "sntrup761x25519"},
	// Test files may import any package of the module and these.
	"TEST": {"github.com/google/go-cmp/...", "golang.org/x/crypto/...", "github.com/cloudflare/circl/..."},
}

// wings are the three parts of the module, each in places whose names
// say its role, in the order of the imports between them: outside its
// tests a package imports packages of its own wing and of the wings
// before it, never of one after it.
//
//   - library: what a user imports, the packages at the root and under
//     them (kexhash, sntrup761, the four methods, sshkex, vectors), and
//     their engine in internal/ (hybrid, sshwire, vecarith, kat, the
//     known-answer runners behind vectors, and methodgen, the generator
//     of the method packages' facades).
//   - tool: cmd/pqkex and its engines: under cmd/pqkex/internal/ what
//     only the command uses (the checks of pqkex check), under
//     internal/tool/ what the tests of the other wings drive too (the
//     server behind pqkex serve, the bad keys pqkex check sends), which
//     Go's internal rule would keep from them under cmd/pqkex/internal/.
//   - lab: the test kits of internal/testkit/, the packages that hold only
//     tests (fuzz, interop, internal/layering) and sntrup761's instruction
//     counter; the examples, fuzz/campaign and fuzz/ossfuzz are modules of
//     their own, which import the module like any user.
var wings = []struct {
	name   string
	places []string
}{
	{"library", []string{"kexhash", "sntrup761", "sntrup761/internal/core", "sntrup761/internal/ref", "sntrup761/sntrup761test",
		"mlkem768x25519", "mlkem768nistp256", "mlkem1024nistp384", "sntrup761x25519", "sshkex", "vectors",
		"internal/hybrid", "internal/sshwire", "internal/vecarith", "internal/kat", "internal/methodgen"}},
	{"tool", []string{"cmd/...", "internal/tool/..."}},
	{"lab", []string{"internal/testkit/...", "fuzz", "interop", "internal/layering", "sntrup761/internal/instrcount"}},
}

// floors are the library's top-level folders in the order of the imports
// between them, as a drawing of the tree by folders shows them (the
// module's root internal/ is one folder): outside its tests a package
// imports packages of its own floor and of the floors before it, never
// of one after it. The engine (internal/hybrid) and the known-answer
// runners (internal/kat) import sntrup761, as they import crypto/mlkem,
// so the sntrup761 tree imports nothing of the root internal/; the
// method packages import the engine, so nothing in internal/ imports
// them (the runners take their APIs from their callers).
var floors = [][]string{
	{"kexhash", "sntrup761/..."},
	{"internal/..."},
	{"mlkem768x25519", "mlkem768nistp256", "mlkem1024nistp384", "sntrup761x25519"},
	{"sshkex", "vectors"},
	{"cmd/..."},
}

const module = "github.com/pqkex/pqkex"

// parseRules returns, for each package named on the right of a rule, the
// import patterns it may use.
func parseRules(t *testing.T) map[string][]string {
	allowed := map[string][]string{}
	var lines []string
	for _, l := range strings.Split(rules, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	for _, stmt := range strings.Split(strings.Join(lines, " "), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		from, to, ok := strings.Cut(stmt, "<")
		if !ok {
			t.Fatalf("rule %q has no <", stmt)
		}
		var pats []string
		for _, f := range strings.Split(from, ",") {
			f = strings.TrimSpace(f)
			switch {
			case f == "NONE":
			case groups[f] != nil:
				pats = append(pats, groups[f]...)
			default:
				pats = append(pats, f)
			}
		}
		for _, p := range strings.Split(to, ",") {
			p = strings.TrimSpace(p)
			if _, dup := allowed[p]; dup {
				t.Fatalf("two rules for %s", p)
			}
			allowed[p] = pats
		}
	}
	return allowed
}

// match reports whether the import path imp (a module path relative to
// the module, or another module's) matches pattern (with /... for a
// tree).
func match(pattern, imp string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return imp == tree || strings.HasPrefix(imp, tree+"/")
	}
	return imp == pattern
}

// isStd reports whether an import path is the standard library's (no dot
// in its first element).
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// modulePackages returns every directory of the module holding Go files
// (the examples, a module of their own, and testdata left out), relative
// to the module root.
func modulePackages(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

func TestLayering(t *testing.T) {
	allowed := parseRules(t)
	root := filepath.Join("..", "..")
	pkgs := modulePackages(t, root)
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages: is %s the module root?", len(pkgs), root)
	}
	// Every build's files: all tags, so that the purego build's and other
	// architectures' files are checked too.
	ctxt := build.Default
	ctxt.UseAllFiles = true
	for _, dir := range pkgs {
		pats, ok := allowed[dir]
		if !ok {
			t.Errorf("package %s has no rule: add one to rules in internal/layering/layering_test.go, saying which packages it may import", dir)
			continue
		}
		p, err := ctxt.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); !ok {
				t.Errorf("%s: %v", dir, err)
				continue
			}
		}
		check := func(kind string, imports []string, pats []string) {
			for _, imp := range imports {
				rel, inModule := strings.CutPrefix(imp, module+"/")
				if isStd(imp) || kind != "" && inModule {
					continue
				}
				if !inModule {
					rel = imp
				}
				if !slices.ContainsFunc(pats, func(pat string) bool { return match(pat, rel) }) {
					t.Errorf("%s%s imports %s, which its rule does not allow", dir, kind, rel)
				}
			}
		}
		check("", p.Imports, pats)
		testPats := append(slices.Clone(pats), groups["TEST"]...)
		check(" (tests)", append(slices.Clone(p.TestImports), p.XTestImports...), testPats)
	}
	for p := range allowed {
		if !slices.Contains(pkgs, p) {
			t.Errorf("rules name %s, which is not a package of the module", p)
		}
	}
}

// TestWings: every package of the module stands in exactly one wing, and
// no package imports (outside its tests) one of a later wing.
func TestWings(t *testing.T) {
	root := filepath.Join("..", "..")
	ctxt := build.Default
	ctxt.UseAllFiles = true
	wingOf := map[string]int{}
	for _, dir := range modulePackages(t, root) {
		var in []string
		for i, w := range wings {
			if slices.ContainsFunc(w.places, func(p string) bool { return match(p, dir) }) {
				in = append(in, w.name)
				wingOf[dir] = i
			}
		}
		if len(in) != 1 {
			t.Errorf("package %s stands in %d wings %v, want one: add it to wings in internal/layering/layering_test.go", dir, len(in), in)
			delete(wingOf, dir)
		}
	}
	for dir, w := range wingOf {
		p, err := ctxt.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); !ok {
				t.Errorf("%s: %v", dir, err)
			}
			continue
		}
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if i, known := wingOf[rel]; ok && known && i > w {
				t.Errorf("%s (%s) imports %s (%s): imports run from the lab to the tool to the library, never back", dir, wings[w].name, rel, wings[i].name)
			}
		}
	}
}

// TestFloors: no package of a floor imports (outside its tests) one of a
// later floor.
func TestFloors(t *testing.T) {
	root := filepath.Join("..", "..")
	ctxt := build.Default
	ctxt.UseAllFiles = true
	floorOf := func(dir string) int {
		for i, f := range floors {
			if slices.ContainsFunc(f, func(p string) bool { return match(p, dir) }) {
				return i
			}
		}
		return -1
	}
	checked := 0
	for _, dir := range modulePackages(t, root) {
		from := floorOf(dir)
		if from < 0 {
			continue
		}
		p, err := ctxt.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); !ok {
				t.Errorf("%s: %v", dir, err)
			}
			continue
		}
		checked++
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if to := floorOf(rel); ok && to > from {
				t.Errorf("%s imports %s, a later floor: the library's folders import %v in this order only", dir, rel, floors)
			}
		}
	}
	if checked < 15 {
		t.Fatalf("checked %d packages: is %s the module root?", checked, root)
	}
}
