package conformance

import (
	"bytes"
	"crypto"
	"net"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
)

// TestReadTimeoutKeepsSequence: a read that times out before a packet
// starts takes no sequence number and no byte, so the packet the peer
// sends after its pause opens (the false "does not authenticate" of
// packet-tampered against clients that wait for the accept); a read that
// times out inside a packet tears the connection for good.
func TestReadTimeoutKeepsSequence(t *testing.T) {
	k := sshwire.AppendString(nil, bytes.Repeat([]byte{7}, 32))
	H := bytes.Repeat([]byte{9}, 32)
	for _, cipher := range []string{sshwire.CipherAES128CTR, sshwire.CipherChaCha20Poly1305} {
		t.Run(cipher, func(t *testing.T) {
			keys := func() sshwire.PacketCipher {
				pc, err := sshwire.NewPacketCipher(cipher, sshwire.MACHMACSHA256, crypto.SHA256, k, H, H, sshwire.ServerToClient)
				if err != nil {
					t.Fatal(err)
				}
				return pc
			}
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			c := newConn(a)
			c.in = keys()
			out := keys()
			c.deadline = time.Now().Add(5 * time.Second)
			if c.waitData(20 * time.Millisecond) {
				t.Fatal("waitData reports data on a silent connection")
			}
			a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			if _, err := c.read(); classify(err) != evTimeout {
				t.Fatalf("read on a silent connection: %v, want a timeout", err)
			}
			if c.readSeq != 0 || c.torn != nil {
				t.Fatalf("after a timeout before any byte: sequence number %d, torn %v; want 0, nil", c.readSeq, c.torn)
			}
			msg := disconnectMsg(5, "MAC error")
			go b.Write(out.Seal(0, msg))
			if !c.waitData(5 * time.Second) {
				t.Fatal("waitData missed the packet")
			}
			a.SetReadDeadline(c.deadline)
			if ev := c.next(false); ev.kind != evDisconnect || ev.reason != 5 {
				t.Fatalf("the packet sent after the pause: %s, want SSH_MSG_DISCONNECT 5", describe(ev))
			}
			// Half a packet, then silence: the stream is lost.
			p := out.Seal(1, msg)
			go b.Write(p[:len(p)/2])
			a.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := c.read(); classify(err) != evTimeout || c.torn == nil {
				t.Fatalf("a packet cut short: %v, torn %v; want a timeout that tears the connection", err, c.torn)
			}
			go b.Write(p[len(p)/2:])
			a.SetReadDeadline(time.Now().Add(time.Second))
			if _, err := c.read(); err == nil {
				t.Fatal("a torn connection read a packet")
			}
		})
	}
}
