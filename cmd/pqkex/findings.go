package main

// The write-ups of check's findings, shipped in the binary: one file a
// finding, findings/ID.md, printed by "pqkex help ID" and listed by
// "pqkex help findings"; docs/conformance.md's table of findings is made
// from them (TestFindingsDoc).
//
// A write-up starts with "Key: value" lines, then a blank line and its
// text. Every write-up has Clause (the sentences the cases rest on) and
// Cases; a finding's severity, title and fix come from
// conformance.Findings, so they are not repeated, and a note (severity
// info, not in conformance.Findings) gives Severity and Title itself.
// Adding a finding is adding its file: TestFindingWriteUps fails for an
// id without one.

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

//go:embed findings/*.md
var writeUpFiles embed.FS

// writeUp is a finding's write-up.
type writeUp struct {
	id, severity, title, fix string
	clause, cases            string
	text                     string
}

// writeUps returns every write-up: the findings in conformance.Findings'
// order, then the notes in the order of their files' names.
func writeUps() []writeUp {
	names, _ := fs.Glob(writeUpFiles, "findings/*.md")
	var out []writeUp
	for _, n := range names {
		if w, ok := readWriteUp(strings.TrimSuffix(path.Base(n), ".md")); ok {
			out = append(out, w)
		}
	}
	order := func(w writeUp) int {
		i := slices.IndexFunc(conformance.Findings(), func(f conformance.Finding) bool { return f.ID == w.id })
		if i < 0 {
			return len(conformance.Findings())
		}
		return i
	}
	slices.SortStableFunc(out, func(a, b writeUp) int { return order(a) - order(b) })
	return out
}

// readWriteUp reads the write-up of finding id.
func readWriteUp(id string) (writeUp, bool) {
	if strings.ContainsAny(id, "/\\.") {
		return writeUp{}, false
	}
	data, err := writeUpFiles.ReadFile("findings/" + id + ".md")
	if err != nil {
		return writeUp{}, false
	}
	w := writeUp{id: id}
	head, text, _ := strings.Cut(string(data), "\n\n")
	w.text = strings.TrimSpace(text)
	for _, l := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(l, ": ")
		switch k {
		case "Severity":
			w.severity = v
		case "Title":
			w.title = v
		case "Clause":
			w.clause = v
		case "Cases":
			w.cases = v
		}
	}
	for _, f := range conformance.Findings() {
		if f.ID == id {
			w.severity, w.title, w.fix = string(f.Severity), f.Title, f.Fix
		}
	}
	return w, true
}

// print prints the write-up for a terminal.
func (w writeUp) print(out io.Writer) {
	printWrapped(out, fmt.Sprintf("%s (%s): %s", w.id, w.severity, w.title), "  ")
	printWrapped(out, "clause: "+w.clause, "  ")
	printWrapped(out, "cases: "+w.cases, "  ")
	if w.fix != "" {
		printWrapped(out, "what to change: "+w.fix, "  ")
	}
	fmt.Fprintf(out, "\n%s\n", w.text)
}

// printFindingList prints every finding id with its severity and title.
func printFindingList(out io.Writer) {
	fmt.Fprintln(out, "pqkex check's findings (\"pqkex help ID\" prints one's write-up):")
	for _, w := range writeUps() {
		prefix := fmt.Sprintf("  %-24s %-6s ", w.id, w.severity)
		for i, l := range wrapText(w.title, textWidth-len(prefix), "") {
			if i > 0 {
				prefix = strings.Repeat(" ", len(prefix))
			}
			fmt.Fprintln(out, prefix+l)
		}
	}
}

// findingsTable is docs/conformance.md's table of findings, made from
// the write-ups.
func findingsTable() string {
	var b strings.Builder
	b.WriteString("| id | severity | what | cases | what to change |\n|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, w := range writeUps() {
		fix := w.fix
		if fix == "" {
			fix = "– (a note on a conforming verdict)"
		}
		fmt.Fprintf(&b, "| <a id=%q></a>`%s` | %s | %s | %s | %s |\n", w.id, w.id, w.severity, cell(w.title), cell(w.cases), cell(fix))
	}
	return b.String()
}
