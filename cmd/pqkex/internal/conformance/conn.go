package conformance

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
)

// Message numbers (RFC 4250 §4.1.2) beyond sshwire's.
const (
	msgDisconnect      = 1
	msgIgnore          = 2
	msgUnimplemented   = 3
	msgDebug           = 4
	msgServiceRequest  = 5
	msgServiceAccept   = 6
	msgExtInfo         = 7
	msgUserAuthRequest = 50
	msgNewKeys         = 21
)

// conn is one SSH connection at the binary packet level (RFC 4253 §6):
// enough transport for the checks to send exactly the messages a case
// needs, plain before SSH_MSG_NEWKEYS and protected after it. The caller
// sets the connection's deadline; every read is bounded by it and by
// sshwire.MaxPacket.
type conn struct {
	nc                net.Conn
	br                *bufio.Reader
	src               countingReader // br, counting what each read takes from it
	readSeq, writeSeq uint32
	in, out           sshwire.PacketCipher // nil until SSH_MSG_NEWKEYS
	deadline          time.Time            // the connection's, where a case needs to restore it
	// torn is set once a read stopped inside a packet (its deadline
	// passed): the rest of the stream cannot be framed, and every later
	// read returns it.
	torn error
	rec  *recorder // the case's transcript (transcript.go), or nil
}

func newConn(nc net.Conn) *conn {
	c := &conn{nc: nc, br: bufio.NewReader(nc)}
	c.src.r = c.br
	return c
}

// countingReader counts the bytes read through it, and with keep set
// keeps them (for a transcript's record of what was not a packet).
type countingReader struct {
	r    io.Reader
	n    int
	keep bool
	kept []byte
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += n
	if r.keep {
		r.kept = append(r.kept, p[:n]...)
	}
	return n, err
}

// reset starts the count (and the bytes kept) of a new read.
func (r *countingReader) reset() {
	r.n, r.kept = 0, r.kept[:0]
}

// writeVersion sends the identification line (RFC 4253 §4.2).
func (c *conn) writeVersion(v string) error {
	if c.rec != nil {
		c.rec.record('>', fmt.Sprintf("identification line %s, %d bytes with CR LF", sshwire.Quote(v, 255), len(v)+2), []byte(v+"\r\n"))
	}
	_, err := io.WriteString(c.nc, v+"\r\n")
	return err
}

// readVersion reads the peer's identification line.
func (c *conn) readVersion() (string, error) {
	v, err := sshwire.ReadVersion(c.br)
	if c.rec != nil {
		if err != nil {
			c.rec.record('<', "no identification line: "+sshwire.Printable(err.Error(), 200), nil)
		} else {
			c.rec.record('<', fmt.Sprintf("identification line %s, %d bytes without CR LF (lines before it, if any, are not kept)", sshwire.Quote(v, 255), len(v)), []byte(v))
		}
	}
	return v, err
}

// write sends one packet.
func (c *conn) write(payload []byte) error {
	var p []byte
	if c.out == nil {
		p = sshwire.PlainPacket(payload)
	} else {
		p = c.out.Seal(c.writeSeq, payload)
	}
	if c.rec != nil {
		c.rec.packet('>', c.writeSeq, c.out != nil, payload, "")
	}
	c.writeSeq++
	_, err := c.nc.Write(p)
	return err
}

// writeRaw sends p, a whole binary packet the caller built (a case that
// sends what write would not: chosen padding), as the next packet; what
// says what it is, for a transcript.
func (c *conn) writeRaw(p []byte, what string) error {
	if c.rec != nil {
		c.rec.record('>', fmt.Sprintf("%s, %d bytes as sent", what, len(p)), p)
	}
	c.writeSeq++
	_, err := c.nc.Write(p)
	return err
}

// read reads one packet. Its payload is never empty.
//
// A packet takes a sequence number only once it has been read (RFC 4253
// §6.4: the sequence number counts packets): a read that times out
// before the first byte of a packet takes nothing from the stream and
// leaves the sequence number as it was, so that a later read, after the
// peer's pause, opens the packet with the right one. A read that times
// out inside a packet has lost its framing (and, with a stream cipher,
// the keystream's position): the connection is torn, and every later
// read fails the same way.
func (c *conn) read() ([]byte, error) {
	if c.torn != nil {
		return nil, c.torn
	}
	var (
		p   []byte
		err error
	)
	c.src.reset()
	if c.in == nil {
		p, err = sshwire.ReadPlainPacket(&c.src, sshwire.MaxPacket)
	} else {
		p, err = c.in.Open(&c.src, c.readSeq)
	}
	if c.rec != nil {
		if err == nil {
			c.rec.packet('<', c.readSeq, c.in != nil, p, "")
		} else {
			c.rec.failed(err, c.src.kept)
		}
	}
	if err != nil && classify(err) == evTimeout {
		if c.src.n == 0 {
			return nil, err
		}
		c.torn = fmt.Errorf("a packet cut short after %d bytes by the deadline: %w", c.src.n, err)
	}
	c.readSeq++
	if err == nil && len(p) == 0 {
		err = errors.New("empty packet payload")
	}
	return p, err
}

// waitData waits up to d for the peer to send something and reports
// whether it did (or ended the connection), taking nothing from the
// stream: the next read starts where it would have started anyway. The
// connection's deadline is restored after.
func (c *conn) waitData(d time.Duration) bool {
	if c.br.Buffered() > 0 {
		return true
	}
	c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.br.Peek(1)
	c.nc.SetReadDeadline(c.deadline)
	sent := err == nil || classify(err) != evTimeout
	c.note("waited up to %v for the peer to send something unprompted: %v", d, sent)
	return sent
}

// event is what the peer did next: sent a packet that is not
// SSH_MSG_IGNORE or SSH_MSG_DEBUG, disconnected, closed, went quiet, or
// sent something that is not SSH.
type event struct {
	kind    eventKind
	payload []byte // for evPacket
	reason  uint32 // for evDisconnect
	text    string // for evDisconnect: its description (raw peer bytes)
	err     error  // for evClosed, evTimeout, evMalformed
	skipped int    // SSH_MSG_IGNORE and SSH_MSG_DEBUG read before it
}

type eventKind int

const (
	evPacket eventKind = iota
	evDisconnect
	evClosed
	evTimeout
	evMalformed
)

// maxSkipped bounds the SSH_MSG_IGNORE and _DEBUG messages read while
// waiting for a decision (the deadline bounds the time).
const maxSkipped = 64

// next reads until the peer's next decisive action. With strict set
// (strict key exchange, during the initial key exchange), SSH_MSG_IGNORE
// and SSH_MSG_DEBUG are decisive too: a strict peer must not send them.
func (c *conn) next(strict bool) event {
	var skipped int
	for {
		p, err := c.read()
		if err != nil {
			return event{kind: classify(err), err: err, skipped: skipped}
		}
		switch p[0] {
		case msgIgnore, msgDebug:
			if !strict && skipped < maxSkipped {
				skipped++
				continue
			}
		case msgDisconnect:
			reason, text, err := parseDisconnect(p)
			if err != nil {
				return event{kind: evMalformed, err: err, skipped: skipped}
			}
			return event{kind: evDisconnect, reason: reason, text: text, skipped: skipped}
		}
		return event{kind: evPacket, payload: p, skipped: skipped}
	}
}

// classify tells a closed connection from a timeout and from bytes that
// are not a packet.
func classify(err error) eventKind {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		return evTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.EPIPE):
		return evClosed
	}
	return evMalformed
}

// parseDisconnect parses SSH_MSG_DISCONNECT (RFC 4253 §11.1): uint32
// reason code, string description, string language tag.
func parseDisconnect(p []byte) (reason uint32, text string, err error) {
	if len(p) < 5 {
		return 0, "", errors.New("SSH_MSG_DISCONNECT truncated before its reason code")
	}
	reason = binary.BigEndian.Uint32(p[1:5])
	desc, rest, err := sshwire.ReadString(p[5:], "SSH_MSG_DISCONNECT description")
	if err != nil {
		return 0, "", err
	}
	// The language tag is often left out; take it when it is there.
	if len(rest) > 0 {
		if _, _, err := sshwire.ReadString(rest, "SSH_MSG_DISCONNECT language tag"); err != nil {
			return 0, "", err
		}
	}
	return reason, string(desc), nil
}

// disconnectMsg returns SSH_MSG_DISCONNECT with reason and description.
func disconnectMsg(reason uint32, desc string) []byte {
	p := binary.BigEndian.AppendUint32([]byte{msgDisconnect}, reason)
	p = sshwire.AppendString(p, []byte(desc))
	return sshwire.AppendString(p, nil)
}

// Disconnect reason codes (RFC 4250 §4.2.2) the checks name.
var reasonNames = map[uint32]string{
	1: "HOST_NOT_ALLOWED_TO_CONNECT", 2: "PROTOCOL_ERROR", 3: "KEY_EXCHANGE_FAILED", 4: "RESERVED",
	5: "MAC_ERROR", 6: "COMPRESSION_ERROR", 7: "SERVICE_NOT_AVAILABLE", 8: "PROTOCOL_VERSION_NOT_SUPPORTED",
	9: "HOST_KEY_NOT_VERIFIABLE", 10: "CONNECTION_LOST", 11: "BY_APPLICATION", 12: "TOO_MANY_CONNECTIONS",
	13: "AUTH_CANCELLED_BY_USER", 14: "NO_MORE_AUTH_METHODS_AVAILABLE", 15: "ILLEGAL_USER_NAME",
}

func reasonName(r uint32) string {
	if n, ok := reasonNames[r]; ok {
		return n
	}
	return fmt.Sprintf("unknown reason %d", r)
}
