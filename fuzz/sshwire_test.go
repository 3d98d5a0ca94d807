package fuzz

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// The SSH message targets. Their file is laid out for go-118-fuzz-build
// as method_test.go's is (see its comment).

// FuzzKexECDHInit: SSH_MSG_KEX_ECDH_INIT parsing (sshkex's server side)
// never panics, and what parses re-encodes to the same bytes.
func FuzzKexECDHInit(f *testing.F) {
	fuzzcorpus.Add(f, sshwire.AppendKexECDHInit(nil, make([]byte, 1190)))
	fuzzcorpus.Add(f, []byte{30, 0, 0, 0})
	f.Fuzz(func(t *testing.T, msg []byte) {
		qc, err := sshwire.ParseKexECDHInit(msg)
		if err != nil {
			return
		}
		if !bytes.Equal(sshwire.AppendKexECDHInit(nil, qc), msg) {
			t.Fatal("KEX_ECDH_INIT does not round-trip")
		}
	})
}

// FuzzKexECDHReply: SSH_MSG_KEX_ECDH_REPLY parsing (sshkex's client side).
func FuzzKexECDHReply(f *testing.F) {
	fuzzcorpus.Add(f, sshwire.AppendKexECDHReply(nil, []byte("host key"), make([]byte, 1071), []byte("signature")))
	fuzzcorpus.Add(f, []byte{31})
	f.Fuzz(func(t *testing.T, msg []byte) {
		hk, qs, sig, err := sshwire.ParseKexECDHReply(msg)
		if err != nil {
			return
		}
		if !bytes.Equal(sshwire.AppendKexECDHReply(nil, hk, qs, sig), msg) {
			t.Fatal("KEX_ECDH_REPLY does not round-trip")
		}
	})
}

// FuzzKexInit: the KEXINIT parsing used by pqkex scan, through the
// identification line and packet framing; parse → encode → parse is stable.
func FuzzKexInit(f *testing.F) {
	ki := sshwire.AppendKexInit(nil, &sshwire.KexInit{
		KexAlgos:     []string{"mlkem768x25519-sha256", "sntrup761x25519-sha512", "curve25519-sha256"},
		HostKeyAlgos: []string{"ssh-ed25519"},
	})
	pkt := append([]byte{0, 0, byte(len(ki) + 5>>8), byte(len(ki) + 5), 4}, ki...)
	pkt = append(pkt, 0, 0, 0, 0)
	fuzzcorpus.Add(f, append([]byte("SSH-2.0-OpenSSH_10.0\r\n"), pkt...))
	fuzzcorpus.Add(f, []byte("SSH-2.0-x\n\x00\x00\x00\x05\x04\x14"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		br := bufio.NewReader(bytes.NewReader(stream))
		if _, err := sshwire.ReadVersion(br); err != nil {
			return
		}
		payload, err := sshwire.ReadPlainPacket(br, 1<<16)
		if err != nil {
			return
		}
		k, err := sshwire.ParseKexInit(payload)
		if err != nil {
			return
		}
		k2, err := sshwire.ParseKexInit(sshwire.AppendKexInit(nil, k))
		if err != nil {
			t.Fatalf("re-encoded KEXINIT does not parse: %v", err)
		}
		if diff := cmp.Diff(k, k2); diff != "" {
			t.Fatalf("KEXINIT not stable: %s", diff)
		}
	})
}
