package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A target is one fuzz target (func FuzzXxx(*testing.F)) of a package.
type target struct {
	Pkg  string // import path
	Dir  string // the package's directory
	Rel  string // Dir relative to the module root, slash-separated
	Name string
	File string // the test file that defines it, in Dir
}

// ID names the target in the summary and on the command line:
// the package's directory in the module, a dot, the target's name.
func (t target) ID() string { return t.Rel + "." + t.Name }

// cacheDir is where the fuzzer keeps t's cache entries under the cache
// root (go test's is $GOCACHE/fuzz).
func (t target) cacheDir(root string) string {
	return filepath.Join(root, filepath.FromSlash(t.Pkg), t.Name)
}

// testdata is t's committed corpus, which go test replays.
func (t target) testdata() string { return filepath.Join(t.Dir, "testdata", "fuzz", t.Name) }

// A pkg is a package with fuzz targets.
type pkg struct {
	Path, Dir, Rel string
	fuzzFuncs      []string          // from its test files; the binary's -test.list is authoritative
	files          map[string]string // the file of each
}

// module describes the main module: its path and root directory.
type module struct{ Path, Dir string }

func mainModule() (module, error) {
	out, err := goCmd("list", "-m", "-f", "{{.Path}}\t{{.Dir}}")
	if err != nil {
		return module{}, err
	}
	path, dir, ok := strings.Cut(strings.TrimSpace(out), "\t")
	if !ok || dir == "" {
		return module{}, fmt.Errorf("go list -m printed %q", out)
	}
	return module{path, dir}, nil
}

// fuzzPackages returns the packages matching patterns (go list patterns,
// such as ./...) whose test files, as go list selects them for this
// build, define fuzz targets by go test's rule: a top-level function
// named Fuzz followed by anything but a lower-case letter, taking one
// *testing.F. A new target is found without any change here.
func fuzzPackages(mod module, patterns []string) ([]pkg, error) {
	args := append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}"}, patterns...)
	out, err := goCmd(args...)
	if err != nil {
		return nil, err
	}
	var pkgs []pkg
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("go list printed %q", sc.Text())
		}
		p := pkg{Path: f[0], Dir: f[1], files: map[string]string{}}
		rel, err := filepath.Rel(mod.Dir, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("package %s is outside the module at %s", p.Path, mod.Dir)
		}
		p.Rel = filepath.ToSlash(rel)
		for _, file := range strings.Fields(f[2]) {
			names, err := fuzzFuncs(filepath.Join(p.Dir, file))
			if err != nil {
				return nil, err
			}
			p.fuzzFuncs = append(p.fuzzFuncs, names...)
			for _, n := range names {
				p.files[n] = file
			}
		}
		if len(p.fuzzFuncs) > 0 {
			sort.Strings(p.fuzzFuncs)
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, sc.Err()
}

// fuzzFuncs returns the fuzz targets defined in the Go file at path.
func fuzzFuncs(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !isFuzzName(fn.Name.Name) || fn.Type.Params.NumFields() != 1 {
			continue
		}
		if star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr); ok {
			if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// isFuzzName is go test's rule for the name of a test function, for the
// prefix Fuzz: "Fuzz" alone, or followed by a character that is not a
// lower-case letter.
func isFuzzName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Fuzz")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// listTargets asks a test binary built from p which fuzz targets it has
// (-test.list, which go test -list runs): what the binary runs is what
// counts. It fails if the binary and p's test files disagree.
func listTargets(p pkg, binary string) ([]target, error) {
	cmd := exec.Command(binary, "-test.list", "^Fuzz")
	cmd.Dir = p.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %v", binary, err)
	}
	var names []string
	for _, line := range strings.Fields(string(out)) {
		if isFuzzName(line) {
			names = append(names, line)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != strings.Join(p.fuzzFuncs, " ") {
		return nil, fmt.Errorf("%s: the test binary lists fuzz targets %v, its test files define %v", p.Path, names, p.fuzzFuncs)
	}
	var ts []target
	for _, n := range names {
		ts = append(ts, p.target(n))
	}
	return ts, nil
}

func (p pkg) target(name string) target {
	return target{Pkg: p.Path, Dir: p.Dir, Rel: p.Rel, Name: name, File: p.files[name]}
}

// goCmd runs the go command and returns its standard output; on failure
// the error holds its standard error.
func goCmd(args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out), nil
}

// countFiles returns the number of regular files in dir and their total
// size; a missing dir has none.
func countFiles(dir string) (n int, size int64, err error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return 0, 0, err
		}
		n++
		size += info.Size()
	}
	return n, size, nil
}

// byteArgs returns how many arguments t's fuzz function takes after its
// *testing.T, from t's file: the f.Fuzz call's function literal, whose
// arguments must all be []byte (what fuzzcorpus converts).
func byteArgs(t target) (int, error) {
	path := filepath.Join(t.Dir, t.File)
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return 0, err
	}
	n := -1
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != t.Name || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			lit, ok2 := call.Args[0].(*ast.FuncLit)
			if !ok || !ok2 || sel.Sel.Name != "Fuzz" {
				return true
			}
			n = 0
			for i, field := range lit.Type.Params.List {
				k := max(len(field.Names), 1)
				if i == 0 {
					k-- // t *testing.T
				}
				if k > 0 && !isBytes(field.Type) {
					n = -2
					return false
				}
				n += k
			}
			return false
		})
	}
	switch n {
	case -1:
		return 0, fmt.Errorf("%s: no f.Fuzz(func(...)) call in %s", t.ID(), path)
	case -2:
		return 0, fmt.Errorf("%s: its fuzz function takes arguments other than []byte", t.ID())
	}
	return n, nil
}

// isBytes reports whether e is the type []byte (or []uint8).
func isBytes(e ast.Expr) bool {
	arr, ok := e.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return false
	}
	id, ok := arr.Elt.(*ast.Ident)
	return ok && (id.Name == "byte" || id.Name == "uint8")
}
