package sshwire

import (
	"strconv"
	"unicode/utf8"
)

// Text that a peer or a file chose (a server's algorithm names, version
// line or disconnect message, a client's version line or user name, a
// vector file's name or contents) reaches a terminal or a log line only
// through Quote, or Printable, which calls Quote for anything that is
// not plain printable text.

// minQuote is the smallest byte budget Quote and Printable honour: room
// for the quotes, the length note of a cut string and a few bytes of it.
const minQuote = 40

// Quote returns s as a double-quoted Go string literal with
// strconv.Quote's escapes. The result never holds a control byte (C0,
// DEL, C1), invalid UTF-8, a Unicode line or paragraph separator, a
// bidirectional or other format control, or any other rune that
// strconv.IsPrint rejects: each is written as an escape (\x1b, \n, \xff,
// \u2028), so s can neither start a line nor send an escape sequence to
// a terminal, and a space in it is always between quotes.
//
// If budget > 0, the result is at most budget bytes long (a budget below
// 40 counts as 40): when the whole literal does not fit, it holds as many
// of s's first runes as fit and is followed by "... (N bytes)", N being
// len(s), for example "ab\x1bc"... (262144 bytes). With budget <= 0 the
// whole of s is quoted.
func Quote(s string, budget int) string {
	if budget <= 0 || 2+4*len(s) <= budget { // no escape takes more than 4 bytes per byte of s
		return strconv.Quote(s)
	}
	budget = max(budget, minQuote)
	if _, all := quoteFit(s, budget-2); all {
		return strconv.Quote(s)
	}
	note := "... (" + strconv.Itoa(len(s)) + " bytes)"
	n, _ := quoteFit(s, budget-2-len(note))
	return strconv.Quote(s[:n]) + note
}

// Printable returns s itself if it is plain printable text of at most
// budget bytes (budget <= 0: any length; a budget below 40 counts as
// 40): valid UTF-8 whose every rune strconv.IsPrint accepts
// (spaces included), with no '"' and no '\', so that it cannot be taken
// for a quoted or escaped string. Otherwise it returns Quote(s, budget).
// Use it where text is shown as it is when harmless (a name in a list, a
// file name); use Quote where a value must stay recognisable as one
// value within a line (a log line's fields).
func Printable(s string, budget int) string {
	if (budget <= 0 || len(s) <= max(budget, minQuote)) && plain(s) {
		return s
	}
	return Quote(s, budget)
}

// plain reports whether Printable may return s unquoted.
func plain(s string) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || r == '"' || r == '\\' || !strconv.IsPrint(r) {
			return false
		}
		i += w
	}
	return true
}

// quoteFit returns how many of s's first bytes (whole runes, or single
// bytes of invalid UTF-8) strconv.Quote writes in at most budget bytes,
// quotes not counted, and whether that is all of s. strconv.Quote
// escapes rune by rune, so the prefix's literal is the first part of
// the whole literal.
func quoteFit(s string, budget int) (n int, all bool) {
	var buf [16]byte // the longest escape of one rune, "\U0010ffff", is 12 bytes with its quotes
	used := 0
	for n < len(s) {
		_, w := utf8.DecodeRuneInString(s[n:])
		e := len(strconv.AppendQuote(buf[:0], s[n:n+w])) - 2
		if used+e > budget {
			return n, false
		}
		used += e
		n += w
	}
	return n, true
}
