package sshwire

import (
	"bytes"
	"crypto"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// packetAlgs are the cipher and MAC pairs NewPacketCipher implements (the
// MAC is ignored with an AEAD cipher).
var packetAlgs = []struct{ cipher, mac string }{
	{CipherAES128CTR, MACHMACSHA256},
	{CipherAES128CTR, MACHMACSHA512},
	{CipherAES256CTR, MACHMACSHA256},
	{CipherAES256CTR, MACHMACSHA512},
	{CipherChaCha20Poly1305, ""},
}

// newPair returns the sending and the receiving side of direction dir,
// keyed from the same K and H.
func newPair(t *testing.T, cipher, mac string, dir Direction) (out, in PacketCipher) {
	t.Helper()
	k, H := []byte("\x00\x00\x00\x20shared secret, 32 bytes long...."), bytes.Repeat([]byte{7}, 32)
	var err error
	if out, err = NewPacketCipher(cipher, mac, crypto.SHA256, k, H, H, dir); err != nil {
		t.Fatal(err)
	}
	if in, err = NewPacketCipher(cipher, mac, crypto.SHA256, k, H, H, dir); err != nil {
		t.Fatal(err)
	}
	return out, in
}

// TestPacketRoundTrip: packets of every length class sealed in sequence
// open in sequence with the same sequence numbers (RFC 4253 §6.4), with
// the alignment and at least 4 bytes of padding RFC 4253 §6 requires.
func TestPacketRoundTrip(t *testing.T) {
	for _, a := range packetAlgs {
		for _, dir := range []Direction{ClientToServer, ServerToClient} {
			t.Run(a.cipher+"/"+a.mac+"/"+string(dir.Key), func(t *testing.T) {
				out, in := newPair(t, a.cipher, a.mac, dir)
				var wire bytes.Buffer
				var sent [][]byte
				for n := range 40 {
					p := bytes.Repeat([]byte{byte(n + 1)}, n*7)
					if n == 0 {
						p = []byte{0}
					}
					wire.Write(out.Seal(uint32(n)+5, p))
					sent = append(sent, p)
				}
				for n, want := range sent {
					got, err := in.Open(&wire, uint32(n)+5)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("packet %d: %x, %v; want %x", n, got, err, want)
					}
				}
				if wire.Len() != 0 {
					t.Fatalf("%d bytes left after the last packet", wire.Len())
				}
			})
		}
	}
}

// TestPacketLayout: a plain packet is packet_length, padding_length,
// payload and 4 to 11 bytes of padding, a multiple of 8 bytes (RFC 4253
// §6); a sealed one has as many bytes as such a packet aligned to the
// cipher's block (16 for AES-CTR, 8 without the length field for
// chacha20-poly1305@openssh.com), plus the tag.
func TestPacketLayout(t *testing.T) {
	for n := range 64 {
		p := PlainPacket(bytes.Repeat([]byte{1}, n))
		pad := int(p[4])
		if binary.BigEndian.Uint32(p) != uint32(len(p)-4) || pad < 4 || pad >= 4+8 || len(p)%8 != 0 || len(p) != 5+n+pad {
			t.Fatalf("PlainPacket of %d bytes: length %d, padding %d, %d bytes in all", n, binary.BigEndian.Uint32(p), pad, len(p))
		}
		got, err := ReadPlainPacket(bytes.NewReader(p), MaxPacket)
		if err != nil || len(got) != n {
			t.Fatalf("PlainPacket of %d bytes reads back as %d bytes, %v", n, len(got), err)
		}
	}
	for _, a := range packetAlgs {
		tagLen := 16
		switch a.mac {
		case MACHMACSHA256:
			tagLen = 32
		case MACHMACSHA512:
			tagLen = 64
		}
		if AEAD(a.cipher) {
			tagLen = 16
		}
		out, _ := newPair(t, a.cipher, a.mac, ClientToServer)
		for n := range 64 {
			sealed := out.Seal(uint32(n), make([]byte, n))
			body := len(sealed) - tagLen // packet_length field and packet
			align, aligned := 16, body
			if AEAD(a.cipher) {
				align, aligned = 8, body-4 // the length is not aligned
			}
			pad := body - 4 - 1 - n
			if aligned%align != 0 || pad < 4 || pad >= 4+align {
				t.Fatalf("%s %s, %d-byte payload: %d bytes sealed, padding %d", a.cipher, a.mac, n, len(sealed), pad)
			}
		}
	}
}

// TestPacketTampered: a packet opened with another sequence number, with
// the other direction's keys, or with any single bit flipped is refused;
// a flipped tag, and a wrong sequence number with AES-CTR and HMAC, is
// ErrPacketAuth, and a packet cut short is a read error, not
// ErrPacketAuth. Nothing panics.
func TestPacketTampered(t *testing.T) {
	payload := []byte("\x05\x00\x00\x00\x0cssh-userauth")
	for _, a := range packetAlgs {
		t.Run(a.cipher+"/"+a.mac, func(t *testing.T) {
			out, _ := newPair(t, a.cipher, a.mac, ClientToServer)
			sealed := out.Seal(3, payload)
			open := func(b []byte, seq uint32, dir Direction) ([]byte, error) {
				_, in := newPair(t, a.cipher, a.mac, dir)
				return in.Open(bytes.NewReader(b), seq)
			}
			if p, err := open(sealed, 3, ClientToServer); err != nil || !bytes.Equal(p, payload) {
				t.Fatalf("untampered: %x, %v", p, err)
			}
			// chacha20-poly1305@openssh.com's sequence number is the
			// nonce of the length too, which then decrypts out of range.
			for _, seq := range []uint32{0, 2, 4, 3 | 1<<31} {
				if _, err := open(sealed, seq, ClientToServer); err == nil || !AEAD(a.cipher) && !errors.Is(err, ErrPacketAuth) {
					t.Errorf("sealed with sequence number 3, opened with %d: %v, want ErrPacketAuth", seq, err)
				}
			}
			if _, err := open(sealed, 3, ServerToClient); err == nil {
				t.Error("opened with the other direction's keys")
			}
			for i := range len(sealed) * 8 {
				b := bytes.Clone(sealed)
				b[i/8] ^= 1 << (i % 8)
				_, err := open(b, 3, ClientToServer)
				switch {
				case err == nil:
					t.Fatalf("bit %d flipped: opened", i)
				case i/8 >= len(sealed)-16 && !errors.Is(err, ErrPacketAuth):
					t.Fatalf("bit %d of the tag flipped: %v, want ErrPacketAuth", i, err)
				}
			}
			for n := range len(sealed) {
				_, err := open(sealed[:n], 3, ClientToServer)
				if err == nil || errors.Is(err, ErrPacketAuth) || !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
					t.Fatalf("cut to %d of %d bytes: %v, want a read error", n, len(sealed), err)
				}
			}
		})
	}
}

// TestPacketCipherNames: names NewPacketCipher does not implement are
// refused, and only chacha20-poly1305@openssh.com is an AEAD cipher.
func TestPacketCipherNames(t *testing.T) {
	k, H := []byte{0, 0, 0, 1, 1}, make([]byte, 32)
	for _, a := range []struct{ cipher, mac string }{
		{"aes128-gcm@openssh.com", MACHMACSHA256},
		{"3des-cbc", MACHMACSHA256},
		{CipherAES128CTR, "hmac-sha1"},
		{CipherAES256CTR, ""},
	} {
		if _, err := NewPacketCipher(a.cipher, a.mac, crypto.SHA256, k, H, H, ClientToServer); err == nil {
			t.Errorf("%s with %q accepted", a.cipher, a.mac)
		}
	}
	for _, a := range packetAlgs {
		if AEAD(a.cipher) != (a.cipher == CipherChaCha20Poly1305) {
			t.Errorf("AEAD(%s) = %v", a.cipher, AEAD(a.cipher))
		}
	}
}
