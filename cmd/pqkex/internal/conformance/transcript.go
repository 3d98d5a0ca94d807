package conformance

// Transcripts (ServerOptions.TranscriptDir, ClientOptions.TranscriptDir;
// check -transcript): per case, a text file with every message sent and
// received on its connections, the values check derived on its own side,
// the clause, what was expected and the verdict, for a maintainer to
// attach to a bug report. The format is in docs/usage.md ("Transcripts").
//
// Recording happens at the connection: conn.write, conn.read (and so
// conn.next), writeTampered, the identification lines and conn.cipher
// record by themselves, and a case records the values it derives with
// conn.derived; a case written later is recorded without more ado. With
// no transcript asked for, c.rec is nil and each hook costs a nil check.
//
// What is secret: the file holds check's own ephemeral private keys,
// K_PQ, K_CL, K and the packet keys of this test connection, made for it
// and thrown away after; nothing else secret (no host key, no private
// key of an identity, whose public key and signature are in the
// authentication request recorded, nothing of another connection). They
// go to the file only, never to a Result, an error or a log line: a new
// file of mode 0600 each time, in directories created with mode 0700 (a
// directory that exists keeps its mode: -transcript names one of the
// user's choosing).
// Everything the peer sent is written as hex; text it chose is escaped
// with sshwire.Quote.

import (
	"bytes"
	"crypto"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
)

// transcriptFormat is the first line of every transcript.
const transcriptFormat = "pqkex check transcript, format 1"

// transcriptSecrets is the header's statement of what secret it holds.
const transcriptSecrets = "the values marked = below include pqkex check's own secrets of this test connection: " +
	"its ephemeral private keys, K_PQ, K_CL, K and the packet keys derived from them. They were made for this " +
	"case only, used for nothing else and thrown away; no other secret (no host key, no private key of an " +
	"identity, nothing of another connection) is written. Every byte the peer sent is in hex; text it chose is escaped."

// recorder is one case's transcript: its connections' records, in
// order. One goroutine uses it at a time (a case runs on one).
type recorder struct {
	start time.Time
	conns int
	b     bytes.Buffer
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

// attach makes c record into r, as r's next connection (peer names the
// other end).
func (r *recorder) attach(c *conn, peer string) {
	r.conns++
	fmt.Fprintf(&r.b, "\nconnection %d  %s  %s\n", r.conns, sshwire.Printable(peer, 255), time.Now().UTC().Format(time.RFC3339Nano))
	c.rec = r
	c.src.keep = true
}

// record writes one record: the time since the case began, its mark
// (> sent, < received, = derived by check, * what check did), text,
// and data as hex lines of 32 bytes.
func (r *recorder) record(mark byte, text string, data []byte) {
	fmt.Fprintf(&r.b, "  +%.3f %c %s\n", time.Since(r.start).Seconds(), mark, text)
	for len(data) > 0 {
		n := min(32, len(data))
		fmt.Fprintf(&r.b, "    %s\n", hex.EncodeToString(data[:n]))
		data = data[n:]
	}
}

// packet records a packet's payload (plaintext, for an encrypted one).
func (r *recorder) packet(mark byte, seq uint32, encrypted bool, payload []byte, extra string) {
	prot := "plain"
	if encrypted {
		prot = "encrypted"
	}
	what := "(empty)"
	if len(payload) > 0 {
		what = fmt.Sprintf("%s (%d)", messageName(payload[0]), payload[0])
		if payload[0] == msgDisconnect {
			if reason, text, err := parseDisconnect(payload); err == nil {
				what += fmt.Sprintf(" reason %d (%s) %s", reason, reasonName(reason), sshwire.Quote(text, 200))
			}
		}
	}
	r.record(mark, fmt.Sprintf("packet %d %s %s %d bytes%s", seq, prot, what, len(payload), extra), payload)
}

// failed records a read that did not give a packet: the error (peer
// text in it escaped) and the raw bytes it took.
func (r *recorder) failed(err error, raw []byte) {
	var what string
	switch classify(err) {
	case evTimeout:
		what = "nothing more before the deadline"
	case evClosed:
		what = "the connection closed"
	default:
		what = "not a packet: " + sshwire.Printable(err.Error(), 200)
	}
	r.record('<', fmt.Sprintf("%s; %d bytes read", what, len(raw)), raw)
}

// derived records a value check derived on its own side (secret or
// not: see the file comment). It is the hook for cases: every value a
// case computes that a maintainer needs to check its verdict (keys,
// K_PQ, K_CL, K, H) goes through it.
func (c *conn) derived(name string, v []byte) {
	if c.rec != nil {
		c.rec.record('=', fmt.Sprintf("%s %d bytes", name, len(v)), v)
	}
}

// note records what check did that is not a message (a wait, a choice).
func (c *conn) note(format string, args ...any) {
	if c.rec != nil {
		c.rec.record('*', fmt.Sprintf(format, args...), nil)
	}
}

// cipher returns the packet protection of direction dir from K, H and
// the session identifier with the negotiated algorithms (RFC 4253 §7.2),
// recording the keys it derives when c keeps a transcript.
func (c *conn) cipher(algs algorithms, h crypto.Hash, k, H, sessionID []byte, dir sshwire.Direction) (sshwire.PacketCipher, error) {
	name, mac, way := algs.cipherCS, algs.macCS, "client to server"
	if dir == sshwire.ServerToClient {
		name, mac, way = algs.cipherSC, algs.macSC, "server to client"
	}
	if c.rec != nil {
		sid := "the session id, which is H"
		if !bytes.Equal(sessionID, H) {
			sid = "the session id below"
			c.derived("session id", sessionID)
		}
		algs := name
		if mac != "" {
			algs += " + " + mac
		}
		c.note("keys %s: %s, from K, H and %s (RFC 4253 §7.2)", way, algs, sid)
		derive := func(what string, letter byte, n int) {
			key := kexhash.DeriveKey(h, k, H, sessionID, letter, n)
			c.derived(fmt.Sprintf("%s %s (%c)", way, what, letter), key)
			clear(key)
		}
		switch name {
		case sshwire.CipherChaCha20Poly1305:
			derive("chacha20-poly1305 key", dir.Key, 64)
		case sshwire.CipherAES128CTR, sshwire.CipherAES256CTR:
			n := 16
			if name == sshwire.CipherAES256CTR {
				n = 32
			}
			derive("IV", dir.IV, 16)
			derive("encryption key", dir.Key, n)
			switch mac {
			case sshwire.MACHMACSHA256:
				derive("MAC key", dir.MAC, 32)
			case sshwire.MACHMACSHA512:
				derive("MAC key", dir.MAC, 64)
			}
		}
	}
	return sshwire.NewPacketCipher(name, mac, h, k, H, sessionID, dir)
}

// writeTampered sends payload protected by c.out with the last bit of
// its MAC (or AEAD tag) flipped.
func (c *conn) writeTampered(payload []byte) error {
	p := c.out.Seal(c.writeSeq, payload)
	p[len(p)-1] ^= 1
	if c.rec != nil {
		c.rec.packet('>', c.writeSeq, true, payload, ", sealed with the last bit of its MAC flipped")
		c.rec.record('>', fmt.Sprintf("that packet as sent, %d bytes", len(p)), p)
	}
	c.writeSeq++
	_, err := c.nc.Write(p)
	return err
}

// expectationText says what a conforming peer does, for a transcript.
var expectationText = map[Expectation]string{
	ExpectAbort:    "abort: the peer ends the key exchange (SSH_MSG_DISCONNECT or a close) and takes nothing: no KEX_ECDH_REPLY from a server, no packet under the new keys from a client",
	ExpectComplete: "complete: the peer completes the key exchange, and the first packet each way authenticates under the keys from K and H",
	ExpectEither:   "either: the clause allows going on or aborting; a hang or a malformed answer does not conform",
}

// transcriptInfo is what a transcript's header says besides the result.
type transcriptInfo struct {
	tool, role, peer string
}

// write writes the transcript of res to dir/METHOD/CASE.txt and returns
// its path.
func (r *recorder) write(dir string, info transcriptInfo, res *Result) (string, error) {
	var h strings.Builder
	line := func(k, v string) { fmt.Fprintf(&h, "%-9s %s\n", k+":", v) }
	h.WriteString(transcriptFormat + "\n")
	line("tool", sshwire.Printable(info.tool, 100))
	line("written", time.Now().UTC().Format(time.RFC3339))
	line("role", info.role)
	if res.Peer != "" {
		line("peer", res.Peer)
	} else {
		line("peer", sshwire.Printable(info.peer, 255))
	}
	line("method", res.Method)
	line("case", res.Case)
	line("clause", res.Clause)
	line("expected", expectationText[res.Expected])
	conf := "does not conform"
	if res.Conforms {
		conf = "conforms"
	}
	line("verdict", res.Observed()+", "+conf)
	if res.Finding != "" {
		line("finding", string(res.Severity)+" "+res.Finding)
	}
	line("detail", res.Detail)
	if res.Note != "" {
		line("note", res.Note)
	}
	line("secrets", transcriptSecrets)
	h.WriteString("format:   one record a line: +SECONDS MARK TEXT (> sent, < received, = derived by pqkex check, * done by it), " +
		"then its bytes as hex, 32 a line; a packet's record gives its sequence number and its payload (the plaintext of an encrypted one)\n")
	d := filepath.Join(dir, res.Method)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(d, res.Case+".txt")
	// A file of an earlier run is replaced, not rewritten: os.WriteFile
	// would keep its mode and follow a symbolic link planted in its
	// place. Remove does not follow one, and O_EXCL fails on whatever
	// appears in between instead of writing through it.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(append([]byte(h.String()), r.b.Bytes()...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}
