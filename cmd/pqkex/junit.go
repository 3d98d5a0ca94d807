package main

// check's JUnit XML report.

import (
	"encoding/xml"
	"fmt"
	"os"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

// JUnit XML, as GitHub Actions' and GitLab's test report readers take it:
// a test suite per target and method, a test case per case; a finding is
// a failure (type: severity and id), one accepted by the baseline or a
// case that could not run or does not apply is skipped. A target that
// could not be checked at all (no connection, no hybrid method offered)
// is a suite of its own with one skipped case saying why.
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
			name, caseName := r.name()+" "+res.Method, res.Case
			if res.Method == conformance.AllCases {
				name, caseName = r.name(), "the whole check"
			}
			if suite == nil || suite.Name != name {
				out.Suites = append(out.Suites, junitSuite{Name: name})
				suite = &out.Suites[len(out.Suites)-1]
			}
			c := junitCase{Name: caseName, Classname: "pqkex.check." + res.Method, Time: fmt.Sprintf("%.3f", res.ElapsedMS/1000)}
			switch {
			case res.Verdict == conformance.NotApplicable || res.Verdict == conformance.NotRun:
				c.Skipped = &junitSkipped{Message: string(res.Verdict) + ": " + res.Detail}
			case !res.Conforms && res.Accepted:
				c.Skipped = &junitSkipped{Message: "accepted by the baseline (" + res.AcceptedBy + "): " + res.Finding}
			case !res.Conforms:
				f, _ := conformance.FindingByID(res.Finding)
				c.Failure = &junitFailure{Message: f.Title + " (" + res.Observed() + ")", Type: string(res.Severity) + " " + res.Finding,
					Text: res.Clause + ": " + res.Detail + "\nwhat to do: " + f.Fix + "; " + explainHint(f.ID) + " explains it"}
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
