// Package conformance checks another SSH implementation's hybrid
// post-quantum key exchange on the wire, for pqkex check (cmd/pqkex):
// CheckServer plays the client against a server, CheckClients the server
// for clients that connect, one case per connection.
//
// Each case sends what the specifications say a peer must refuse (or, for
// the honest cases, complete) and records what the peer did as a Result:
// its verdict, whether that conforms, and a detail in words. The cases
// and their clauses are listed in docs/usage.md (section "pqkex check")
// and docs/conformance.md.
//
// The package carries just enough of the SSH transport for the cases
// (conn.go: identification lines, the binary packet protocol, plain and,
// after SSH_MSG_NEWKEYS, protected with sshwire's packet ciphers; kexinit.go:
// negotiation, RFC 4253 §7.1, strict key exchange), and both halves of
// each hybrid method written out from crypto/mlkem, crypto/ecdh and the
// sntrup761 KEM (clienthalf.go, serverhalf.go) rather than from pqkex's
// method engine, so that pqkex's own server and client are not checked
// against themselves. The invalid values are data (points.go).
//
// Everything a peer sends is untrusted: every read is bounded by the
// connection's deadline and by sshwire.MaxPacket, lengths are checked
// before slicing, and peer text reaches a Result only through
// sshwire.Printable or sshwire.Quote. The checks' own keys and shared
// secrets never appear in a Result, an error or a log line (a detail
// may say how many zero bytes a part of K started with, which the
// leading-zero cases and the soak are about: at most a few bits of a
// throwaway connection's secret); with a
// transcript asked for (transcript.go), those of each test connection
// are written to that case's transcript file, and only there. An
// identity to log in with (ServerOptions.Identity, userauth.go) signs
// one request of the case rekey and is written nowhere.
//
// The verdict properties (verdict_test.go) run every case against
// simulated peers (sim_test.go), honest and with one defect each, and
// state each one's exact outcome: a new case or defect adds its row to
// their tables.
package conformance
