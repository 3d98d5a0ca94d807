package sshkex

import (
	"bufio"
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
)

// direction is one direction of a connection as the self-test reads it:
// who sends, the key exchange message that side sends, and the letters
// (RFC 4253 §7.2) its IV, cipher key and MAC key are derived with.
type direction struct {
	sender  string // "client" or "server"
	ecdhMsg byte   // SSH_MSG_KEX_ECDH_INIT or _REPLY
	keys    sshwire.Direction
}

var (
	clientToServer = direction{"client", sshwire.MsgKexECDHInit, sshwire.ClientToServer}
	serverToClient = direction{"server", sshwire.MsgKexECDHReply, sshwire.ServerToClient}
)

// sideTranscript is what one side of a first key exchange sent (RFC 4253
// §4.2, §7), as the self-test observed it on the wire.
type sideTranscript struct {
	dir     direction
	version string // identification line without CR LF
	kexInit []byte // SSH_MSG_KEXINIT payload
	ecdh    []byte // SSH_MSG_KEX_ECDH_INIT or _REPLY payload
	packets uint32 // packets sent up to and including SSH_MSG_NEWKEYS
	rest    []byte // what followed SSH_MSG_NEWKEYS: encrypted packets
}

const msgNewKeys = 21

// parseSide reads the direction d of a recorded connection up to its
// SSH_MSG_NEWKEYS.
func parseSide(b []byte, d direction) (*sideTranscript, error) {
	br := bufio.NewReader(bytes.NewReader(b))
	version, err := sshwire.ReadVersion(br)
	if err != nil {
		return nil, fmt.Errorf("identification line: %w", err)
	}
	t := &sideTranscript{dir: d, version: version}
	for {
		p, err := sshwire.ReadPlainPacket(br, 256<<10)
		if err != nil {
			return nil, fmt.Errorf("packet %d before SSH_MSG_NEWKEYS: %w", t.packets, err)
		}
		t.packets++
		if len(p) == 0 {
			return nil, fmt.Errorf("packet %d is empty", t.packets)
		}
		switch p[0] {
		case sshwire.MsgKexInit:
			if t.kexInit == nil {
				t.kexInit = p
			}
		case d.ecdhMsg:
			if t.ecdh == nil {
				t.ecdh = p
			}
		case msgNewKeys:
			if t.kexInit == nil || t.ecdh == nil {
				return nil, fmt.Errorf("SSH_MSG_NEWKEYS before SSH_MSG_KEXINIT and message %d", d.ecdhMsg)
			}
			t.rest, _ = io.ReadAll(br)
			return t, nil
		}
	}
}

// transcript is a first key exchange as the self-test recorded it.
type transcript struct {
	client, server *sideTranscript
	// H is the exchange hash computed from the recorded messages, and the
	// session identifier (the exchange is the connection's first).
	H []byte
	// strict reports whether both KEXINITs offer strict key exchange
	// (OpenSSH's PROTOCOL, section 1.10, kex-strict-c-v00@openssh.com and
	// kex-strict-s-v00@openssh.com): sequence numbers then start again
	// at 0 after SSH_MSG_NEWKEYS.
	strict bool
}

// readTranscript parses the two recorded directions of a first key
// exchange and computes H (RFC 4253 §8, RFC 5656 §4) with the shared
// secret k (encoded as the method hashes it).
func readTranscript(h crypto.Hash, c2s, s2c, k []byte) (*transcript, error) {
	client, err := parseSide(c2s, clientToServer)
	if err != nil {
		return nil, fmt.Errorf("client's messages: %w", err)
	}
	server, err := parseSide(s2c, serverToClient)
	if err != nil {
		return nil, fmt.Errorf("server's messages: %w", err)
	}
	qc, err := sshwire.ParseKexECDHInit(client.ecdh)
	if err != nil {
		return nil, err
	}
	hostKey, qs, _, err := sshwire.ParseKexECDHReply(server.ecdh)
	if err != nil {
		return nil, err
	}
	cInit, err := sshwire.ParseKexInit(client.kexInit)
	if err != nil {
		return nil, fmt.Errorf("client's SSH_MSG_KEXINIT: %w", err)
	}
	sInit, err := sshwire.ParseKexInit(server.kexInit)
	if err != nil {
		return nil, fmt.Errorf("server's SSH_MSG_KEXINIT: %w", err)
	}
	return &transcript{
		client: client,
		server: server,
		H: kexhash.ExchangeHash(h, []byte(client.version), []byte(server.version),
			client.kexInit, server.kexInit, hostKey, qc, qs, k),
		strict: slices.Contains(cInit.KexAlgos, "kex-strict-c-v00@openssh.com") &&
			slices.Contains(sInit.KexAlgos, "kex-strict-s-v00@openssh.com"),
	}, nil
}

// checkSessionKeys shows, for both directions, that x/crypto encrypted
// and authenticated what it sent after SSH_MSG_NEWKEYS with keys derived
// from k and t.H (checkEncrypted). It reports the failures of both.
func (t *transcript) checkSessionKeys(h crypto.Hash, k []byte) error {
	var failed []string
	for _, side := range []*sideTranscript{t.client, t.server} {
		if _, err := side.checkEncrypted(h, k, t.H, t.strict); err != nil {
			failed = append(failed, err.Error())
		}
	}
	if failed != nil {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// The cipher and MAC the self-test negotiates (selftest.go): aes256-ctr
// and hmac-sha2-512, whose 64-byte key is longer than a SHA-256 or SHA-384
// digest, so that key extension (K2 = HASH(K || H || K1)) is used too.
const (
	selfTestCipher = sshwire.CipherAES256CTR
	selfTestMAC    = sshwire.MACHMACSHA512
)

// checkEncrypted shows that s's side encrypted and authenticated every
// packet it sent after SSH_MSG_NEWKEYS with keys derived from k and H as
// RFC 4253 §7.2 says, H being the session identifier too (the first key
// exchange): it opens the packets in order with sshwire's selfTestCipher
// and selfTestMAC, keyed with the IV and cipher key of s's direction ('A'
// and 'C' for the client, 'B' and 'D' for the server) and the MAC key
// ('E', 'F'), each with its sequence number (RFC 4253 §6.4): counted from
// 0 after a strict key exchange, on from the packets sent before
// SSH_MSG_NEWKEYS otherwise. At least one packet is required; x/crypto's
// client completes no handshake without encrypted packets from the server
// (its SSH_MSG_EXT_INFO, sent right after SSH_MSG_NEWKEYS, then
// SSH_MSG_SERVICE_ACCEPT and SSH_MSG_USERAUTH_SUCCESS). It returns the
// packets' message numbers. The errors name the direction, the packet,
// and the keys or sequence number that failed.
func (s *sideTranscript) checkEncrypted(h crypto.Hash, k, H []byte, strict bool) ([]byte, error) {
	d := s.dir
	// The sequence number of the first packet, the one of the other rule
	// (to name a mix-up), and the rule.
	seq, other := uint32(0), s.packets
	rule := "strict key exchange: counted from 0 after SSH_MSG_NEWKEYS"
	if !strict {
		seq, other = s.packets, 0
		rule = "no strict key exchange: counted on from the packets before SSH_MSG_NEWKEYS"
	}
	if len(s.rest) == 0 {
		return nil, fmt.Errorf("the %s sent no packet after SSH_MSG_NEWKEYS", d.sender)
	}
	in, err := sshwire.NewPacketCipher(selfTestCipher, selfTestMAC, h, k, H, H, d.keys)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(s.rest)
	var types []byte
	for i := uint32(0); r.Len() > 0; i++ {
		what := fmt.Sprintf("the %s's first encrypted packet", d.sender)
		if i > 0 {
			what = fmt.Sprintf("the %s's encrypted packet %d", d.sender, i+1)
		}
		p, err := in.Open(r, seq+i)
		switch {
		case errors.Is(err, sshwire.ErrPacketAuth) && s.opens(h, k, H, seq, i, other+i):
			return nil, fmt.Errorf("the MAC of %s verifies with sequence number %d, not %d (%s)", what, other+i, seq+i, rule)
		case errors.Is(err, sshwire.ErrPacketAuth):
			return nil, fmt.Errorf("the MAC of %s does not verify with key '%c' derived from K and H (sequence number %d, %s)", what, d.keys.MAC, seq+i, rule)
		case err != nil || len(p) == 0:
			return nil, fmt.Errorf("%s does not decrypt with IV '%c' and key '%c' derived from K and H", what, d.keys.IV, d.keys.Key)
		}
		types = append(types, p[0])
	}
	return types, nil
}

// opens reports whether s's encrypted packet i opens with sequence number
// seqI once packets 0 to i-1 have been opened with seq, seq+1, and so on
// (as checkEncrypted did): it replays the direction's stream from its
// start, since a stream cipher's state cannot be rewound.
func (s *sideTranscript) opens(h crypto.Hash, k, H []byte, seq, i, seqI uint32) bool {
	in, err := sshwire.NewPacketCipher(selfTestCipher, selfTestMAC, h, k, H, H, s.dir.keys)
	if err != nil {
		return false
	}
	r := bytes.NewReader(s.rest)
	for j := range i {
		if _, err := in.Open(r, seq+j); err != nil {
			return false
		}
	}
	_, err = in.Open(r, seqI)
	return err == nil
}
