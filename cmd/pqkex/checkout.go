package main

// What check prints and writes: the table, the summary screen, the
// baseline of accepted findings, and JUnit XML.

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

// findingsDoc is where each finding id is described.
const findingsDoc = "docs/conformance.md#"

// peerVersion is the identification line of a report's peer.
func (r *checkReport) peerVersion() string {
	if r.Role == "client" {
		return r.ClientVersion
	}
	return r.Version
}

// name is the report's target for people: the server, or the listener.
func (r *checkReport) name() string {
	if r.Role == "client" {
		return "client " + r.ClientVersion + " on " + r.Listen
	}
	return r.Target
}

// printCheck prints one report: its peer, a table per method (case,
// expected, observed, result, finding; under 100 columns), and the
// details of every case that did not conform or run (of every case, with
// its clause and note, when verbose).
func printCheck(w io.Writer, r *checkReport, verbose bool) {
	if r.Role == "server" && r.Version == "" {
		return // nothing to describe: the error alone, on stderr
	}
	switch r.Role {
	case "server":
		fmt.Fprintf(w, "server  %s  %s\n", r.Target, r.Version)
		if r.Strict != nil {
			fmt.Fprintf(w, "strict key exchange offered: %v\n", *r.Strict)
		}
	case "client":
		fmt.Fprintf(w, "client under test on %s: %s %s", r.Listen, r.ClientAddr, r.ClientVersion)
		if r.Refused > 0 {
			fmt.Fprintf(w, " (%d connections of other clients refused)", r.Refused)
		}
		fmt.Fprintln(w)
	}
	if len(r.Results) == 0 {
		return // the error says why, on stderr
	}
	method := ""
	var tw *tabwriter.Writer
	for _, res := range r.Results {
		if res.Method != method {
			if tw != nil {
				tw.Flush()
			}
			method = res.Method
			fmt.Fprintf(w, "\n%s\n", method)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  CASE\tEXPECTED\tOBSERVED\tRESULT\tFINDING")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", res.Case, res.Expected, res.Observed(), mark(res, r.baselined(res)), findingColumn(res, verbose))
	}
	tw.Flush()
	var details []string
	for _, res := range r.Results {
		switch {
		case verbose:
			d := fmt.Sprintf("  %s %s [%s]: %s", res.Method, res.Case, res.Clause, res.Detail)
			if res.Note != "" {
				d += " (note: " + res.Note + ")"
			}
			details = append(details, d)
		case !res.Conforms && res.Verdict != conformance.NotApplicable:
			details = append(details, fmt.Sprintf("  %s %s: %s", res.Method, res.Case, res.Detail))
		}
	}
	if len(details) > 0 {
		fmt.Fprintln(w, "\ndetails:")
		fmt.Fprintln(w, strings.Join(details, "\n"))
	}
}

// findingColumn is a result's severity and finding id, if any (notes,
// of severity info, only when verbose).
func findingColumn(r conformance.Result, verbose bool) string {
	if r.Finding == "" || r.Severity == conformance.SeverityInfo && !verbose {
		return ""
	}
	return string(r.Severity) + " " + r.Finding
}

// mark is a result's conformance in a word.
func mark(r conformance.Result, baselined bool) string {
	switch {
	case r.Verdict == conformance.NotRun:
		return "NOT RUN"
	case r.Verdict == conformance.NotApplicable:
		return "n/a"
	case r.Conforms:
		return "ok"
	case baselined:
		return "accepted"
	}
	return "FAIL"
}

// printSummary prints the screen that ends a check: the counts, the
// findings per severity, the worst finding and what to do about it, and
// the baseline's verdict.
func printSummary(w io.Writer, reps []*checkReport, b *baseline) {
	var s conformance.Summary
	var elapsed time.Duration
	count := map[conformance.Severity]int{}
	accepted := 0
	type seen struct {
		f     conformance.Finding
		n     int
		where []string
	}
	var worst []*seen
	byID := map[string]*seen{}
	for _, r := range reps {
		rs := r.Summary
		elapsed += r.elapsed
		s.Cases += rs.Cases
		s.Conforming += rs.Conforming
		s.NonConforming += rs.NonConforming
		s.NotRun += rs.NotRun
		s.NotApplicable += rs.NotApplicable
		for _, res := range r.Results {
			if res.Severity == "" {
				continue
			}
			count[res.Severity]++
			if res.Severity == conformance.SeverityInfo {
				continue
			}
			if r.baselined(res) {
				accepted++
				continue
			}
			f, _ := conformance.FindingByID(res.Finding)
			x := byID[f.ID]
			if x == nil {
				x = &seen{f: f}
				byID[f.ID] = x
				worst = append(worst, x)
			}
			x.n++
			x.where = append(x.where, res.Method+" "+res.Case)
		}
	}
	rank := func(sev conformance.Severity) int { return slices.Index(conformance.Severities, sev) }
	slices.SortStableFunc(worst, func(a, b *seen) int { return rank(a.f.Severity) - rank(b.f.Severity) })
	fmt.Fprintf(w, "\nsummary: %d cases: %d conform, %d do not conform, %d could not run, %d not applicable (%.1f s)\n",
		s.Cases, s.Conforming, s.NonConforming, s.NotRun, s.NotApplicable, elapsed.Seconds())
	fmt.Fprintf(w, "findings: %d high, %d medium, %d low", count[conformance.SeverityHigh], count[conformance.SeverityMedium], count[conformance.SeverityLow])
	if accepted > 0 {
		fmt.Fprintf(w, " (%d accepted by the baseline)", accepted)
	}
	fmt.Fprintf(w, "; %d informational notes (-v shows them)\n", count[conformance.SeverityInfo])
	if len(worst) > 0 {
		x := worst[0]
		where := strings.Join(x.where[:min(2, len(x.where))], ", ")
		if len(x.where) > 2 {
			where += fmt.Sprintf(" and %d more", len(x.where)-2)
		}
		fmt.Fprintf(w, "worst: %s %s: %s (%s)\n", x.f.Severity, x.f.ID, x.f.Title, where)
		fmt.Fprintf(w, "what to do: %s; see %s%s\n", x.f.Fix, findingsDoc, x.f.ID)
		for _, y := range worst[1:] {
			fmt.Fprintf(w, "also: %s %s: %s (%d cases)\n", y.f.Severity, y.f.ID, y.f.Title, y.n)
		}
	} else if s.Conforming == 0 {
		fmt.Fprintln(w, "nothing was checked (see the errors above)")
	} else if s.NonConforming == 0 && s.NotRun == 0 {
		fmt.Fprintln(w, "no finding: every case that ran conforms")
	}
	if s.NotRun > 0 {
		fmt.Fprintln(w, "some cases could not run: their details say why (a timeout, a refused connection)")
	}
	if b != nil {
		if stale := b.stale(reps); len(stale) > 0 {
			fmt.Fprintf(w, "baseline %s: %d entries match no finding of this run (fixed? remove them): %s\n",
				b.path, len(stale), strings.Join(stale, "; "))
		} else {
			fmt.Fprintf(w, "baseline %s: every entry still matches a finding\n", b.path)
		}
	}
}

// baseline is a file of accepted findings, one a line:
//
//	FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX]
//
// with # comments. A finding of a result is accepted when an entry names
// its id, its method (or *, or none) and a prefix of its peer's
// identification line (or none).
type baseline struct {
	path    string
	entries []baselineEntry
}

type baselineEntry struct {
	line                   int
	id, method, peerPrefix string
}

func (e baselineEntry) String() string {
	return strings.TrimSpace(fmt.Sprintf("line %d: %s %s %s", e.line, e.id, e.method, e.peerPrefix))
}

func (e baselineEntry) matches(peer string, r conformance.Result) bool {
	return r.Finding == e.id && r.Severity != conformance.SeverityInfo &&
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
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 3 || !known[fields[0]] {
			return nil, fmt.Errorf("%s:%d: want FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX] with a finding id of docs/conformance.md, not %q", path, n, strings.TrimSpace(line))
		}
		e := baselineEntry{line: n, id: fields[0]}
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

// accepts reports whether an entry accepts r, a result of a check of peer.
func (b *baseline) accepts(peer string, r conformance.Result) bool {
	return b != nil && slices.ContainsFunc(b.entries, func(e baselineEntry) bool { return e.matches(peer, r) })
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
			if !strings.HasPrefix(peer, e.peerPrefix) {
				continue
			}
			applies = true
			for _, res := range r.Results {
				if e.matches(peer, res) {
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

// writeBaseline writes the findings of reps as a baseline accepting them
// for their peers' identification lines.
func writeBaseline(path string, reps []*checkReport) error {
	var lines []string
	for _, r := range reps {
		for _, res := range r.Results {
			if res.Finding == "" || res.Severity == conformance.SeverityInfo {
				continue
			}
			l := res.Finding + " " + res.Method + " " + strings.Fields(r.peerVersion() + " -")[0]
			if !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	head := "# pqkex check baseline: FINDING-ID [METHOD|*] [PEER-VERSION-PREFIX], one accepted finding a line\n"
	return os.WriteFile(path, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644)
}

// JUnit XML, as GitHub Actions' and GitLab's test report readers take it:
// a test suite per target and method, a test case per case; a finding is
// a failure (type: severity and id), one accepted by the baseline or a
// case that could not run or does not apply is skipped.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// writeJUnit writes reps as JUnit XML to path.
func writeJUnit(path string, reps []*checkReport) error {
	out := junitSuites{Name: "pqkex check"}
	for _, r := range reps {
		var suite *junitSuite
		for _, res := range r.Results {
			name := r.name() + " " + res.Method
			if suite == nil || suite.Name != name {
				out.Suites = append(out.Suites, junitSuite{Name: name})
				suite = &out.Suites[len(out.Suites)-1]
			}
			c := junitCase{Name: res.Case, Classname: "pqkex.check." + res.Method, Time: fmt.Sprintf("%.3f", res.ElapsedMS/1000)}
			switch {
			case res.Verdict == conformance.NotApplicable || res.Verdict == conformance.NotRun:
				c.Skipped = &junitSkipped{Message: string(res.Verdict) + ": " + res.Detail}
			case !res.Conforms && r.baselined(res):
				c.Skipped = &junitSkipped{Message: "accepted by the baseline: " + res.Finding}
			case !res.Conforms:
				f, _ := conformance.FindingByID(res.Finding)
				c.Failure = &junitFailure{Message: f.Title + " (" + res.Observed() + ")", Type: string(res.Severity) + " " + res.Finding,
					Text: res.Clause + ": " + res.Detail + "\nwhat to do: " + f.Fix + "; see " + findingsDoc + f.ID}
			default:
				c.SystemOut = res.Detail
			}
			suite.Tests++
			out.Tests++
			if c.Failure != nil {
				suite.Failures++
				out.Failures++
			}
			if c.Skipped != nil {
				suite.Skipped++
				out.Skipped++
			}
			suite.Cases = append(suite.Cases, c)
		}
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(data, '\n')...), 0o644)
}
