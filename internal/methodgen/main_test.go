package main

import (
	"strings"
	"testing"
)

// TestWrapComments: long comment lines wrap at words within the width,
// list items keep their continuation under the item's text, and code,
// directives, short lines and code blocks are left as they are.
func TestWrapComments(t *testing.T) {
	long := strings.Repeat("word ", 20)
	in := strings.Join([]string{
		"\t// " + long,
		"//   - " + long,
		"//\t" + long,
		"//go:generate " + long,
		"// short line",
		"x := 1 // " + long,
	}, "\n")
	want := strings.Join([]string{
		"\t// word word word word word word word word word word word word word word",
		"\t// word word word word word word",
		"//   - word word word word word word word word word word word word word word",
		"//     word word word word word word",
		"//\t" + long,
		"//go:generate " + long,
		"// short line",
		"x := 1 // " + long,
	}, "\n")
	if got := string(wrapComments([]byte(in), 76)); got != want {
		t.Errorf("wrapComments:\n%s\nwant:\n%s", got, want)
	}
}

// TestGenerateEvery: the template gives valid, formatted Go for every
// method, and refuses a package that is not one.
func TestGenerateEvery(t *testing.T) {
	for _, m := range methods {
		src, err := generate(m.Pkg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), "// Code generated ") || !strings.Contains(string(src), "package "+m.Pkg+"\n") {
			t.Errorf("%s: no generated-code header or wrong package clause", m.Pkg)
		}
	}
	if _, err := generate("sshkex"); err == nil {
		t.Error("generate(sshkex) succeeded")
	}
}
