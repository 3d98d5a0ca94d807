package main

// check's baseline of accepted findings: reading, matching, writing.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

// baseline is a file of accepted findings, one a line:
//
//	FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX]
//
// with # comments. A field holding spaces, # or " is written as a Go
// string literal ("SSH-2.0-a#b"), so that every prefix reads back as
// written. A finding of a result is accepted when an entry names its
// id, its method (or *, or none) and a prefix of its peer's
// identification line as check reports it (escaped), or none.
type baseline struct {
	path    string
	entries []baselineEntry
}

type baselineEntry struct {
	path                   string
	line                   int
	id, method, peerPrefix string
}

// String is the entry as "FILE:LINE: ENTRY", the prefix quoted as it
// must be written.
func (e baselineEntry) String() string {
	text := e.id
	if e.method != "" || e.peerPrefix != "" {
		text += " " + orDefault(e.method, "*")
	}
	if e.peerPrefix != "" {
		text += " " + baselineField(e.peerPrefix)
	}
	return fmt.Sprintf("%s:%d: %s", e.path, e.line, text)
}

// orDefault is a, or b if a is empty.
func orDefault(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

func (e baselineEntry) matches(peer string, r conformance.Result) bool {
	return r.Finding == e.id && r.Severity != conformance.SeverityInfo && !r.Conforms &&
		(e.method == "" || e.method == "*" || e.method == r.Method) && strings.HasPrefix(peer, e.peerPrefix)
}

// readBaseline reads a baseline file, refusing unknown finding ids.
func readBaseline(path string) (*baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := &baseline{path: path}
	known := map[string]bool{}
	for _, fd := range conformance.Findings() {
		known[fd.ID] = true
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields, err := baselineFields(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 3 || !known[fields[0]] {
			return nil, fmt.Errorf("%s:%d: want FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX] with a finding id of \"pqkex help findings\", not %q",
				path, n, strings.TrimSpace(sc.Text()))
		}
		e := baselineEntry{path: path, line: n, id: fields[0]}
		if len(fields) > 1 {
			e.method = fields[1]
		}
		if len(fields) > 2 {
			e.peerPrefix = fields[2]
		}
		b.entries = append(b.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(b.entries) == 0 {
		return nil, errors.New(path + ": no entry")
	}
	return b, nil
}

// baselineFields splits a baseline line into its fields: words
// separated by spaces or tabs, or Go string literals; # outside a
// literal starts a comment.
func baselineFields(line string) ([]string, error) {
	var out []string
	for {
		line = strings.TrimLeft(line, " \t")
		switch {
		case line == "" || line[0] == '#':
			return out, nil
		case line[0] == '"':
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, fmt.Errorf("a quoted field that does not end: %s", line)
			}
			v, _ := strconv.Unquote(q)
			out = append(out, v)
			line = line[len(q):]
			if line != "" && !strings.ContainsRune(" \t#", rune(line[0])) {
				return nil, fmt.Errorf("text right after a quoted field: %s", line)
			}
		default:
			i := strings.IndexAny(line, " \t#")
			if i < 0 {
				i = len(line)
			}
			out = append(out, line[:i])
			line = line[i:]
		}
	}
}

// baselineField is s as a field of a baseline line: as it is, or as a Go
// string literal when it holds what would end or break the field
// (spaces, #, a leading ", anything not printable).
func baselineField(s string) string {
	if s == "" || strings.ContainsAny(s, " \t#\"\\") || !strconv.IsPrint(firstRune(s)) || strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// accepting returns the entry that accepts r, a result of a check of
// peer, if any (b may be nil).
func (b *baseline) accepting(peer string, r conformance.Result) (baselineEntry, bool) {
	if b == nil {
		return baselineEntry{}, false
	}
	i := slices.IndexFunc(b.entries, func(e baselineEntry) bool { return e.matches(peer, r) })
	if i < 0 {
		return baselineEntry{}, false
	}
	return b.entries[i], true
}

// stale lists the entries that accept no result of reps although they
// apply to a peer checked (no prefix, or one a peer's line has): findings
// fixed since, which the baseline should drop.
func (b *baseline) stale(reps []*checkReport) []string {
	var out []string
	for _, e := range b.entries {
		applies, used := false, false
		for _, r := range reps {
			peer := r.peerVersion()
			if peer == "" || !strings.HasPrefix(peer, e.peerPrefix) {
				continue
			}
			applies = true
			for _, res := range r.Results {
				if e.matches(peer, res.Result) {
					used = true
				}
			}
		}
		if applies && !used {
			out = append(out, e.String())
		}
	}
	return out
}

// versionFamilies are the identification lines whose version
// -write-baseline cuts to its release series, so that the entries it
// writes still match after a point release (the patch number or a
// distribution's suffix changes, the code that has the finding does
// not). Any other line is kept up to its first space: the comments
// after it (RFC 4253 §4.2), such as a distribution's package version,
// are left out.
var versionFamilies = []*regexp.Regexp{
	// OpenSSH X.YpN: pN is the portable release of OpenBSD's X.Y (the
	// same code with portability fixes), and what follows the space is
	// the distribution's package: kept "OpenSSH_X.Y".
	regexp.MustCompile(`^SSH-(?:2\.0|1\.99)-OpenSSH_[0-9]+\.[0-9]+`),
	// dropbear YEAR.N: releases are numbered in a year's series, with no
	// point releases of their own: kept "dropbear_YEAR.".
	regexp.MustCompile(`^SSH-(?:2\.0|1\.99)-dropbear_[0-9]+\.`),
	// PuTTY Release_X.Y: kept whole (a 0.85.1 would match it).
	regexp.MustCompile(`^SSH-(?:2\.0|1\.99)-PuTTY_Release_[0-9]+\.[0-9]+`),
	// libssh_X.Y.Z: Z is the patch release of the X.Y series: kept
	// "libssh_X.Y.".
	regexp.MustCompile(`^SSH-(?:2\.0|1\.99)-libssh_[0-9]+\.[0-9]+\.`),
}

// baselinePrefix is the part of a peer's identification line (as check
// reports it) that -write-baseline writes: its release series for the
// families above, else the line up to its first space.
func baselinePrefix(version string) string {
	for _, re := range versionFamilies {
		if m := re.FindString(version); m != "" {
			return m
		}
	}
	if i := strings.IndexAny(version, " \t"); i >= 0 {
		return version[:i]
	}
	return version
}

// writeBaseline writes the findings of reps as a baseline accepting them
// for their peers' release series (baselinePrefix).
func writeBaseline(path string, reps []*checkReport) error {
	var lines []string
	for _, r := range reps {
		for _, res := range r.Results {
			if res.Finding == "" || res.Severity == conformance.SeverityInfo || res.Conforms {
				continue
			}
			l := res.Finding + " " + res.Method
			if p := baselinePrefix(r.peerVersion()); p != "" {
				l += " " + baselineField(p)
			}
			if !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	head := "# pqkex check baseline: FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX], one accepted finding a line.\n" +
		"# The prefix is the peer's release series (OpenSSH_X.Y, dropbear_YEAR., PuTTY_Release_X.Y,\n" +
		"# libssh_X.Y.; other peers up to the first space): shorten it to accept more versions\n" +
		"# (SSH-2.0-OpenSSH_ for every OpenSSH), leave it out for every peer, * as METHOD for every method.\n"
	return os.WriteFile(path, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644)
}
