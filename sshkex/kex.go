package sshkex

import (
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// SSH message numbers of the ECDH-style exchange (RFC 5656 §7.1), which the
// hybrid methods reuse (draft-ietf-sshm-mlkem-hybrid-kex §2.2, RFC 9941 §3).
const (
	msgKexECDHInit  = 30
	msgKexECDHReply = 31
)

// client is the client half of a hybrid method: Init returns C_INIT and
// Finish turns S_REPLY into K (already SSH-encoded).
type client interface {
	Init() []byte
	Finish(serverReply []byte) ([]byte, error)
}

// method is one hybrid key exchange as the method packages implement it.
type method struct {
	name      string // for error messages
	hash      crypto.Hash
	newClient func(rand io.Reader) (client, error)
	respond   func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)
}

// hybridKEX runs a method over x/crypto/ssh's packet connection, in the
// shape of x/crypto's own ecdh and mlkem768 key exchanges (kex.go,
// mlkem.go): the client never verifies the signature itself (x/crypto's
// handshake does, over H, after Client returns).
type hybridKEX struct {
	m *method
}

// Client sends SSH_MSG_KEX_ECDH_INIT with C_INIT and processes the server's
// SSH_MSG_KEX_ECDH_REPLY.
func (k *hybridKEX) Client(p packetConn, rand io.Reader, magics *handshakeMagics) (*kexResult, error) {
	c, err := k.m.newClient(rand)
	if err != nil {
		return nil, err
	}
	qc := c.Init()
	init := make([]byte, 1, 1+4+len(qc))
	init[0] = msgKexECDHInit
	init = append(init, kexhash.String(qc)...)
	if err := p.writePacket(init); err != nil {
		return nil, err
	}
	packet, err := p.readPacket()
	if err != nil {
		return nil, err
	}
	hostKey, qs, sig, err := parseReply(packet)
	if err != nil {
		return nil, fmt.Errorf("sshkex: %s: server's SSH_MSG_KEX_ECDH_REPLY: %w", k.m.name, err)
	}
	K, err := c.Finish(qs)
	if err != nil {
		return nil, err
	}
	H := kexhash.ExchangeHash(k.m.hash, magics.clientVersion, magics.serverVersion,
		magics.clientKexInit, magics.serverKexInit, hostKey, qc, qs, K)
	return &kexResult{H: H, K: K, HostKey: hostKey, Signature: sig, Hash: k.m.hash}, nil
}

// Server reads SSH_MSG_KEX_ECDH_INIT, answers with SSH_MSG_KEX_ECDH_REPLY
// signed by priv with the negotiated host key algorithm algo.
func (k *hybridKEX) Server(p packetConn, rand io.Reader, magics *handshakeMagics, priv ssh.AlgorithmSigner, algo string) (*kexResult, error) {
	packet, err := p.readPacket()
	if err != nil {
		return nil, err
	}
	qc, err := parseInit(packet)
	if err != nil {
		return nil, fmt.Errorf("sshkex: %s: client's SSH_MSG_KEX_ECDH_INIT: %w", k.m.name, err)
	}
	qs, K, err := k.m.respond(rand, qc)
	if err != nil {
		return nil, err
	}
	hostKey := priv.PublicKey().Marshal()
	H := kexhash.ExchangeHash(k.m.hash, magics.clientVersion, magics.serverVersion,
		magics.clientKexInit, magics.serverKexInit, hostKey, qc, qs, K)
	sig, err := priv.SignWithAlgorithm(rand, H, underlyingAlgo(algo))
	if err != nil {
		return nil, err
	}
	sigBlob := ssh.Marshal(sig)
	reply := []byte{msgKexECDHReply}
	reply = append(reply, kexhash.String(hostKey)...)
	reply = append(reply, kexhash.String(qs)...)
	reply = append(reply, kexhash.String(sigBlob)...)
	if err := p.writePacket(reply); err != nil {
		return nil, err
	}
	return &kexResult{H: H, K: K, HostKey: hostKey, Signature: sigBlob, Hash: k.m.hash}, nil
}

// underlyingAlgo returns the signature algorithm of a negotiated host key
// algorithm, which may name a certificate (x/crypto's certs.go does the
// same with a table): certificate names end in -cert-v01@openssh.com, or
// -cert-v01@golang.org for x/crypto's own ML-DSA certificates, and the
// security-key algorithms keep their @openssh.com suffix.
func underlyingAlgo(algo string) string {
	if base, ok := strings.CutSuffix(algo, "-cert-v01@openssh.com"); ok {
		if strings.HasPrefix(base, "sk-") {
			return base + "@openssh.com"
		}
		return base
	}
	if base, ok := strings.CutSuffix(algo, "-cert-v01@golang.org"); ok {
		return base
	}
	return algo
}

var errTrailing = errors.New("trailing bytes after the last field")

// parseInit parses byte 30 || string C_INIT.
func parseInit(packet []byte) ([]byte, error) {
	if len(packet) == 0 || packet[0] != msgKexECDHInit {
		return nil, fmt.Errorf("unexpected message type %s", msgType(packet))
	}
	qc, rest, err := readString(packet[1:], "C_INIT")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errTrailing
	}
	return qc, nil
}

// parseReply parses byte 31 || string K_S || string S_REPLY || string sig.
func parseReply(packet []byte) (hostKey, qs, sig []byte, err error) {
	if len(packet) == 0 || packet[0] != msgKexECDHReply {
		return nil, nil, nil, fmt.Errorf("unexpected message type %s", msgType(packet))
	}
	rest := packet[1:]
	if hostKey, rest, err = readString(rest, "host key"); err != nil {
		return nil, nil, nil, err
	}
	if qs, rest, err = readString(rest, "S_REPLY"); err != nil {
		return nil, nil, nil, err
	}
	if sig, rest, err = readString(rest, "signature"); err != nil {
		return nil, nil, nil, err
	}
	if len(rest) != 0 {
		return nil, nil, nil, errTrailing
	}
	return hostKey, qs, sig, nil
}

func msgType(packet []byte) string {
	if len(packet) == 0 {
		return "(empty packet)"
	}
	return fmt.Sprint(packet[0])
}

// readString reads an SSH string (RFC 4251 §5), checking every length
// before slicing.
func readString(b []byte, field string) (s, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%s: truncated length (%d bytes left)", field, len(b))
	}
	n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("%s: length %d exceeds the %d bytes left", field, n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}
