package examples

import (
	"bufio"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Go code in the documentation is compiled code. Every ```go block
// in README.md and docs/*.md is preceded by a line
//
//	<!-- excerpt: PATH -->
//
// naming, relative to the repository root, a Go file that the root module
// or this one compiles (and, for tests and examples, runs), and the block
// must be an excerpt of that file:
//
//   - its lines appear in the file in the same order, compared without
//     indentation, with runs of spaces as one space, and blank lines
//     ignored on both sides;
//   - consecutive lines of the block are consecutive lines of the file;
//   - a line that is just "..." stands for any number of lines of the
//     file (none included): what the documentation leaves out, such as
//     error handling or flag parsing.
//
// So the documentation can show a focused part of a program, and the
// program it comes from is built and tested.

const excerptMarker = "<!-- excerpt: "

// snippet is a ```go block of a Markdown file.
type snippet struct {
	doc    string // the Markdown file, relative to the repository root
	line   int    // of the ```go line
	source string // PATH of the excerpt marker, "" if there is none
	lines  []string
}

// TestDocSnippets checks every ```go block of README.md and docs/*.md
// against the file its excerpt marker names.
func TestDocSnippets(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{"../README.md"}, docs...)
	count := 0
	for _, doc := range docs {
		snippets, fences := goBlocks(t, doc)
		if len(snippets) != fences {
			t.Fatalf("%s: %d ```go fences, %d blocks read", doc, fences, len(snippets))
		}
		for _, s := range snippets {
			count++
			t.Run(fmt.Sprintf("%s:%d", s.doc, s.line), func(t *testing.T) {
				if s.source == "" {
					t.Fatalf("the block has no %sPATH --> line before it", excerptMarker)
				}
				checkCompiled(t, s.source)
				src, err := os.ReadFile(filepath.Join("..", s.source))
				if err != nil {
					t.Fatal(err)
				}
				if err := excerptOf(s.lines, strings.Split(string(src), "\n")); err != nil {
					t.Errorf("not an excerpt of %s: %v", s.source, err)
				}
			})
		}
	}
	t.Logf("%d Go blocks in %d Markdown files checked", count, len(docs))
	if count == 0 {
		t.Fatal("no ```go block found")
	}
}

// goBlocks returns the ```go blocks of the Markdown file path, and how
// many lines open one (so that a block the reader missed is noticed).
func goBlocks(t *testing.T, path string) ([]snippet, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := strings.TrimPrefix(filepath.ToSlash(path), "../")
	var (
		out    []snippet
		fences int
		cur    *snippet
		prev   string // the last line before the current one
		inCode bool   // inside a fenced block of any language
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		trimmed := strings.TrimSpace(l)
		switch {
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur, inCode = nil, false
		case cur != nil:
			cur.lines = append(cur.lines, l)
		case !inCode && trimmed == "```go":
			fences++
			cur = &snippet{doc: doc, line: n}
			if src, ok := strings.CutPrefix(strings.TrimSpace(prev), excerptMarker); ok {
				cur.source = strings.TrimSpace(strings.TrimSuffix(src, "-->"))
			}
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode
		}
		prev = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: the ```go block is not closed", doc, cur.line)
	}
	return out, fences
}

// checkCompiled fails the test unless path (relative to the repository
// root) is a .go file of a package directory in the root module or this
// one that the go command compiles on this platform without build tags.
func checkCompiled(t *testing.T, path string) {
	t.Helper()
	if filepath.Ext(path) != ".go" || filepath.IsAbs(path) || slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
		t.Fatalf("%s is not a .go file inside the repository", path)
	}
	dir, file := filepath.Split(filepath.Join("..", path))
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !slices.Contains(slices.Concat(pkg.GoFiles, pkg.TestGoFiles, pkg.XTestGoFiles), file) {
		t.Fatalf("%s is not compiled by default (build constraints?): the package's files are %v %v %v",
			path, pkg.GoFiles, pkg.TestGoFiles, pkg.XTestGoFiles)
	}
}

// excerptOf reports whether block is an excerpt of file, under the rules
// at the top of this file; the error names the first block line that
// cannot be placed.
func excerptOf(block, file []string) error {
	norm := func(ls []string) []string {
		var out []string
		for _, l := range ls {
			if f := strings.Fields(l); len(f) > 0 {
				out = append(out, strings.Join(f, " "))
			}
		}
		return out
	}
	src := norm(file)
	// Runs of block lines between "..." lines; each run must occur as
	// consecutive source lines, after the previous run. Placing each run
	// at its earliest occurrence leaves the most room for the rest.
	var runs [][]string
	cur := []string{}
	for _, l := range norm(block) {
		if l == "..." {
			runs, cur = append(runs, cur), []string{}
			continue
		}
		cur = append(cur, l)
	}
	runs = append(runs, cur)
	from := 0
	for _, run := range runs {
		if len(run) == 0 {
			continue
		}
		at := -1
		for i := from; i+len(run) <= len(src); i++ {
			if slices.Equal(src[i:i+len(run)], run) {
				at = i
				break
			}
		}
		if at < 0 {
			return fmt.Errorf("the lines from %q on (%d lines) do not follow in the file", run[0], len(run))
		}
		from = at + len(run)
	}
	return nil
}

// TestExcerptOf shows the rules on small cases, so that a checker
// accepting anything is noticed.
func TestExcerptOf(t *testing.T) {
	file := strings.Split("func main() {\n\tx := 1\n\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tfmt.Println(x)\n}", "\n")
	for _, tc := range []struct {
		block string
		ok    bool
	}{
		{"x := 1\nif err != nil {", true},                 // blank lines ignored
		{"   x   :=   1", true},                           // spaces and indentation
		{"func main() {\n...\nfmt.Println(x)\n}", true},   // elision
		{"func main() {\n...\n...\n}", true},              // elisions of nothing
		{"x := 1\nfmt.Println(x)", false},                 // not consecutive
		{"fmt.Println(x)\n...\nx := 1", false},            // out of order
		{"x := 2", false},                                 // not in the file
		{"if err != nil {\n...\nlog.Fatal(err)\n}", true}, // ... may stand for no line
		{"func main() {\n...\nfmt.Println(y)", false},     // a wrong line after an elision
	} {
		err := excerptOf(strings.Split(tc.block, "\n"), file)
		if (err == nil) != tc.ok {
			t.Errorf("excerptOf(%q) = %v, want ok=%v", tc.block, err, tc.ok)
		}
	}
}

// figure is a measured figure in prose: a number with its unit (µs, ms,
// or × for a ratio).
var figure = regexp.MustCompile(`[0-9][0-9.,]*(?:[–-][0-9][0-9.,]*)? ?(?:µs|ms|×)`)

// TestReadmeFigures: every figure in README.md is quoted from the
// current figures of docs/performance.md (its section "Current
// figures"), the one source of each, so that the two cannot disagree
// (a figure in the README's "Why" and another in its Performance
// section, say, each quoting an older run).
func TestReadmeFigures(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	perf, err := os.ReadFile("../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	current := string(perf)
	start := strings.Index(current, "\n## Current figures")
	if start < 0 {
		t.Fatal(`docs/performance.md has no section "Current figures"`)
	}
	current = current[start+1:]
	if end := strings.Index(current, "\n## "); end >= 0 {
		current = current[:end]
	}
	current = flat(current)
	figures := figure.FindAllString(flat(string(readme)), -1)
	if len(figures) == 0 {
		t.Fatal("no figure found in README.md: the pattern is wrong")
	}
	for _, f := range figures {
		// A ratio is quoted whole; a time by its number (the tables give
		// the unit in their header: "169.6 ± 9%" under "µs per operation").
		number := strings.TrimSpace(strings.TrimRight(f, "µsm×"))
		quoted := regexp.MustCompile(`(^|[^0-9.,])` + regexp.QuoteMeta(number) + `([^0-9]|$)`)
		if strings.HasSuffix(f, "×") && !strings.Contains(current, f) || !quoted.MatchString(current) {
			t.Errorf("README.md says %q, which docs/performance.md's current figures do not", f)
		}
	}
	t.Logf("%d figures of README.md found in docs/performance.md: %q", len(figures), figures)
}
