package sshkex

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
)

// sideTranscript is what one side of a first key exchange sent in the
// clear (RFC 4253 §4.2, §7), as the self-test observed it on the wire.
type sideTranscript struct {
	version string // identification line without CR LF
	kexInit []byte // SSH_MSG_KEXINIT payload
	ecdh    []byte // SSH_MSG_KEX_ECDH_INIT or _REPLY payload
	packets uint32 // packets sent up to and including SSH_MSG_NEWKEYS
	rest    []byte // what followed SSH_MSG_NEWKEYS: encrypted packets
}

const msgNewKeys = 21

// parseSide reads one direction of a recorded connection up to its
// SSH_MSG_NEWKEYS. ecdhMsg is the key exchange message this side sends.
func parseSide(b []byte, ecdhMsg byte) (*sideTranscript, error) {
	br := bufio.NewReader(bytes.NewReader(b))
	version, err := sshwire.ReadVersion(br)
	if err != nil {
		return nil, fmt.Errorf("identification line: %w", err)
	}
	t := &sideTranscript{version: version}
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
		case ecdhMsg:
			if t.ecdh == nil {
				t.ecdh = p
			}
		case msgNewKeys:
			if t.kexInit == nil || t.ecdh == nil {
				return nil, fmt.Errorf("SSH_MSG_NEWKEYS before SSH_MSG_KEXINIT and message %d", ecdhMsg)
			}
			t.rest, _ = io.ReadAll(br)
			return t, nil
		}
	}
}

// wireExchangeHash computes H (RFC 4253 §8, RFC 5656 §4) from the two
// recorded directions of a first key exchange and the shared secret k
// (encoded as the method hashes it). It returns the client's side too, for
// checkFirstPacket.
func wireExchangeHash(h crypto.Hash, c2s, s2c, k []byte) (H []byte, client *sideTranscript, err error) {
	client, err = parseSide(c2s, sshwire.MsgKexECDHInit)
	if err != nil {
		return nil, nil, fmt.Errorf("client's messages: %w", err)
	}
	server, err := parseSide(s2c, sshwire.MsgKexECDHReply)
	if err != nil {
		return nil, nil, fmt.Errorf("server's messages: %w", err)
	}
	qc, err := sshwire.ParseKexECDHInit(client.ecdh)
	if err != nil {
		return nil, nil, err
	}
	hostKey, qs, _, err := sshwire.ParseKexECDHReply(server.ecdh)
	if err != nil {
		return nil, nil, err
	}
	H = kexhash.ExchangeHash(h, []byte(client.version), []byte(server.version),
		client.kexInit, server.kexInit, hostKey, qc, qs, k)
	return H, client, nil
}

// checkFirstPacket shows that the client encrypted and authenticated its
// first packet after SSH_MSG_NEWKEYS with keys derived from k and H as RFC
// 4253 §7.2 says (aes256-ctr and hmac-sha2-256, which the self-test
// negotiates): it decrypts the packet with keys 'A', 'C' and 'E' derived
// here and verifies its MAC. The packet's sequence number is 0 after a
// strict key exchange (OpenSSH's PROTOCOL, kex-strict) and the count of
// earlier packets otherwise; either is accepted.
func checkFirstPacket(h crypto.Hash, k, H []byte, client *sideTranscript) error {
	iv := kexhash.DeriveKey(h, k, H, H, 'A', aes.BlockSize)
	key := kexhash.DeriveKey(h, k, H, H, 'C', 32)
	macKey := kexhash.DeriveKey(h, k, H, H, 'E', sha256.Size)
	defer clear(key)
	defer clear(macKey)
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	ctr := cipher.NewCTR(block, iv)
	rest := client.rest
	if len(rest) < 4 {
		return errors.New("the client sent no packet after SSH_MSG_NEWKEYS")
	}
	plain := make([]byte, 4, 64)
	ctr.XORKeyStream(plain, rest[:4])
	n := binary.BigEndian.Uint32(plain)
	if n < 16 || n > 32<<10 || (n+4)%aes.BlockSize != 0 || uint64(len(rest)) < 4+uint64(n)+sha256.Size {
		return errors.New("the client's first encrypted packet does not decrypt with keys derived from K and H")
	}
	plain = append(plain, make([]byte, n)...)
	ctr.XORKeyStream(plain[4:], rest[4:4+n])
	tag := rest[4+n : 4+n+sha256.Size]
	for _, seq := range []uint32{0, client.packets} {
		mac := hmac.New(sha256.New, macKey)
		mac.Write(binary.BigEndian.AppendUint32(nil, seq))
		mac.Write(plain)
		if hmac.Equal(mac.Sum(nil), tag) {
			return nil
		}
	}
	return errors.New("the MAC of the client's first encrypted packet does not verify with keys derived from K and H")
}
