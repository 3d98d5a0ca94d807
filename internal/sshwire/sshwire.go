// Package sshwire parses the few SSH messages pqkex reads from peers
// itself (RFC 4251 §5 data types, RFC 4253 §7.1 KEXINIT, RFC 5656 §4
// KEX_ECDH_INIT / KEX_ECDH_REPLY, which the hybrid methods reuse). Every
// length is checked before slicing; errors name the field that is wrong
// and never quote message contents. It also has the rules and tools that
// the adapter and the command share about the wire: which key exchange
// names are FIPS-approved (FIPSApprovedKEX), an in-memory connection for
// in-process handshakes (MemPipe), and the one escaping of text a peer or
// a file chose for terminals and logs (Quote, Printable).
package sshwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Message numbers.
const (
	MsgKexInit      = 20
	MsgKexECDHInit  = 30
	MsgKexECDHReply = 31
)

// AppendString appends b as an SSH string (uint32 length || b).
func AppendString(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// ReadString reads an SSH string from b and returns it and the rest.
func ReadString(b []byte, field string) (s, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%s: truncated length (%d bytes left)", field, len(b))
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("%s: length %d exceeds the %d bytes left", field, n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}

var errTrailing = errors.New("trailing bytes after the last field")

func msgType(p []byte) string {
	if len(p) == 0 {
		return "(empty message)"
	}
	return fmt.Sprint(p[0])
}

// ParseKexECDHInit parses byte 30 || string Q_C (the client's C_INIT).
func ParseKexECDHInit(p []byte) (qc []byte, err error) {
	if len(p) == 0 || p[0] != MsgKexECDHInit {
		return nil, fmt.Errorf("message type %s, want %d (SSH_MSG_KEX_ECDH_INIT)", msgType(p), MsgKexECDHInit)
	}
	qc, rest, err := ReadString(p[1:], "C_INIT")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errTrailing
	}
	return qc, nil
}

// AppendKexECDHInit appends byte 30 || string qc.
func AppendKexECDHInit(dst, qc []byte) []byte {
	return AppendString(append(dst, MsgKexECDHInit), qc)
}

// ParseKexECDHReply parses byte 31 || string K_S || string Q_S (S_REPLY)
// || string signature.
func ParseKexECDHReply(p []byte) (hostKey, qs, sig []byte, err error) {
	if len(p) == 0 || p[0] != MsgKexECDHReply {
		return nil, nil, nil, fmt.Errorf("message type %s, want %d (SSH_MSG_KEX_ECDH_REPLY)", msgType(p), MsgKexECDHReply)
	}
	rest := p[1:]
	if hostKey, rest, err = ReadString(rest, "host key"); err != nil {
		return nil, nil, nil, err
	}
	if qs, rest, err = ReadString(rest, "S_REPLY"); err != nil {
		return nil, nil, nil, err
	}
	if sig, rest, err = ReadString(rest, "signature"); err != nil {
		return nil, nil, nil, err
	}
	if len(rest) != 0 {
		return nil, nil, nil, errTrailing
	}
	return hostKey, qs, sig, nil
}

// AppendKexECDHReply appends byte 31 || string hostKey || string qs ||
// string sig.
func AppendKexECDHReply(dst, hostKey, qs, sig []byte) []byte {
	dst = append(dst, MsgKexECDHReply)
	dst = AppendString(dst, hostKey)
	dst = AppendString(dst, qs)
	return AppendString(dst, sig)
}

// KexInit is a parsed SSH_MSG_KEXINIT.
type KexInit struct {
	Cookie          [16]byte
	KexAlgos        []string
	HostKeyAlgos    []string
	CiphersC2S      []string
	CiphersS2C      []string
	MACsC2S         []string
	MACsS2C         []string
	CompressionC2S  []string
	CompressionS2C  []string
	LanguagesC2S    []string
	LanguagesS2C    []string
	FirstKexFollows bool
	Reserved        uint32
}

// ParseKexInit parses an SSH_MSG_KEXINIT payload: byte 20, a 16-byte
// cookie, ten name-lists, a boolean and a reserved uint32 (RFC 4253 §7.1).
// Trailing bytes are an error.
func ParseKexInit(p []byte) (*KexInit, error) {
	if len(p) == 0 || p[0] != MsgKexInit {
		return nil, fmt.Errorf("message type %s, want %d (SSH_MSG_KEXINIT)", msgType(p), MsgKexInit)
	}
	if len(p) < 17 {
		return nil, errors.New("truncated cookie")
	}
	k := new(KexInit)
	copy(k.Cookie[:], p[1:17])
	rest := p[17:]
	lists := []*[]string{&k.KexAlgos, &k.HostKeyAlgos, &k.CiphersC2S, &k.CiphersS2C,
		&k.MACsC2S, &k.MACsS2C, &k.CompressionC2S, &k.CompressionS2C, &k.LanguagesC2S, &k.LanguagesS2C}
	for i, l := range lists {
		s, r, err := ReadString(rest, fmt.Sprintf("name-list %d", i))
		if err != nil {
			return nil, err
		}
		if len(s) > 0 {
			*l = strings.Split(string(s), ",")
		}
		rest = r
	}
	if len(rest) != 5 {
		return nil, fmt.Errorf("%d bytes after the name-lists, want 5", len(rest))
	}
	k.FirstKexFollows = rest[0] != 0
	k.Reserved = binary.BigEndian.Uint32(rest[1:])
	return k, nil
}

// AppendKexInit appends the encoding of k.
func AppendKexInit(dst []byte, k *KexInit) []byte {
	dst = append(dst, MsgKexInit)
	dst = append(dst, k.Cookie[:]...)
	for _, l := range [][]string{k.KexAlgos, k.HostKeyAlgos, k.CiphersC2S, k.CiphersS2C,
		k.MACsC2S, k.MACsS2C, k.CompressionC2S, k.CompressionS2C, k.LanguagesC2S, k.LanguagesS2C} {
		dst = AppendString(dst, []byte(strings.Join(l, ",")))
	}
	b := byte(0)
	if k.FirstKexFollows {
		b = 1
	}
	dst = append(dst, b)
	return binary.BigEndian.AppendUint32(dst, k.Reserved)
}

// ReadVersion reads the peer's identification line (RFC 4253 §4.2),
// skipping up to 64 other lines sent before it. Lines end in CR LF (a bare
// LF is accepted) and are at most 255 bytes.
func ReadVersion(br *bufio.Reader) (string, error) {
	for range 65 {
		line, err := readLine(br)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(line, "SSH-") {
			return line, nil
		}
	}
	return "", errors.New("no SSH identification line in the first 65 lines")
}

func readLine(br *bufio.Reader) (string, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		if b == '\n' {
			return strings.TrimSuffix(string(line), "\r"), nil
		}
		if len(line) == 255 {
			return "", errors.New("identification line longer than 255 bytes")
		}
		line = append(line, b)
	}
}

// ReadPlainPacket reads one binary packet sent before any key is in use
// (RFC 4253 §6: uint32 packet_length, byte padding_length, payload,
// padding, no MAC) and returns its payload. Packets over max bytes are
// refused.
func ReadPlainPacket(r io.Reader, max uint32) ([]byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("packet header: %w", err)
	}
	plen := binary.BigEndian.Uint32(hdr[:4])
	padLen := uint32(hdr[4])
	if plen > max {
		return nil, fmt.Errorf("packet length %d exceeds %d", plen, max)
	}
	if plen < padLen+1 {
		return nil, fmt.Errorf("packet length %d too small for %d bytes of padding", plen, padLen)
	}
	body := make([]byte, plen-1)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("packet body: %w", err)
	}
	return body[:len(body)-int(padLen)], nil
}
