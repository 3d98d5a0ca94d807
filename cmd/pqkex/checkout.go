package main

// What check prints: the table, the findings by root cause and the
// summary screen, within textWidth columns. The baseline of accepted
// findings is in baseline.go, the JUnit XML in junit.go.

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

// textWidth is the width, in columns, of check's and scan's text output.
const textWidth = 100

// explainHint says where a finding is explained: the write-ups ship in
// the binary (pqkex help ID).
func explainHint(id string) string { return "pqkex help " + id }

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
		return strings.TrimSpace("client " + r.ClientVersion + " on " + r.Listen)
	}
	return r.Target
}

// printCheck prints one report: its peer, a table per method (case,
// expected, observed, result, finding), then one row per root cause of
// what did not conform or run (a finding with its count, clause, cases
// and one case's detail; a reason a case could not run), and, when
// verbose, every case's detail with its clause and note. Every line is
// at most textWidth columns: peer text is wrapped, a long word cut.
func printCheck(w io.Writer, r *checkReport, verbose bool) {
	line := func(s, indent string) { printWrapped(w, s, indent) }
	switch r.Role {
	case "server":
		line(strings.TrimSpace("server  "+r.Target+"  "+r.Version), "        ")
		if r.Strict != nil && r.Version != "" {
			fmt.Fprintf(w, "strict key exchange offered: %v\n", *r.Strict)
		}
	case "client":
		s := fmt.Sprintf("client under test on %s: %s %s", r.Listen, r.ClientAddr, r.ClientVersion)
		if r.Refused > 0 {
			s += fmt.Sprintf(" (%d connections of other clients refused)", r.Refused)
		}
		line(s, "  ")
	}
	method := ""
	var tw *tabwriter.Writer
	flush := func() {
		if tw != nil {
			tw.Flush()
			tw = nil
		}
	}
	for _, res := range r.Results {
		if res.Method == conformance.AllCases {
			continue // the whole target: its row below says why
		}
		if res.Case == conformance.AllCases {
			flush()
			method = ""
			fmt.Fprintln(w)
			line(res.Method+"  "+mark(res.Result, res.Accepted)+": "+res.Detail, "  ")
			continue
		}
		if res.Method != method {
			flush()
			method = res.Method
			fmt.Fprintf(w, "\n%s\n", method)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  CASE\tEXPECTED\tOBSERVED\tRESULT\tFINDING")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", res.Case, res.Expected, res.Observed(), mark(res.Result, res.Accepted), findingColumn(res.Result, verbose))
	}
	flush()
	if verbose {
		var details []string // each a detail, and its transcript's line if any
		for _, res := range r.Results {
			d := fmt.Sprintf("%s %s %s [%s]: %s", res.Method, res.Case, mark(res.Result, res.Accepted), res.Clause, res.Detail)
			if res.Method == conformance.AllCases {
				d = "the whole check: " + res.Detail
			}
			if res.Note != "" {
				d += " (note: " + res.Note + ")"
			}
			if res.Accepted {
				d += " (accepted: " + res.AcceptedBy + ")"
			}
			details = append(details, "  "+d)
			if res.Transcript != "" {
				details = append(details, "    transcript: "+res.Transcript)
			}
		}
		if len(details) > 0 {
			fmt.Fprintln(w, "\ndetails:")
			for _, d := range details {
				line(d, "      ")
			}
		}
	}
	causes := rootCauses(r, verbose)
	if len(causes) == 0 {
		return
	}
	fmt.Fprintln(w, "\nby root cause (a row each, with its count):")
	for _, c := range causes {
		c.print(line)
	}
}

// cause is one root cause of a report's results that did not conform
// or run: a finding (its id), a case that failed without one, or a
// reason cases could not run.
type cause struct {
	finding  conformance.Finding // ID "" when none
	notRun   string              // the reason, for cases that did not run
	results  []checkResult
	accepted []string // the baseline entries accepting them
}

// localPort matches the local port of a connection in a detail.
var localPort = regexp.MustCompile(`:\d{1,5}->`)

// detailKey is what makes two not-run details one reason: the method's
// name and the local port of a connection left out.
func detailKey(r checkResult) string {
	d := r.Detail
	if r.Method != conformance.AllCases {
		d = strings.ReplaceAll(d, r.Method, "METHOD")
	}
	return localPort.ReplaceAllString(d, ":*->")
}

// rootCauses groups a report's results that did not conform (and, when
// verbose, the conforming ones with an informational note) by finding,
// and those that could not run by reason, worst first, in the order
// met otherwise.
func rootCauses(r *checkReport, verbose bool) []*cause {
	var out []*cause
	byKey := map[string]*cause{}
	for _, res := range r.Results {
		var key string
		c := &cause{}
		switch {
		case res.Verdict == conformance.NotApplicable:
			continue
		case res.Verdict == conformance.NotRun:
			key = "not run: " + detailKey(res)
			c.notRun = detailKey(res)
		case res.Conforms && (res.Severity != conformance.SeverityInfo || !verbose):
			continue
		case res.Finding != "":
			key = "finding: " + res.Finding
			if f, ok := conformance.FindingByID(res.Finding); ok {
				c.finding = f
			} else {
				c.finding = conformance.Finding{ID: res.Finding, Severity: res.Severity, Title: res.Note}
			}
		default:
			key = "case: " + res.Case
		}
		if x := byKey[key]; x != nil {
			c = x
		} else {
			byKey[key] = c
			out = append(out, c)
		}
		c.results = append(c.results, res)
		if res.Accepted && !slices.Contains(c.accepted, res.AcceptedBy) {
			c.accepted = append(c.accepted, res.AcceptedBy)
		}
	}
	rank := func(c *cause) int {
		switch {
		case c.notRun != "":
			return len(conformance.Severities) + 1
		case c.finding.ID == "":
			return -1 // a failure without a finding id: first, it is unexplained
		}
		return slices.Index(conformance.Severities, c.finding.Severity)
	}
	slices.SortStableFunc(out, func(a, b *cause) int { return rank(a) - rank(b) })
	return out
}

// print prints the cause as a row and its indented lines.
func (c *cause) print(line func(s, indent string)) {
	n := len(c.results)
	first := c.results[0]
	switch {
	case c.notRun != "":
		line(fmt.Sprintf("  could not run ×%d: %s", n, first.Detail), "      ")
	case c.finding.ID == "":
		line(fmt.Sprintf("  FAIL %s ×%d (no finding id)", first.Case, n), "      ")
	default:
		head := fmt.Sprintf("  %s %s ×%d: %s", c.finding.Severity, c.finding.ID, n, c.finding.Title)
		if k := acceptedCount(c.results); k == n {
			head += " (accepted by the baseline)"
		} else if k > 0 {
			head += fmt.Sprintf(" (%d of them accepted by the baseline)", k)
		}
		line(head, "      ")
	}
	if clauses := causeClauses(c.results); clauses != "" {
		line("    clause: "+clauses, "      ")
	}
	if first.Method != conformance.AllCases {
		line("    cases: "+caseList(c.results), "      ")
	}
	if c.notRun == "" {
		line(fmt.Sprintf("    e.g. %s %s: %s", first.Method, first.Case, first.Detail), "      ")
		if first.Transcript != "" {
			line("    transcript: "+first.Transcript, "      ")
		}
	}
	if c.finding.Fix != "" {
		line("    what to do: "+c.finding.Fix, "      ")
	}
	if c.finding.ID != "" {
		line("    explained by: "+explainHint(c.finding.ID), "      ")
	}
	for _, a := range c.accepted {
		line("    accepted by "+a, "      ")
	}
}

func acceptedCount(rs []checkResult) int {
	n := 0
	for _, r := range rs {
		if r.Accepted {
			n++
		}
	}
	return n
}

// causeClauses is the clauses of rs, each once.
func causeClauses(rs []checkResult) string {
	var out []string
	for _, r := range rs {
		if r.Clause != "" && !slices.Contains(out, r.Clause) {
			out = append(out, r.Clause)
		}
	}
	return strings.Join(out, " | ")
}

// caseList names the cases of rs compactly: each method's cases, and
// methods with the same cases together.
func caseList(rs []checkResult) string {
	var methods []string
	cases := map[string][]string{}
	for _, r := range rs {
		if _, ok := cases[r.Method]; !ok {
			methods = append(methods, r.Method)
		}
		cases[r.Method] = append(cases[r.Method], r.Case)
	}
	var groups []string
	done := map[string]bool{}
	for _, m := range methods {
		if done[m] {
			continue
		}
		same := []string{m}
		for _, o := range methods {
			if o != m && !done[o] && slices.Equal(cases[o], cases[m]) {
				same = append(same, o)
				done[o] = true
			}
		}
		done[m] = true
		groups = append(groups, strings.Join(cases[m], ", ")+" of "+strings.Join(same, ", "))
	}
	return strings.Join(groups, "; ")
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
func mark(r conformance.Result, accepted bool) string {
	switch {
	case r.Verdict == conformance.NotRun:
		return "NOT RUN"
	case r.Verdict == conformance.NotApplicable:
		return "n/a"
	case r.Conforms:
		return "ok"
	case accepted:
		return "accepted"
	}
	return "FAIL"
}

// printSummary prints the screen that ends a check: the counts, the
// findings per severity, the worst finding and what to do about it, and
// the baseline's verdict.
func printSummary(w io.Writer, reps []*checkReport, b *baseline) {
	line := func(s string) { printWrapped(w, s, "  ") }
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
			if res.Accepted {
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
	fmt.Fprintln(w)
	line(fmt.Sprintf("summary: %d cases: %d conform, %d do not conform, %d could not run, %d not applicable (%.1f s)",
		s.Cases, s.Conforming, s.NonConforming, s.NotRun, s.NotApplicable, elapsed.Seconds()))
	f := fmt.Sprintf("findings: %d high, %d medium, %d low", count[conformance.SeverityHigh], count[conformance.SeverityMedium], count[conformance.SeverityLow])
	if accepted > 0 {
		f += fmt.Sprintf(" (%d accepted by the baseline)", accepted)
	}
	line(f + fmt.Sprintf("; %d informational notes (-v shows them)", count[conformance.SeverityInfo]))
	if len(worst) > 0 {
		x := worst[0]
		where := strings.Join(x.where[:min(2, len(x.where))], ", ")
		if len(x.where) > 2 {
			where += fmt.Sprintf(" and %d more", len(x.where)-2)
		}
		line(fmt.Sprintf("worst: %s %s: %s (%s)", x.f.Severity, x.f.ID, x.f.Title, where))
		line("what to do: " + x.f.Fix)
		line("explained by: " + explainHint(x.f.ID))
		for _, y := range worst[1:] {
			line(fmt.Sprintf("also: %s %s: %s (%d cases)", y.f.Severity, y.f.ID, y.f.Title, y.n))
		}
	} else if s.Conforming == 0 && s.NonConforming == 0 {
		line("nothing was checked (see the rows above)")
	} else if s.NonConforming == 0 && s.NotRun == 0 {
		line("no finding: every case that ran conforms")
	} else if s.NonConforming == accepted && accepted > 0 {
		line("no finding but those the baseline accepts")
	}
	if s.NotRun > 0 {
		line("some cases could not run: the rows \"could not run\" above say why (a timeout, a refused connection)")
	}
	identified := slices.ContainsFunc(reps, func(r *checkReport) bool { return r.peerVersion() != "" })
	if b != nil && !identified {
		line(fmt.Sprintf("baseline %s: not applied (no peer identified itself)", b.path))
	} else if b != nil {
		if stale := b.stale(reps); len(stale) > 0 {
			line(fmt.Sprintf("baseline %s: %d entries match no finding of this run (fixed? remove them): %s",
				b.path, len(stale), strings.Join(stale, "; ")))
		} else {
			line(fmt.Sprintf("baseline %s: every entry still matches a finding", b.path))
		}
	}
}

// printWrapped prints s as it is if it fits in textWidth columns, else
// wrapped (wrapText).
func printWrapped(w io.Writer, s, indent string) {
	if utf8.RuneCountInString(s) <= textWidth {
		fmt.Fprintln(w, s)
		return
	}
	for _, l := range wrapText(s, textWidth, indent) {
		fmt.Fprintln(w, l)
	}
}

// wrapText splits s at spaces into lines of at most width columns
// (runes), the lines after the first starting with indent; a word too
// long for a line is cut. Leading spaces of s stay on its first line.
func wrapText(s string, width int, indent string) []string {
	var lines []string
	body := strings.TrimLeft(s, " ")
	cur := s[:len(s)-len(body)] // the line being filled, with its lead
	lead := len(cur)            // columns of cur that are lead
	n := lead                   // columns in cur
	for _, word := range strings.Fields(body) {
		wn := utf8.RuneCountInString(word)
		if n > lead && n+1+wn <= width {
			cur += " " + word
			n += 1 + wn
			continue
		}
		if n > lead {
			lines = append(lines, cur)
			cur, lead = indent, utf8.RuneCountInString(indent)
			n = lead
		}
		for n+wn > width && width > n {
			i := byteIndexOfRune(word, width-n)
			lines = append(lines, cur+word[:i])
			word = word[i:]
			wn -= width - n
			cur, lead = indent, utf8.RuneCountInString(indent)
			n = lead
		}
		cur += word
		n += wn
	}
	return append(lines, cur)
}

// byteIndexOfRune is the byte offset of s's k-th rune (len(s) if fewer).
func byteIndexOfRune(s string, k int) int {
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return len(s)
}
