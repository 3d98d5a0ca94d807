package conformance

import "strings"

// Severity ranks what a non-conforming result means for the peer's users.
// The scale (docs/conformance.md, "Findings by id"):
//
//   - high: keys or authentication can be wrong: the exchange hash, K or
//     the keys derived from them, a signature or a MAC not checked;
//   - medium: a required check of a value the peer receives is missing,
//     but the value is in the signed exchange hash (the peer only spoils
//     its own exchange), or a strict key exchange violation is taken; or
//     the peer goes silent in a key exchange it negotiated (kex-silent):
//     no key is wrong and nothing is taken, but every peer that prefers
//     the method hangs until its own timeout, with no fallback (the
//     method was negotiated), so the method is unusable where it is
//     advertised (tailscale#20047) — worse than any interoperability
//     fault of low, short of keys or authentication going wrong;
//   - low: leniency about a value's length or encoding that stands for a
//     valid key, or an interoperability fault;
//   - info: a conforming verdict with a note (SSH_MSG_DISCONNECT missing
//     where the exchange ended anyway, a deferred or late abort).
type Severity string

const (
	SeverityHigh   Severity = "high"
	SeverityMedium Severity = "medium"
	SeverityLow    Severity = "low"
	SeverityInfo   Severity = "info"
)

// Severities lists the scale from the worst.
var Severities = []Severity{SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo}

// Finding is a kind of non-conformance: a stable id (an anchor of
// docs/conformance.md), its severity and a title.
type Finding struct {
	ID       string
	Severity Severity
	Title    string
	Fix      string // what to change, in a sentence
}

var findings = []struct {
	Finding
	cases func(caseID string) bool
}{
	{Finding{"kex-honest", SeverityHigh, "the honest key exchange does not complete correctly", "compute K = HASH(K_PQ ‖ K_CL) and hash it as a string, H over the transcript, and both directions' keys from K and H (the detail names the mismatch)"}, is("honest", SoakCase)},
	{Finding{"packet-mac", SeverityHigh, "a packet whose MAC does not verify is taken", "verify every packet's MAC (or AEAD tag) before using it, and end the connection when it fails"}, is("packet-tampered")},
	{Finding{"k-leading-zero", SeverityHigh, "a K_PQ or K_CL that starts with a zero byte is hashed without it", "hash K_PQ and K_CL as the fixed-length byte strings the KEM and the curve produce (32 bytes; 48 for P-384), leading zero bytes kept, never as integers"},
		is("k-pq-00", "k-pq-0000", "k-cl-00")},
	{Finding{"rekey-session-id", SeverityHigh, "a re-exchange's keys are derived with its own H as session identifier", "derive every exchange's keys with the first exchange's H as session identifier (RFC 4253 §7.2), never the new H"}, is()},
	{Finding{"rekey-preauth", SeverityLow, "a key re-exchange before user authentication is refused", "answer SSH_MSG_KEXINIT with your own at any time after the first exchange, user authentication included (RFC 4253 §9 makes no exception)"}, is()},
	{Finding{"rekey", SeverityHigh, "a key re-exchange does not complete correctly", "answer SSH_MSG_KEXINIT after the first exchange with your own and run the exchange again, with the first H as session identifier and the sequence numbers as before (reset to 0 at every SSH_MSG_NEWKEYS under strict key exchange)"},
		is("rekey", "rekey-by-client")},
	{Finding{"k-encoding", SeverityHigh, "a signature over H with K as an mpint is accepted", "hash K as a string in H and in key derivation, never as an mpint"}, is("sig-k-mpint")},
	{Finding{"implicit-rejection", SeverityHigh, "a reply with a tampered KEM ciphertext is accepted", "verify the host key signature over H computed with the decapsulated K"}, is("ct-tampered")},
	{Finding{"host-signature", SeverityHigh, "a signature by another key than the host key shown is accepted", "verify the signature over H with the host key K_S that the reply carries"}, is("host-key-mismatch")},
	{Finding{"mlkem-ek-check", SeverityMedium, "no FIPS 203 §7.2 check of the ML-KEM encapsulation key", "run FIPS 203 §7.2's modulus check on the client's encapsulation key and abort when it fails"}, prefix("ek-modulus-")},
	{Finding{"x25519-mask", SeverityLow, "bit 255 of a received X25519 key is not masked", "clear bit 255 of a received X25519 key before the multiplication (RFC 7748 §5)"}, suffix("-bit255")},
	{Finding{"x25519-zero", SeverityMedium, "a low-order X25519 key (all-zero secret) is taken", "abort when the X25519 shared secret is all zero (RFC 8731 §3)"}, prefix("x25519-")},
	{Finding{"nist-point-invalid", SeverityMedium, "a NIST point that fails validation is taken", "validate the peer's point (on the curve, not the point at infinity) and abort when it fails"},
		is("point-not-on-curve", "point-infinity", "point-infinity-sec1")},
	{Finding{"nist-point-encoding", SeverityLow, "a non-standard encoding of a valid NIST point is taken", "take only SEC 1 uncompressed (or compressed) points of the field's length with coordinates below p"}, prefix("point-")},
	{Finding{"length", SeverityLow, "C_INIT or S_REPLY of the wrong length is taken", "check that C_INIT / S_REPLY is exactly the sum of the expected lengths of its parts, and abort otherwise"},
		is("c-init-short", "c-init-long", "s-reply-short", "s-reply-short-hash-used", "s-reply-long", "s-reply-long-hash-kept", "init-truncated-string")},
	{Finding{"strict-kex", SeverityMedium, "a message that taints strict key exchange is taken", "under strict key exchange, end the connection on any message the key exchange does not require"},
		is("second-init", "ignore-in-strict-kex", "newkeys-before-init")},
	{Finding{"kex-guess", SeverityLow, "a wrongly guessed key exchange packet is not ignored", "ignore a wrongly guessed key exchange packet (first_kex_packet_follows) and go on with the negotiated method"}, is("wrong-guess-ignored")},
	// Given by the verdict, not the case: see silentIf and macSilent.
	{Finding{macSilentFinding, SeverityLow, "a packet whose MAC does not verify is neither answered nor refused: the connection stays open",
		"end the connection when a packet's MAC (or AEAD tag) does not verify, with SSH_MSG_DISCONNECT 5 (MAC_ERROR)"}, is()},
	{Finding{silentFinding, SeverityMedium, "the key exchange negotiated goes silent: no reply, SSH_MSG_NEWKEYS or disconnect before the timeout",
		"send every message of a key exchange method once it is negotiated, or end the connection with SSH_MSG_DISCONNECT; never offer a method that is not implemented"}, is()},
}

// silentFinding is the finding of a peer that, in a key exchange it
// negotiated, sent nothing where its next message was due.
const silentFinding = "kex-silent"

// macSilentFinding is the finding of a peer that, given a packet whose
// MAC does not verify (packet-tampered), neither answered it nor ended
// the connection (macSilent).
const macSilentFinding = "packet-mac-silent"

func is(ids ...string) func(string) bool {
	return func(id string) bool {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
		return false
	}
}

func prefix(p string) func(string) bool {
	return func(id string) bool { return strings.HasPrefix(id, p) }
}
func suffix(s string) func(string) bool {
	return func(id string) bool { return strings.HasSuffix(id, s) }
}

// FindingOf is the finding a non-conforming result of case caseID stands
// for (the first that matches, in the order above).
func FindingOf(caseID string) (Finding, bool) {
	for _, f := range findings {
		if f.cases(caseID) {
			return f.Finding, true
		}
	}
	return Finding{}, false
}

// FindingByID is the finding with id id.
func FindingByID(id string) (Finding, bool) {
	for _, f := range findings {
		if f.ID == id {
			return f.Finding, true
		}
	}
	return Finding{}, false
}

// Findings lists every finding, in order of severity then as above.
func Findings() []Finding {
	var out []Finding
	for _, s := range Severities {
		for _, f := range findings {
			if f.Severity == s {
				out = append(out, f.Finding)
			}
		}
	}
	return out
}

// classify sets r's finding and severity: a non-conforming result's
// finding (the one its case set, such as kex-silent, else its case's);
// info for a conforming one with a note.
func (r *Result) classify() {
	set := r.Finding
	r.Finding, r.Severity = "", ""
	switch {
	case r.Verdict == NotRun || r.Verdict == NotApplicable:
	case !r.Conforms:
		f, ok := FindingByID(set)
		if !ok {
			f, ok = FindingOf(r.Case)
		}
		if ok {
			r.Finding, r.Severity = f.ID, f.Severity
		}
	case r.Note != "":
		r.Finding, r.Severity = noteFinding(r.Note), SeverityInfo
	}
}

// noteFinding is the id of a note's informational finding.
func noteFinding(note string) string {
	switch {
	case strings.HasPrefix(note, "a deferred abort"):
		return "deferred-abort"
	case strings.HasPrefix(note, "a late refusal"):
		return "late-refusal"
	case strings.HasPrefix(note, "disconnect reason"):
		return "abort-reason"
	}
	return "abort-without-disconnect"
}
