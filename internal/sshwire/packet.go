package sshwire

// The binary packet protocol (RFC 4253 §6) with the protection that pqkex
// check negotiates after SSH_MSG_NEWKEYS: aes128-ctr and aes256-ctr (RFC
// 4344 §4) with hmac-sha2-256 or hmac-sha2-512 (RFC 6668 §2), and
// chacha20-poly1305@openssh.com (OpenSSH's PROTOCOL.chacha20poly1305),
// the one cipher tinysshd offers. Keys come from the key exchange's K and H
// (RFC 4253 §7.2, kexhash.DeriveKey); they, the keystreams and the
// plaintexts are secret. It is the module's one implementation of the
// protected packet: sshkex's registration self-test opens x/crypto's
// packets with it too, and so do the known-answer tests.

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/poly1305" //lint:ignore SA1019 chacha20-poly1305@openssh.com needs raw Poly1305 with a fresh one-time key per packet, its intended use
)

// Names of the ciphers and MACs that NewPacketCipher implements.
const (
	CipherAES128CTR        = "aes128-ctr"
	CipherAES256CTR        = "aes256-ctr"
	CipherChaCha20Poly1305 = "chacha20-poly1305@openssh.com"
	MACHMACSHA256          = "hmac-sha2-256"
	MACHMACSHA512          = "hmac-sha2-512"
)

// MaxPacket bounds the packet_length pqkex reads from a peer: RFC 4253
// §6.1 requires 35000 bytes to be accepted, and no message of a key
// exchange comes close.
const MaxPacket = 35000

// AEAD reports whether cipher authenticates packets itself, so that no MAC
// is negotiated with it.
func AEAD(cipher string) bool { return cipher == CipherChaCha20Poly1305 }

// Direction is the letters of RFC 4253 §7.2 that key one direction of a
// connection: its IV, encryption key and integrity key.
type Direction struct{ IV, Key, MAC byte }

var (
	ClientToServer = Direction{'A', 'C', 'E'}
	ServerToClient = Direction{'B', 'D', 'F'}
)

// PacketCipher protects the packets of one direction of a connection.
type PacketCipher interface {
	// Seal returns the protected binary packet carrying payload, with
	// sequence number seq (RFC 4253 §6.4).
	Seal(seq uint32, payload []byte) []byte
	// Open reads one protected packet from r and returns its payload. It
	// fails, naming what was wrong, if the length is out of range or the
	// packet does not authenticate.
	Open(r io.Reader, seq uint32) ([]byte, error)
}

// NewPacketCipher returns the protection of direction dir for the cipher
// and MAC named (mac is ignored for an AEAD cipher), keyed from the
// encoded shared secret k, the exchange hash H and the session identifier
// with the method's hash h (RFC 4253 §7.2).
func NewPacketCipher(cipherName, mac string, h crypto.Hash, k, H, sessionID []byte, dir Direction) (PacketCipher, error) {
	derive := func(letter byte, n int) []byte { return kexhash.DeriveKey(h, k, H, sessionID, letter, n) }
	switch cipherName {
	case CipherChaCha20Poly1305:
		key := derive(dir.Key, 64)
		c := &chachaCipher{}
		copy(c.main[:], key[:32])
		copy(c.length[:], key[32:])
		clear(key)
		return c, nil
	case CipherAES128CTR, CipherAES256CTR:
	default:
		return nil, fmt.Errorf("cipher %q is not implemented", cipherName)
	}
	var newHash func() hash.Hash
	switch mac {
	case MACHMACSHA256:
		newHash = sha256.New
	case MACHMACSHA512:
		newHash = sha512.New
	default:
		return nil, fmt.Errorf("MAC %q is not implemented", mac)
	}
	keyLen := 16
	if cipherName == CipherAES256CTR {
		keyLen = 32
	}
	key := derive(dir.Key, keyLen)
	defer clear(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	macKey := derive(dir.MAC, newHash().Size())
	defer clear(macKey)
	return &ctrCipher{stream: cipher.NewCTR(block, derive(dir.IV, aes.BlockSize)), mac: hmac.New(newHash, macKey)}, nil
}

// padding returns the random padding length for a packet of payload n
// whose aligned part (with the length field if it is encrypted) must be a
// multiple of align: at least 4 bytes (RFC 4253 §6).
func padding(n, lengthField, align int) int {
	p := align - (lengthField+1+n)%align
	if p < 4 {
		p += align
	}
	return p
}

// appendPacket appends packet_length, padding_length, payload and random
// padding.
func appendPacket(dst, payload []byte, pad int) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(1+len(payload)+pad))
	dst = append(dst, byte(pad))
	dst = append(dst, payload...)
	p := make([]byte, pad)
	rand.Read(p)
	return append(dst, p...)
}

// PlainPacket returns payload as a binary packet before any key is in use
// (RFC 4253 §6: 8-byte alignment, no MAC).
func PlainPacket(payload []byte) []byte {
	return appendPacket(nil, payload, padding(len(payload), 4, 8))
}

// checkLength checks a decrypted packet_length against the alignment and
// MaxPacket.
func checkLength(n uint32, min, align uint32) error {
	if n < min || n > MaxPacket {
		return fmt.Errorf("packet length %d out of range (does the peer use other keys?)", n)
	}
	if n%align != 0 {
		return fmt.Errorf("packet length %d not a multiple of %d (does the peer use other keys?)", n, align)
	}
	return nil
}

// payloadOf strips padding_length and padding from packet_length's bytes.
func payloadOf(body []byte) ([]byte, error) {
	pad := int(body[0])
	if pad < 4 || pad+1 > len(body) {
		return nil, fmt.Errorf("padding length %d invalid for a %d-byte packet", pad, len(body))
	}
	return body[1 : len(body)-pad], nil
}

// ErrPacketAuth is the error of a protected packet whose MAC or tag does
// not verify: the peer keyed it differently.
var ErrPacketAuth = errors.New("the packet does not authenticate (MAC mismatch: the peer derived other keys)")

// ctrCipher is AES-CTR with HMAC over the sequence number and the
// plaintext packet (RFC 4253 §6.4, encrypt-and-MAC).
type ctrCipher struct {
	stream cipher.Stream
	mac    hash.Hash
}

func (c *ctrCipher) sum(seq uint32, packet []byte) []byte {
	c.mac.Reset()
	c.mac.Write(binary.BigEndian.AppendUint32(nil, seq))
	c.mac.Write(packet)
	return c.mac.Sum(nil)
}

func (c *ctrCipher) Seal(seq uint32, payload []byte) []byte {
	p := appendPacket(nil, payload, padding(len(payload), 4, aes.BlockSize))
	tag := c.sum(seq, p)
	c.stream.XORKeyStream(p, p)
	return append(p, tag...)
}

func (c *ctrCipher) Open(r io.Reader, seq uint32) ([]byte, error) {
	first := make([]byte, aes.BlockSize)
	if _, err := io.ReadFull(r, first); err != nil {
		return nil, fmt.Errorf("packet header: %w", err)
	}
	c.stream.XORKeyStream(first, first)
	n := binary.BigEndian.Uint32(first)
	// packet_length + 4 is a multiple of the block size.
	if err := checkLength(n+4, aes.BlockSize, aes.BlockSize); err != nil {
		return nil, err
	}
	packet := make([]byte, 4+n)
	copy(packet, first)
	if _, err := io.ReadFull(r, packet[len(first):]); err != nil {
		return nil, fmt.Errorf("packet body: %w", err)
	}
	c.stream.XORKeyStream(packet[len(first):], packet[len(first):])
	tag := make([]byte, c.mac.Size())
	if _, err := io.ReadFull(r, tag); err != nil {
		return nil, fmt.Errorf("packet MAC: %w", err)
	}
	if !hmac.Equal(tag, c.sum(seq, packet)) {
		return nil, ErrPacketAuth
	}
	return payloadOf(packet[4:])
}

// chachaCipher is chacha20-poly1305@openssh.com: the length is encrypted
// with the second half of the key, the rest with the first half from
// block 1; block 0 keys Poly1305 over both; the nonce is the sequence
// number.
type chachaCipher struct {
	main, length [32]byte
}

func nonce(seq uint32) []byte {
	n := make([]byte, chacha20.NonceSize)
	binary.BigEndian.PutUint32(n[8:], seq)
	return n
}

// streams returns the length stream and the payload stream (at block 1)
// for seq, and the Poly1305 key.
func (c *chachaCipher) streams(seq uint32) (length, main *chacha20.Cipher, polyKey *[32]byte) {
	length, _ = chacha20.NewUnauthenticatedCipher(c.length[:], nonce(seq))
	main, _ = chacha20.NewUnauthenticatedCipher(c.main[:], nonce(seq))
	polyKey = new([32]byte)
	main.XORKeyStream(polyKey[:], polyKey[:])
	main.SetCounter(1)
	return length, main, polyKey
}

func (c *chachaCipher) Seal(seq uint32, payload []byte) []byte {
	length, main, polyKey := c.streams(seq)
	p := appendPacket(nil, payload, padding(len(payload), 0, 8))
	length.XORKeyStream(p[:4], p[:4])
	main.XORKeyStream(p[4:], p[4:])
	var tag [poly1305.TagSize]byte
	poly1305.Sum(&tag, p, polyKey)
	return append(p, tag[:]...)
}

func (c *chachaCipher) Open(r io.Reader, seq uint32) ([]byte, error) {
	length, main, polyKey := c.streams(seq)
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("packet header: %w", err)
	}
	var plainLen [4]byte
	length.XORKeyStream(plainLen[:], hdr[:])
	n := binary.BigEndian.Uint32(plainLen[:])
	if err := checkLength(n, 8, 1); err != nil {
		return nil, err
	}
	packet := make([]byte, 4+n+poly1305.TagSize)
	copy(packet, hdr[:])
	if _, err := io.ReadFull(r, packet[4:]); err != nil {
		return nil, fmt.Errorf("packet body: %w", err)
	}
	var want [poly1305.TagSize]byte
	poly1305.Sum(&want, packet[:4+n], polyKey)
	if subtle.ConstantTimeCompare(want[:], packet[4+n:]) != 1 {
		return nil, ErrPacketAuth
	}
	body := packet[4 : 4+n]
	main.XORKeyStream(body, body)
	return payloadOf(body)
}
