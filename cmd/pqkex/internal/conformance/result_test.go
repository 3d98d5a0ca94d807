package conformance

import (
	"strings"
	"testing"
	"time"
)

// TestAbortNoteClauses: the note "closed without SSH_MSG_DISCONNECT"
// (and the one on another reason) is given where the clause defines an
// abort as SSH_MSG_DISCONNECT, RFC 8731 §3 and RFC 9941 §3, and not
// where RFC 10042 alone is the clause: the RFC does not define an abort
// (its last draft's §2.1 did).
func TestAbortNoteClauses(t *testing.T) {
	for _, c := range []struct {
		clause string
		note   bool
	}{
		{"RFC 10042 §2.1", false},
		{"FIPS 203 §7.2; RFC 10042 §2.1", false},
		{"RFC 10042 §2.1; RFC 5656 §4; SEC 1 §3.2.2", false},
		{"RFC 10042 §2.1; RFC 4251 §5", false},
		{"RFC 9941 §3", true},
		{"RFC 9941 §3; RFC 4251 §5", true},
		{"RFC 8731 §3; RFC 7748 §5", true},
	} {
		for _, v := range []Result{{Verdict: Closed}, {Verdict: Rejected, DisconnectReason: 2}} {
			r := v
			r.Clause, r.Expected = c.clause, ExpectAbort
			r.finish(time.Now())
			if got := r.Note != ""; got != c.note || !r.Conforms {
				t.Errorf("%s, %s: note %q (conforms %v), want a note: %v", c.clause, r.Observed(), r.Note, r.Conforms, c.note)
			}
		}
	}
}

// TestKEncodingClause: the cases that rest on K's encoding as a string
// cite RFC 10042 §2.5 (the combiner HASH(K_PQ || K_CL) is §2.4), and
// no clause cites §2.4 alone but the leading-zero cases', which rest on
// §2.4's fixed-length K_PQ and K_CL.
func TestKEncodingClause(t *testing.T) {
	for _, m := range methods {
		for _, c := range clientCases(m) {
			if c.id == "sig-k-mpint" && m.kem != "sntrup761" && !strings.HasPrefix(c.clause, "RFC 10042 §2.5;") {
				t.Errorf("%s sig-k-mpint cites %q, want RFC 10042 §2.5 (K as a string)", m.name, c.clause)
			}
			leadingZero := strings.HasPrefix(c.id, "k-pq-") || strings.HasPrefix(c.id, "k-cl-")
			if strings.Contains(c.clause, "10042 §2.4") && !strings.Contains(c.clause, "§2.4-2.5") && !leadingZero {
				t.Errorf("%s %s cites %q", m.name, c.id, c.clause)
			}
		}
		for _, c := range serverCases(m) {
			if strings.Contains(c.clause, "10042 §2.4") && !strings.Contains(c.clause, "§2.4-2.5") {
				t.Errorf("%s %s cites %q", m.name, c.id, c.clause)
			}
		}
	}
}
