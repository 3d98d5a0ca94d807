package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// garbageServer offers only mlkem768x25519-sha256, under the
// identification line version, and answers every C_INIT with a reply of
// garbage: it takes every bad value, so most cases are findings.
func garbageServer(t *testing.T, version string) string {
	return fakeServer(t, version, kexInitOffering(sshkex.KeyExchangeMLKEM768X25519), func(p []byte) [][]byte {
		if p[0] == sshwire.MsgKexECDHInit {
			return [][]byte{sshwire.AppendKexECDHReply(nil, []byte("key"), make([]byte, 1120), []byte("sig"))}
		}
		return nil
	})
}

// TestBaselineRoundTrip: -write-baseline writes each peer's release
// series (OpenSSH_X.Y without its portable release and distribution,
// dropbear's year, PuTTY's release, libssh's X.Y.), and a prefix holding
// a # (legal in an identification line), a space or a quote is quoted
// so that it reads back as written: accepting the peer's findings, not
// those of another peer.
func TestBaselineRoundTrip(t *testing.T) {
	for version, want := range map[string]string{
		"SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1": "SSH-2.0-OpenSSH_10.0",
		"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10": "SSH-2.0-OpenSSH_9.2",
		"SSH-2.0-OpenSSH_10.6":                    "SSH-2.0-OpenSSH_10.6",
		"SSH-2.0-dropbear_2025.89":                "SSH-2.0-dropbear_2025.",
		"SSH-2.0-PuTTY_Release_0.85":              "SSH-2.0-PuTTY_Release_0.85",
		"SSH-2.0-libssh_0.12.2":                   "SSH-2.0-libssh_0.12.",
		"SSH-2.0-tinyssh yANDedri":                "SSH-2.0-tinyssh",
		"SSH-2.0-Go":                              "SSH-2.0-Go",
	} {
		if got := baselinePrefix(version); got != want {
			t.Errorf("baselinePrefix(%q) = %q, want %q", version, got, want)
		}
	}

	// The peers: each reports findings (method mlkem768x25519-sha256).
	peers := []string{
		"SSH-2.0-#fake_1.0",          // a # where the old reader started a comment
		`SSH-2.0-"quoted"_1.0`,       // quotes
		"SSH-2.0-x\x1b[2J",           // escaped by check: "SSH-2.0-x\x1b[2J"
		"SSH-2.0-OpenSSH_10.0p2 Deb", // a release series
	}
	dir := t.TempDir()
	for i, v := range peers {
		addr := garbageServer(t, v)
		base := filepath.Join(dir, fmt.Sprintf("base%d", i))
		var out, errOut bytes.Buffer
		args := []string{"-timeout", "2s", "-kex", sshkex.KeyExchangeMLKEM768X25519}
		if code := runCheck(append(args, "-write-baseline", base, addr), &out, &errOut); code != checkNonConforming {
			t.Fatalf("%q: exit %d without a baseline\n%s", v, code, errOut.String())
		}
		written, _ := os.ReadFile(base)
		b, err := readBaseline(base)
		if err != nil {
			t.Fatalf("%q: the written baseline does not read back: %v\n%s", v, err, written)
		}
		want := baselinePrefix(sshwire.Printable(v, 255))
		for _, e := range b.entries {
			if e.peerPrefix != want {
				t.Errorf("%q: entry %s reads back as prefix %q, want %q\n%s", v, e, e.peerPrefix, want, written)
			}
		}
		out.Reset()
		if code := runCheck(append(args, "-baseline", base, addr), &out, &errOut); code != checkNotRun {
			t.Errorf("%q: exit %d with its own baseline, want 3 (packet-tampered cannot run)\n%s", v, code, out.String())
		}
		// Another server's findings are not accepted by it.
		other := garbageServer(t, "SSH-2.0-other_1.0")
		if code := runCheck(append(args, "-baseline", base, other), &out, &errOut); code != checkNonConforming {
			t.Errorf("%q's baseline accepts SSH-2.0-other_1.0's findings: exit %d\n%s", v, code, written)
		}
	}
	// A line with a quoted field, a comment after it, and errors.
	if f, err := baselineFields(`x25519-mask * "SSH-2.0-a b#c" # why`); err != nil || !slices.Equal(f, []string{"x25519-mask", "*", "SSH-2.0-a b#c"}) {
		t.Errorf("fields %q, %v", f, err)
	}
	for _, bad := range []string{`x "unterminated`, `x "a"b`} {
		if _, err := baselineFields(bad); err == nil {
			t.Errorf("baselineFields(%q): no error", bad)
		}
	}
}

// TestCheckJSONAccepted: the JSON results say which the baseline
// accepts and by which entry, and docs/conformance.md's jq recipe, run
// as written, prints exactly the findings not accepted.
func TestCheckJSONAccepted(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jq is not installed (.ci/run installs it)")
		}
		t.Skip("jq is not installed")
	}
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	recipe := regexp.MustCompile(`(?m)^pqkex check -json -baseline ([^ ]+) HOST \| jq -r '([^']+)'$`).FindStringSubmatch(string(doc))
	if recipe == nil {
		t.Fatal("docs/conformance.md has no line \"pqkex check -json -baseline FILE HOST | jq -r '...'\"")
	}
	addr := garbageServer(t, "SSH-2.0-fake_1.0")
	base := filepath.Join(t.TempDir(), recipe[1])
	if err := os.WriteFile(base, []byte("x25519-mask * SSH-2.0-fake_\nlength\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	runCheck([]string{"-json", "-baseline", base, "-timeout", "2s", "-kex", sshkex.KeyExchangeMLKEM768X25519, addr}, &out, &errOut)
	var rep checkReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var want []string
	accepted := 0
	for _, r := range rep.Results {
		switch {
		case r.Finding == "x25519-mask" || r.Finding == "length":
			accepted++
			if !r.Accepted || !strings.HasPrefix(r.AcceptedBy, base+":") {
				t.Errorf("%s %s (%s): accepted %v by %q", r.Method, r.Case, r.Finding, r.Accepted, r.AcceptedBy)
			}
		case r.Accepted:
			t.Errorf("%s %s (%s) accepted by %q", r.Method, r.Case, r.Finding, r.AcceptedBy)
		case !r.Conforms && r.Finding != "":
			want = append(want, fmt.Sprintf("%s %s %s %s", r.Severity, r.Finding, r.Method, r.Case))
		}
	}
	if accepted == 0 || len(want) == 0 {
		t.Fatalf("%d accepted, %d not: the server should have both", accepted, len(want))
	}
	cmd := exec.Command(jq, "-r", recipe[2])
	cmd.Stdin = &out
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq -r '%s': %v", recipe[2], err)
	}
	if g := strings.Split(strings.TrimSpace(string(got)), "\n"); !slices.Equal(g, want) {
		t.Errorf("the recipe printed\n%s\nwant the findings not accepted:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestCheckTextWidth: the default text output stays within 100 columns
// on a run full of long peer text (an identification line, algorithm
// names and disconnect messages of hundreds of bytes, with no spaces to
// wrap at); one root cause is one row with its count; -v marks the
// findings the baseline accepts as accepted, on stdout and stderr.
func TestCheckTextWidth(t *testing.T) {
	long := strings.Repeat("x", 300)
	longLine := strings.Repeat("v", 110) // an identification line is at most 255 bytes
	kexinit := kexInitOffering(sshkex.KeyExchangeMLKEM768X25519, "evil-"+long)
	addr := fakeServer(t, "SSH-2.0-"+longLine+" "+longLine, kexinit, func(p []byte) [][]byte {
		switch p[0] {
		case sshwire.MsgKexECDHInit:
			return [][]byte{sshwire.AppendKexECDHReply(nil, []byte("key"), make([]byte, 1120), []byte("sig"))}
		case sshwire.MsgKexInit:
			return nil
		}
		d := []byte{1, 0, 0, 0, 3}
		return [][]byte{sshwire.AppendString(sshwire.AppendString(d, []byte("bye"+long)), nil)}
	})
	var out, errOut bytes.Buffer
	runCheck([]string{"-timeout", "2s", addr}, &out, &errOut)
	for _, w := range []struct {
		name string
		text string
	}{{"stdout", out.String()}, {"stderr", errOut.String()}} {
		for _, l := range strings.Split(w.text, "\n") {
			if n := utf8.RuneCountInString(l); n > textWidth {
				t.Errorf("%s: a line of %d columns: %q", w.name, n, l)
			}
		}
	}
	// The x25519-mask cases of the method: one row, counted, with its
	// clause and the command that explains it.
	if n := strings.Count(out.String(), "low x25519-mask ×7"); n != 1 {
		t.Errorf("%d rows \"low x25519-mask ×7\", want 1:\n%s", n, out.String())
	}
	for _, want := range []string{"clause: RFC 8731 §3; RFC 7748 §5", "pqkex help x25519-mask"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	base := filepath.Join(t.TempDir(), "base")
	os.WriteFile(base, []byte("x25519-mask\n"), 0o600)
	out.Reset()
	errOut.Reset()
	runCheck([]string{"-v", "-baseline", base, "-timeout", "2s", "-kex", sshkex.KeyExchangeMLKEM768X25519, addr}, &out, &errOut)
	// Each bit-255 case is shown as accepted in the table, in -v's details
	// and in -v's lines on stderr, and never as FAIL.
	for name, c := range map[string]struct {
		text string
		want int
	}{"stdout": {out.String(), 14}, "stderr": {errOut.String(), 7}} {
		n := 0
		for _, l := range strings.Split(c.text, "\n") {
			if !regexp.MustCompile(`x25519-[a-z0-9+-]*-bit255 `).MatchString(l) {
				continue
			}
			if strings.Contains(l, "FAIL") {
				t.Errorf("-v %s: an accepted finding shown as FAIL: %q", name, l)
			}
			if strings.Contains(l, " accepted ") {
				n++
			}
		}
		if n != c.want {
			t.Errorf("-v %s: %d lines show a bit-255 case as accepted, want %d:\n%s", name, n, c.want, c.text)
		}
	}
	if !strings.Contains(out.String(), "low x25519-mask ×7: bit 255 of a received X25519 key is not masked (accepted by the baseline)") {
		t.Errorf("-v: the accepted finding's row:\n%s", out.String())
	}
}

// TestCheckServerOffersNone: a server that offers no hybrid method is one
// result in every output: a row saying so with the server named, "1
// could not run" in the summary, a result in the JSON besides its error,
// a skipped case in JUnit; exit status 3. Among several servers it is
// named as such.
func TestCheckServerOffersNone(t *testing.T) {
	noPQ := fakeServer(t, "SSH-2.0-fake", kexInitOffering(ssh.KeyExchangeCurve25519), nil)
	good, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	dir := t.TempDir()
	junit := filepath.Join(dir, "report.xml")
	const why = "the server offers none of the key exchanges checked"
	var out, errOut bytes.Buffer
	code := runCheck([]string{"-junit", junit, "-kex", sshkex.KeyExchangeMLKEM768X25519, good, noPQ}, &out, &errOut)
	if code != checkNotRun || !strings.Contains(out.String(), "could not run ×1: "+why) || !strings.Contains(out.String(), "1 could not run") ||
		!strings.Contains(out.String(), "server  "+noPQ) {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	report, _ := os.ReadFile(junit)
	if !strings.Contains(string(report), `<testsuite name="`+noPQ+`"`) || !strings.Contains(string(report), why) {
		t.Errorf("JUnit:\n%s", report)
	}
	out.Reset()
	runCheck([]string{"-json", noPQ}, &out, &errOut)
	var rep checkReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Error, why) || len(rep.Results) != 1 || rep.Results[0].Verdict != conformance.NotRun || rep.Summary.NotRun != 1 {
		t.Errorf("JSON: error %q, results %+v, summary %+v", rep.Error, rep.Results, rep.Summary)
	}
}

// TestPlanNote: the estimate of a server check counts OpenSSH's
// PerSourcePenalties (9.8 and later) when check will have to wait them
// out, and calls itself a lower bound otherwise; with -soak it counts the
// soak's connections, paced from the start against such a server.
func TestPlanNote(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		version string
		pause   time.Duration
		soak    int
		want    []string
	}{
		{"SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1", 0, 0, []string{"73 cases, one connection each; ", "expected to take about 1m21s: OpenSSH 10.0 refuses a source"}},
		{"SSH-2.0-OpenSSH_9.8", 0, 0, []string{"expected to take about 1m21s: OpenSSH 9.8"}},
		{"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10", 0, 0, []string{"expected to take about a second or more: more if the server starts refusing"}},
		{"SSH-2.0-OpenSSH_10.0", conformance.PacePause, 0, []string{"expected to take about 1m21s or more"}},
		{"SSH-2.0-Go", 0, 0, []string{"expected to take about a second or more"}},
		// -soak 100 on three methods: 73 cases and a soak each, 373
		// connections, 1.1 s apart from the start against OpenSSH 9.8
		// and later, each taking two of the probe's 5 ms.
		{"SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1", conformance.PacePause, 100, []string{"76 cases, 373 connections (one a case, 100 for each method's soak); ",
			"expected to take about 6m54s or more"}},
		{"SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1", 0, 100, []string{"76 cases, 373 connections", "expected to take about 6m54s: OpenSSH 10.0", "from the start"}},
		{"SSH-2.0-Go", 0, 100, []string{"76 cases, 373 connections", "expected to take about 4s or more"}},
	} {
		cases, conns := 73, 73
		if c.soak > 0 {
			cases, conns = 73+3, 73+3*c.soak
		}
		pause := c.pause
		if c.soak > 0 && c.version != "SSH-2.0-Go" {
			pause = conformance.PacePause // as CheckServer paces a soak of OpenSSH 9.8 and later
		}
		least := time.Duration(conns) * pause
		got := planNote(plan{cases: cases, connections: conns, soak: c.soak, probe: 5 * ms, least: least, version: c.version,
			pause: c.pause, deadline: 30 * time.Minute})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s, pause %v, soak %d: %q\nwant %q", c.version, c.pause, c.soak, got, w)
			}
		}
	}
}
