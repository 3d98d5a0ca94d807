package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocMatchesCommands keeps the package documentation true to the
// command table: doc.go is at most 120 lines, its list of commands is
// exactly each command's synopsis lines and then its summary, in the
// table's order, and nothing else in it or in docs/usage.md's section
// headings names a command the table does not have.
func TestDocMatchesCommands(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if n := strings.Count(doc, "\n"); n > 120 {
		t.Errorf("doc.go has %d lines, more than 120: the details belong in the command table and docs/usage.md", n)
	}

	var want []string
	for _, c := range commands {
		for _, s := range c.synopsis {
			want = append(want, "//\t"+s)
		}
		want = append(want, "//\t\t"+c.summary)
	}
	var got []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "//\tpqkex ") || strings.HasPrefix(l, "//\t\t") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("doc.go's list of commands differs from the command table (commands.go); want\n%s\n\ngot\n%s",
			strings.Join(want, "\n"), strings.Join(got, "\n"))
	}

	// Every command line in it, quoted or in a code block, names a
	// command (COMMAND and the like are placeholders).
	verb := regexp.MustCompile(`(?:"|//\t)pqkex ([a-z][a-z0-9-]*)\b`)
	for _, m := range verb.FindAllStringSubmatch(doc, -1) {
		if lookup(m[1]) == nil {
			t.Errorf("doc.go describes %q, which is not a command", m[0])
		}
	}
	usageDoc, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("(?m)^#+ `pqkex ([^`]*)`")
	headings := heading.FindAllStringSubmatch(string(usageDoc), -1)
	if len(headings) == 0 {
		t.Error("docs/usage.md has no command section (### `pqkex NAME`)")
	}
	for _, m := range headings {
		if lookup(m[1]) == nil {
			t.Errorf("docs/usage.md has a section on %q, which is not a command", m[0])
		}
	}
}
