package sshwire

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuotePrintable(t *testing.T) {
	for _, tc := range []struct{ in, quote, printable string }{
		{"mlkem768x25519-sha256", `"mlkem768x25519-sha256"`, "mlkem768x25519-sha256"},
		{"SSH-2.0-OpenSSH_10.0 Debian", `"SSH-2.0-OpenSSH_10.0 Debian"`, "SSH-2.0-OpenSSH_10.0 Debian"},
		{"üñí ok", `"üñí ok"`, "üñí ok"},
		{"", `""`, ""},
		{"a\nb", `"a\nb"`, `"a\nb"`},
		{"a\r\nb", `"a\r\nb"`, `"a\r\nb"`},
		{"esc\x1b[2J", `"esc\x1b[2J"`, `"esc\x1b[2J"`},
		{"esc\x1b[2J\x1b]0;title\a", `"esc\x1b[2J\x1b]0;title\a"`, `"esc\x1b[2J\x1b]0;title\a"`},
		{"del\x7f", `"del\x7f"`, `"del\x7f"`},
		{"c1\u0085\u009b", `"c1\u0085\u009b"`, `"c1\u0085\u009b"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`, `"ls\u2028ps\u2029"`},
		{"bidi\u202egnp.exe", `"bidi\u202egnp.exe"`, `"bidi\u202egnp.exe"`},
		{"zwsp\u200b", `"zwsp\u200b"`, `"zwsp\u200b"`},
		{"bad\xff\xc3", `"bad\xff\xc3"`, `"bad\xff\xc3"`},
		{`say "ok"`, `"say \"ok\""`, `"say \"ok\""`},
		{`a\x1b`, `"a\\x1b"`, `"a\\x1b"`}, // not to be taken for an escape
	} {
		if got := Quote(tc.in, 0); got != tc.quote {
			t.Errorf("Quote(%q, 0) = %s, want %s", tc.in, got, tc.quote)
		}
		if got := Printable(tc.in, 0); got != tc.printable {
			t.Errorf("Printable(%q, 0) = %s, want %s", tc.in, got, tc.printable)
		}
		if got := Quote(tc.in, 1000); got != tc.quote {
			t.Errorf("Quote(%q, 1000) = %s, want %s", tc.in, got, tc.quote)
		}
	}
}

// TestQuoteBudget: a long string is cut to its budget, at a rune, and
// its full length noted.
func TestQuoteBudget(t *testing.T) {
	for _, tc := range []struct {
		in     string
		budget int
		want   string
	}{
		// 50 bytes: 2 quotes, 15 for the note, 33 for the escaped prefix.
		{strings.Repeat("a", 100), 50, `"` + strings.Repeat("a", 33) + `"... (100 bytes)`},
		{strings.Repeat("\x1b", 100), 50, `"` + strings.Repeat(`\x1b`, 8) + `"... (100 bytes)`},
		{strings.Repeat("ü", 100), 50, `"` + strings.Repeat("ü", 16) + `"... (200 bytes)`},
		{strings.Repeat("\u2028", 100), 50, `"` + strings.Repeat(`\u2028`, 5) + `"... (300 bytes)`},
		{strings.Repeat("a", 100), 1, `"` + strings.Repeat("a", 23) + `"... (100 bytes)`}, // a budget below 40 counts as 40
		{strings.Repeat("a", 38), 40, `"` + strings.Repeat("a", 38) + `"`},                // exactly fits
		{strings.Repeat("a", 39), 40, `"` + strings.Repeat("a", 24) + `"... (39 bytes)`},
	} {
		if got := Quote(tc.in, tc.budget); got != tc.want {
			t.Errorf("Quote(%.10q..., %d) = %s, want %s", tc.in, tc.budget, got, tc.want)
		}
		if got := Printable(tc.in, tc.budget); got != tc.want && got != tc.in {
			t.Errorf("Printable(%.10q..., %d) = %s, want %s", tc.in, tc.budget, got, tc.want)
		}
	}
	if got := Printable(strings.Repeat("a", 39), 40); got != strings.Repeat("a", 39) {
		t.Errorf("Printable of 39 plain bytes in 40: %s", got)
	}
	if got := Printable(strings.Repeat("a", 41), 40); got != `"`+strings.Repeat("a", 24)+`"... (41 bytes)` {
		t.Errorf("Printable of 41 plain bytes in 40: %s", got)
	}
}

// checkEscaped checks the promises of Quote(s, budget) = q: at most
// budget bytes (40 at least), no byte or rune that could act on a
// terminal or a log reader, and the literal unquotes to s or, followed
// by its length note, to the longest prefix of s that fits.
func checkEscaped(t fatalfer, s string, budget int, q string) {
	t.Helper()
	if budget > 0 && len(q) > max(budget, 40) {
		t.Fatalf("Quote(%.20q..., %d) has %d bytes", s, budget, len(q))
	}
	if !utf8.ValidString(q) {
		t.Fatalf("Quote(%.20q..., %d) = %.60q...: invalid UTF-8", s, budget, q)
	}
	for _, r := range q {
		if !strconv.IsPrint(r) {
			t.Fatalf("Quote(%.20q..., %d) = %.60q... holds %U", s, budget, q, r)
		}
	}
	// The literal, then the note of a cut string. (Not strings.Cut on
	// `"... (`: s may hold that text, escaped in the literal as \"... (.)
	lit, err := strconv.QuotedPrefix(q)
	if err != nil {
		t.Fatalf("Quote(%.20q..., %d) = %.60q...: %v", s, budget, q, err)
	}
	note := q[len(lit):]
	cut := note != ""
	if cut && note != "... ("+strconv.Itoa(len(s))+" bytes)" {
		t.Fatalf("Quote(%.20q..., %d): note %q", s, budget, note)
	}
	u, err := strconv.Unquote(lit)
	switch {
	case err != nil:
		t.Fatalf("Quote(%.20q..., %d) = %.60q...: %v", s, budget, q, err)
	case !cut && u != s, cut && (!strings.HasPrefix(s, u) || len(u) == len(s)):
		t.Fatalf("Quote(%.20q..., %d) = %.60q... stands for %.20q...", s, budget, q, u)
	case cut:
		// The next rune would not have fitted.
		_, w := utf8.DecodeRuneInString(s[len(u):])
		if next := strconv.Quote(s[:len(u)+w]); len(next)+len(q)-len(lit) <= max(budget, 40) {
			t.Fatalf("Quote(%.20q..., %d) = %.60q... stops short: the next rune fits", s, budget, q)
		}
	}
}

// TestQuoteRandom: random strings of hostile bytes and runes, at random
// budgets.
func TestQuoteRandom(t *testing.T) {
	pieces := []string{"a", " ", "\x00", "\x1b", "\n", "\r", "\x7f", "\xff", "\xc3", "ü", "\u0085", "\u009b", "\u2028", "\u202e", "\U0001F600", "\U000E0001", `"`, `\`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, budget := b.String(), rng.IntN(300)-20
		checkEscaped(t, s, budget, Quote(s, budget))
		if p := Printable(s, budget); p != s {
			checkEscaped(t, s, budget, p)
		} else if strconv.Quote(s) != `"`+s+`"` || budget > 0 && len(s) > max(budget, 40) {
			t.Fatalf("Printable(%q, %d) returned it unquoted", s, budget)
		}
	}
}

// fuzzQuote is the Quote target's body (escape_fuzz_test.go): in is a 2-byte
// big-endian budget (less 20, so that budgets up to 0 are tried), then s.
func fuzzQuote(t fatalfer, in []byte) {
	if len(in) < 2 {
		return
	}
	budget, s := int(binary.BigEndian.Uint16(in))-20, string(in[2:])
	checkEscaped(t, s, budget, Quote(s, budget))
	if p := Printable(s, budget); p != s {
		checkEscaped(t, s, budget, p)
	} else if strconv.Quote(s) != `"`+s+`"` {
		t.Fatalf("Printable(%q, %d) returned it unquoted", s, budget)
	}
}

// fatalfer is the part of a *testing.T that checkEscaped uses (a fuzz
// target's T may be go-118-fuzz-build's).
type fatalfer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// quoteSeed is the Quote target's input for s and budget.
func quoteSeed(s string, budget int) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(budget+20)), s...)
}
