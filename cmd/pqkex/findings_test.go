package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
)

// clauseRef is what names a clause: an RFC, FIPS or SEC section or
// OpenSSH's PROTOCOL.
var clauseRef = regexp.MustCompile(`(RFC [0-9]+|FIPS [0-9]+|SEC 1) §[0-9]|PROTOCOL(\.[a-z0-9]+)? ?§?`)

// TestFindingWriteUps: every finding check reports has a write-up in the
// binary, "pqkex help ID" prints it, and every write-up names a clause
// and its cases; a file that is not a finding's is a note (severity
// info, with its title). The findings of real peers record where they
// were seen, and where the defect starts where that is known.
func TestFindingWriteUps(t *testing.T) {
	ids := map[string]bool{}
	for _, f := range conformance.Findings() {
		ids[f.ID] = true
		if _, ok := readWriteUp(f.ID); !ok {
			t.Errorf("finding %s has no write-up: add cmd/pqkex/findings/%s.md", f.ID, f.ID)
		}
	}
	all := writeUps()
	if len(all) < len(ids) {
		t.Errorf("%d write-ups for %d findings", len(all), len(ids))
	}
	for _, w := range all {
		if !clauseRef.MatchString(w.clause) {
			t.Errorf("%s: its Clause line names no clause: %q", w.id, w.clause)
		}
		if w.cases == "" || w.text == "" || w.title == "" || w.severity == "" {
			t.Errorf("%s: cases %q, title %q, severity %q, %d bytes of text", w.id, w.cases, w.title, w.severity, len(w.text))
		}
		if !ids[w.id] && w.severity != string(conformance.SeverityInfo) {
			t.Errorf("%s: a write-up of no finding, and not a note (Severity: info)", w.id)
		}
		if ids[w.id] && !strings.Contains(w.text, "Seen in:") {
			t.Errorf("%s: the write-up does not say where the finding was seen (\"Seen in:\")", w.id)
		}
		var out, errOut bytes.Buffer
		if code := runHelp([]string{w.id}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "clause: ") ||
			!strings.Contains(out.String(), w.id+" ("+w.severity+")") {
			t.Errorf("pqkex help %s: exit %d\n%s%s", w.id, code, out.String(), errOut.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if len([]rune(l)) > textWidth {
				t.Errorf("pqkex help %s: a line of %d columns: %q", w.id, len([]rune(l)), l)
			}
		}
	}
	// Where a defect starts: versions that refuse what a later one takes.
	for id, want := range map[string][]string{
		"x25519-zero": {"tinysshd 20250501", "tinysshd 20230101"},
		"length":      {"plink", "0.85", "plink 0.78"},
		"x25519-mask": {"OpenSSH 9.2p1", "10.0p2", "10.6p1"},
		// Where the defects of issue 48 were seen: in the source read,
		// or as reported in the field.
		"rekey-preauth":  {"OpenSSH", "auth2.c", "libssh 0.12.2", "src/kex.c", "tinysshd 20250501", "packet_auth.c"},
		"k-leading-zero": {"Erlang/OTP 28.4 to 29.0", "erlang/otp#11208", "erlang/otp#11209", "libssh2"},
		"kex-silent":     {"Tailscale SSH", "tailscale#20047"},
	} {
		w, _ := readWriteUp(id)
		for _, s := range want {
			if !strings.Contains(strings.Join(strings.Fields(w.text), " "), s) {
				t.Errorf("%s: the write-up does not record %q", id, s)
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := runHelp([]string{"findings"}, &out, &errOut); code != 0 || strings.Count(out.String(), "\n") < len(all) {
		t.Errorf("pqkex help findings: exit %d\n%s", code, out.String())
	}
	if code := runHelp([]string{"no-such-finding"}, &out, &errOut); code != 2 {
		t.Errorf("pqkex help no-such-finding: exit %d, want 2", code)
	}
	if code := runHelp([]string{"../check"}, &out, &errOut); code != 2 {
		t.Errorf("pqkex help ../check: exit %d, want 2", code)
	}
}

// TestFindingsDoc: docs/conformance.md's table of findings is the one
// made from the write-ups (PQKEX_UPDATE_DOCS=1 rewrites it).
func TestFindingsDoc(t *testing.T) {
	const path = "../../docs/conformance.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	const begin, end = "<!-- BEGIN findings -->\n", "<!-- END findings -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, begin, end)
	}
	want := findingsTable()
	if got := doc[i+len(begin) : j]; got != want {
		if os.Getenv("PQKEX_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the table of findings in %s", path)
			return
		}
		t.Errorf("%s's table of findings is not the one made from cmd/pqkex/findings (PQKEX_UPDATE_DOCS=1 go test -run TestFindingsDoc ./cmd/pqkex rewrites it); want\n%s", path, want)
	}
}
