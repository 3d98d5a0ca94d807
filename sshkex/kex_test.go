package sshkex

import (
	"crypto/rand"
	"io"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"golang.org/x/crypto/ssh"
)

// keylessSigner is a host key signer without a public key.
type keylessSigner struct{ ssh.AlgorithmSigner }

func (keylessSigner) PublicKey() ssh.PublicKey { return nil }

// silentSigner signs with nothing: no signature and no error.
type silentSigner struct{ ssh.AlgorithmSigner }

func (silentSigner) SignWithAlgorithm(io.Reader, []byte, string) (*ssh.Signature, error) {
	return nil, nil
}

// TestKEXNilArguments: the key exchange values Register stores (without
// the self-test's recovery around them) return an error, never panic,
// for every nil argument an x/crypto could pass them and for a host key
// signer that yields nil; rand may be nil (crypto/rand).
func TestKEXNilArguments(t *testing.T) {
	host := mustThrowaway(t)
	c, err := mlkem768nistp256.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	initPacket := sshwire.AppendKexECDHInit(nil, c.Init())
	kex := &hybridKEX{m: nistp256Method}
	conn := func() *scriptedConn { return &scriptedConn{reads: [][]byte{initPacket}} }
	magics := &handshakeMagics{}
	for _, tc := range []struct {
		name string
		run  func() (*kexResult, error)
		want string
	}{
		{"Client: nil packetConn", func() (*kexResult, error) { return kex.Client(nil, rand.Reader, magics) }, "no packetConn"},
		{"Client: nil magics", func() (*kexResult, error) { return kex.Client(conn(), rand.Reader, nil) }, "no handshakeMagics"},
		{"Client: no method", func() (*kexResult, error) { return (&hybridKEX{}).Client(conn(), nil, magics) }, "without a method"},
		{"Client: all nil", func() (*kexResult, error) { return keepKEX.Client(nil, nil, nil) }, "without a method"},
		{"Server: nil packetConn", func() (*kexResult, error) { return kex.Server(nil, nil, magics, host, ssh.KeyAlgoECDSA256) }, "no packetConn"},
		{"Server: nil magics", func() (*kexResult, error) { return kex.Server(conn(), nil, nil, host, ssh.KeyAlgoECDSA256) }, "no handshakeMagics"},
		{"Server: nil signer", func() (*kexResult, error) { return kex.Server(conn(), nil, magics, nil, ssh.KeyAlgoECDSA256) }, "no host key signer"},
		{"Server: signer without a public key", func() (*kexResult, error) {
			return kex.Server(conn(), nil, magics, keylessSigner{host}, ssh.KeyAlgoECDSA256)
		}, "no public key"},
		{"Server: no signature", func() (*kexResult, error) {
			return kex.Server(conn(), nil, magics, silentSigner{host}, ssh.KeyAlgoECDSA256)
		}, "returned no signature"},
		{"Server: all nil", func() (*kexResult, error) { return keepKEX.Server(nil, nil, nil, nil, "") }, "without a method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.run()
			if res != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error naming %q", res, err, tc.want)
			}
			t.Log(err)
		})
	}
	// And with every argument given, rand nil included, it works.
	if _, err := kex.Server(conn(), nil, magics, host, ssh.KeyAlgoECDSA256); err != nil {
		t.Fatalf("Server with rand nil: %v", err)
	}
}
