package conformance

import (
	"strconv"
	"strings"
	"time"
)

// Expectation is what a conforming peer does in a case.
type Expectation string

const (
	// ExpectAbort: the peer must end the key exchange (disconnect or
	// close) without going on: no KEX_ECDH_REPLY from a server, no
	// SSH_MSG_NEWKEYS from a client.
	ExpectAbort Expectation = "abort"
	// ExpectComplete: the peer must complete the key exchange correctly.
	ExpectComplete Expectation = "complete"
	// ExpectEither: the specification allows the peer to go on or to
	// abort (pqkex itself may be stricter); only a hang or a malformed
	// answer does not conform.
	ExpectEither Expectation = "either"
)

// Verdict is what the peer did.
type Verdict string

const (
	Completed Verdict = "completed" // the key exchange completed and every check of it passed
	Failed    Verdict = "failed"    // an exchange that must complete went wrong (Detail says how)
	Rejected  Verdict = "rejected"  // the peer sent SSH_MSG_DISCONNECT
	Closed    Verdict = "closed"    // the peer closed the connection without SSH_MSG_DISCONNECT
	Replied   Verdict = "replied"   // a server answered a bad C_INIT with KEX_ECDH_REPLY
	Accepted  Verdict = "accepted"  // a client answered a bad KEX_ECDH_REPLY with SSH_MSG_NEWKEYS
	Ignored   Verdict = "ignored"   // the peer answered SSH_MSG_UNIMPLEMENTED, or another message, and went on
	Hung      Verdict = "hung"      // the peer did nothing decisive before the timeout
	Malformed Verdict = "malformed" // the peer sent something that is not a valid SSH packet or message
	NotRun    Verdict = "not run"   // the case could not be run (Detail says why)
	// NotApplicable: the case needs something the peer does not offer
	// (strict key exchange); it is neither a pass nor a failure.
	NotApplicable Verdict = "not applicable"
)

// Result is one case's outcome.
type Result struct {
	Method   string      `json:"method"`
	Case     string      `json:"case"`
	Clause   string      `json:"clause"`
	Expected Expectation `json:"expected"`
	Verdict  Verdict     `json:"verdict"`
	Conforms bool        `json:"conforms"`
	// Detail says what was sent and what came back, in words; peer bytes
	// in it are escaped.
	Detail string `json:"detail"`
	// DisconnectReason and DisconnectMessage are set when the peer sent
	// SSH_MSG_DISCONNECT (the message escaped and truncated).
	DisconnectReason  uint32 `json:"disconnect_reason,omitempty"`
	DisconnectMessage string `json:"disconnect_message,omitempty"`
	// Note qualifies a verdict that conforms in a way the clause allows
	// but does not prefer (closed without SSH_MSG_DISCONNECT; a deferred
	// or late abort); empty otherwise.
	Note string `json:"note,omitempty"`
	// Finding and Severity classify a result that does not conform, or
	// conforms with a note (severity info): findings.go.
	Finding  string   `json:"finding,omitempty"`
	Severity Severity `json:"severity,omitempty"`
	// Attempts is the number of connections the case took (the honest
	// exchange repeats until K's string and mpint encodings differ).
	Attempts int `json:"attempts"`
	// Peer is the address and identification line of the client that ran
	// the case (check -listen), escaped.
	Peer      string  `json:"peer,omitempty"`
	ElapsedMS float64 `json:"elapsed_ms"`
	// Transcript is the path of the case's transcript, when one was
	// asked for (ServerOptions.TranscriptDir, ClientOptions.TranscriptDir).
	Transcript string `json:"transcript,omitempty"`
}

// conforms reports whether verdict v meets expectation e.
func conforms(e Expectation, v Verdict) bool {
	switch e {
	case ExpectAbort:
		return v == Rejected || v == Closed
	case ExpectComplete:
		return v == Completed
	case ExpectEither:
		return v == Rejected || v == Closed || v == Replied || v == Accepted
	}
	return false
}

// finish fills in Conforms and the elapsed time.
func (r *Result) finish(start time.Time) {
	r.Conforms = conforms(r.Expected, r.Verdict)
	if r.Conforms && r.Expected == ExpectAbort && r.Note == "" && abortIsDisconnect(r.Clause) {
		switch {
		case r.Verdict == Closed:
			r.Note = closedNote
		case r.Verdict == Rejected && r.DisconnectReason != 3:
			r.Note = "disconnect reason " + strconv.FormatUint(uint64(r.DisconnectReason), 10) +
				", not 3 (KEY_EXCHANGE_FAILED), which the clause recommends an abort give (informational)"
		}
	}
	r.classify()
	r.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
}

// closedNote qualifies an abort by closing the connection where the
// clause defines an abort as a disconnect: RFC 8731 §3 ("An abort for
// these purposes is defined as a disconnect (SSH_MSG_DISCONNECT) of the
// session and SHOULD use the SSH_DISCONNECT_KEY_EXCHANGE_FAILED reason")
// and RFC 9941 §3, which says the same. RFC 10042 does not define an
// abort itself (its last draft's §2.1 asked for "a disconnect message
// (SSH_MSG_DISCONNECT) with a SSH_DISCONNECT_KEY_EXCHANGE_FAILED as the
// reason"; the RFC's sentences say only "abort"); its X25519 and NIST
// checks go through RFC 8731 §3 and RFC 5656 §4, and a case whose clause
// names RFC 8731 §3 gets the note. pqkex check reads the MUST as the end
// of the key exchange, which is what protects the peer (no key of the
// exchange is ever used), and reports a close without the message, or
// another reason, as a note rather than a failure (docs/conformance.md,
// "What the verdicts allow").
const closedNote = "closed without SSH_MSG_DISCONNECT, which the clause's abort includes (informational)"

// abortIsDisconnect reports whether a clause defines an abort as a
// disconnect with SSH_MSG_DISCONNECT (RFC 8731 §3, RFC 9941 §3; not RFC
// 10042, see closedNote).
func abortIsDisconnect(clause string) bool {
	for _, c := range []string{"RFC 9941 §3", "RFC 8731 §3"} {
		if strings.Contains(clause, c) {
			return true
		}
	}
	return false
}

// Summary counts results.
type Summary struct {
	Cases         int `json:"cases"`
	Conforming    int `json:"conforming"`
	NonConforming int `json:"nonconforming"`
	NotRun        int `json:"not_run"`
	NotApplicable int `json:"not_applicable"`
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	s := Summary{Cases: len(rs)}
	for _, r := range rs {
		switch {
		case r.Verdict == NotRun:
			s.NotRun++
		case r.Verdict == NotApplicable:
			s.NotApplicable++
		case r.Conforms:
			s.Conforming++
		default:
			s.NonConforming++
		}
	}
	return s
}

// Observed is the verdict with its disconnect reason, the short form of
// the conformance matrix ("rejected(3)", "closed", "replied").
func (r Result) Observed() string {
	if r.Verdict == Rejected {
		return string(r.Verdict) + "(" + strconv.FormatUint(uint64(r.DisconnectReason), 10) + ")"
	}
	return string(r.Verdict)
}
