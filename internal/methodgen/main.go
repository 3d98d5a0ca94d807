// Command methodgen writes the facade of one of pqkex's four SSH method
// packages (mlkem768x25519, sntrup761x25519, mlkem768nistp256,
// mlkem1024nistp384): its exported constants, Client, NewClient,
// NewClientWithKey where the method has one, Init, Finish and Respond,
// with their documentation, from one template (facade.tmpl) and the
// method's entry in methods (methods.go). Each package runs it from its
// doc.go:
//
//	//go:generate go run ../internal/methodgen
//
// so that "go generate ./..." rewrites all four; this package's
// TestGenerateEvery fails if a committed file differs from what it
// generates, as .ci/run does after regenerating them. The package's own
// documentation (doc.go) and its tests stay hand-written.
//
// Usage: methodgen [-pkg name] [-o file]. The package is $GOPACKAGE
// (set by go generate) unless -pkg names it; the file is name.go in the
// current directory unless -o names another ("-" for standard output).
package main

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"
	"text/template"
)

//go:embed facade.tmpl
var facadeTemplate string

var tmpl = template.Must(template.New("facade").Parse(facadeTemplate))

func main() {
	log.SetFlags(0)
	log.SetPrefix("methodgen: ")
	pkg := flag.String("pkg", os.Getenv("GOPACKAGE"), "the method `package` to generate")
	out := flag.String("o", "", "the output `file` (default: package.go; - for standard output)")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	src, err := generate(*pkg)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case *out == "-":
		_, err = os.Stdout.Write(src)
	case *out == "":
		err = os.WriteFile(*pkg+".go", src, 0o644)
	default:
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// generate returns the gofmt-formatted facade of the method package pkg.
func generate(pkg string) ([]byte, error) {
	var m *method
	var names []string
	for i := range methods {
		names = append(names, methods[i].Pkg)
		if methods[i].Pkg == pkg {
			m = &methods[i]
		}
	}
	if m == nil {
		return nil, fmt.Errorf("no method package %q (want one of %s; go generate sets $GOPACKAGE)", pkg, strings.Join(names, ", "))
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, m); err != nil {
		return nil, err
	}
	src, err := format.Source(wrapComments(b.Bytes(), 76))
	if err != nil {
		return nil, fmt.Errorf("%s: the template gives invalid Go: %v", pkg, err)
	}
	return src, nil
}

// wrapComments wraps the text of every comment line longer than width
// columns (a tab counted as 4) at spaces, keeping its indentation and
// "//" and, for a list item ("//   - "), aligning the continuation with
// the item's text. The template writes each paragraph on one line, so
// that the data filled into it reflows; code blocks (a tab after "//")
// and directives ("//go:") are left alone.
func wrapComments(src []byte, width int) []byte {
	var out []string
	for _, line := range strings.Split(string(src), "\n") {
		indent, text, ok := strings.Cut(line, "// ")
		if !ok || strings.Trim(indent, "\t") != "" || columns(line) <= width {
			out = append(out, line)
			continue
		}
		first, cont := indent+"// ", indent+"// "
		if item, found := strings.CutPrefix(text, "  - "); found {
			first, cont, text = indent+"//   - ", indent+"//     ", item
		}
		cur := first
		for _, word := range strings.Fields(text) {
			switch {
			case cur == first || cur == cont:
				cur += word
			case columns(cur+" "+word) > width:
				out = append(out, cur)
				cur = cont + word
			default:
				cur += " " + word
			}
		}
		out = append(out, cur)
	}
	return []byte(strings.Join(out, "\n"))
}

// columns is the width of line with tabs counted as 4 columns.
func columns(line string) int {
	return len([]rune(line)) + 3*strings.Count(line, "\t")
}
