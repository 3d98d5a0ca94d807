package sshwire

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrips(t *testing.T) {
	qc := bytes.Repeat([]byte{7}, 1190)
	got, err := ParseKexECDHInit(AppendKexECDHInit(nil, qc))
	if err != nil || !bytes.Equal(got, qc) {
		t.Fatal("KEX_ECDH_INIT round trip", err)
	}
	hk, qs, sig := []byte("hostkey"), bytes.Repeat([]byte{9}, 1071), []byte("sig")
	h2, q2, s2, err := ParseKexECDHReply(AppendKexECDHReply(nil, hk, qs, sig))
	if err != nil || !bytes.Equal(h2, hk) || !bytes.Equal(q2, qs) || !bytes.Equal(s2, sig) {
		t.Fatal("KEX_ECDH_REPLY round trip", err)
	}
	ki := &KexInit{KexAlgos: []string{"mlkem768x25519-sha256", "curve25519-sha256"}, HostKeyAlgos: []string{"ssh-ed25519"}, FirstKexFollows: true, Reserved: 7}
	ki.Cookie[3] = 1
	k2, err := ParseKexInit(AppendKexInit(nil, ki))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ki, k2); diff != "" {
		t.Fatal(diff)
	}
}

// TestMalformed feeds truncated, extended, empty and mistyped messages to
// every parser: each must return an error naming the problem.
func TestMalformed(t *testing.T) {
	init := AppendKexECDHInit(nil, make([]byte, 1216))
	reply := AppendKexECDHReply(nil, []byte("k"), make([]byte, 1120), []byte("s"))
	kexinit := AppendKexInit(nil, &KexInit{KexAlgos: []string{"a"}})
	cases := []struct {
		name  string
		parse func([]byte) error
		msg   []byte
		want  string
	}{
		{"init empty", parseInit, nil, "message type"},
		{"init wrong type", parseInit, reply, "message type"},
		{"init truncated length", parseInit, init[:3], "truncated length"},
		{"init short", parseInit, init[:len(init)-1], "exceeds"},
		{"init trailing", parseInit, append(bytes.Clone(init), 0), "trailing"},
		{"reply empty", parseReply, []byte{}, "message type"},
		{"reply truncated host key", parseReply, reply[:3], "host key"},
		{"reply truncated S_REPLY", parseReply, reply[:1+4+1+2], "S_REPLY"},
		{"reply missing signature", parseReply, reply[:len(reply)-5], "signature"},
		{"reply trailing", parseReply, append(bytes.Clone(reply), 1), "trailing"},
		{"kexinit empty", parseKexInit, nil, "message type"},
		{"kexinit cookie", parseKexInit, kexinit[:10], "cookie"},
		{"kexinit name-list", parseKexInit, kexinit[:20], "name-list"},
		{"kexinit tail short", parseKexInit, kexinit[:len(kexinit)-1], "after the name-lists"},
		{"kexinit tail long", parseKexInit, append(bytes.Clone(kexinit), 0), "after the name-lists"},
	}
	for _, c := range cases {
		err := c.parse(c.msg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func parseInit(b []byte) error    { _, err := ParseKexECDHInit(b); return err }
func parseReply(b []byte) error   { _, _, _, err := ParseKexECDHReply(b); return err }
func parseKexInit(b []byte) error { _, err := ParseKexInit(b); return err }

func TestReadVersionAndPacket(t *testing.T) {
	payload := AppendKexInit(nil, &KexInit{KexAlgos: []string{"sntrup761x25519-sha512@openssh.com"}})
	pad := 4
	var pkt []byte
	pkt = append(pkt, 0, 0, 0, byte(len(payload)+pad+1), byte(pad))
	pkt = append(pkt, payload...)
	pkt = append(pkt, make([]byte, pad)...)
	stream := "banner line\r\nSSH-2.0-Test_1.0\r\n" + string(pkt)
	br := bufio.NewReader(strings.NewReader(stream))
	v, err := ReadVersion(br)
	if err != nil || v != "SSH-2.0-Test_1.0" {
		t.Fatal(v, err)
	}
	got, err := ReadPlainPacket(br, 1<<16)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatal("packet", err)
	}
	if _, err := ReadPlainPacket(bytes.NewReader([]byte{0, 0, 0, 2, 5, 0}), 1<<16); err == nil {
		t.Fatal("padding longer than the packet accepted")
	}
	if _, err := ReadPlainPacket(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 4}), 1<<16); err == nil {
		t.Fatal("huge packet length accepted")
	}
	if _, err := ReadVersion(bufio.NewReader(strings.NewReader(strings.Repeat("x", 300) + "\n"))); err == nil {
		t.Fatal("overlong line accepted")
	}
}

func TestFIPSApprovedKEX(t *testing.T) {
	for name, want := range map[string]bool{
		"mlkem768nistp256-sha256": true, "mlkem1024nistp384-sha384": true, "ecdh-sha2-nistp256": true,
		"diffie-hellman-group14-sha256": true, "curve25519-sha256": false, "curve25519-sha256@libssh.org": false,
		"mlkem768x25519-sha256": false, "sntrup761x25519-sha512": false, "sntrup761x25519-sha512@openssh.com": false,
		"curve448-sha512": false,
	} {
		if got := FIPSApprovedKEX(name); got != want {
			t.Errorf("FIPSApprovedKEX(%q) = %v, want %v", name, got, want)
		}
	}
}
