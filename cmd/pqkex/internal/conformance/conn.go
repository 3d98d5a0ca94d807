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
	readSeq, writeSeq uint32
	in, out           sshwire.PacketCipher // nil until SSH_MSG_NEWKEYS
	deadline          time.Time            // the connection's, where a case needs to restore it
}

func newConn(nc net.Conn) *conn { return &conn{nc: nc, br: bufio.NewReader(nc)} }

// writeVersion sends the identification line (RFC 4253 §4.2).
func (c *conn) writeVersion(v string) error {
	_, err := io.WriteString(c.nc, v+"\r\n")
	return err
}

// readVersion reads the peer's identification line.
func (c *conn) readVersion() (string, error) { return sshwire.ReadVersion(c.br) }

// write sends one packet.
func (c *conn) write(payload []byte) error {
	var p []byte
	if c.out == nil {
		p = sshwire.PlainPacket(payload)
	} else {
		p = c.out.Seal(c.writeSeq, payload)
	}
	c.writeSeq++
	_, err := c.nc.Write(p)
	return err
}

// read reads one packet. Its payload is never empty.
func (c *conn) read() ([]byte, error) {
	var (
		p   []byte
		err error
	)
	if c.in == nil {
		p, err = sshwire.ReadPlainPacket(c.br, sshwire.MaxPacket)
	} else {
		p, err = c.in.Open(c.br, c.readSeq)
	}
	c.readSeq++
	if err == nil && len(p) == 0 {
		err = errors.New("empty packet payload")
	}
	return p, err
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
