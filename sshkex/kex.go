package sshkex

import (
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// client is the client half of a hybrid method: Init returns C_INIT and
// Finish turns S_REPLY into K (already SSH-encoded). Finish overwrites the
// client's secrets whether or not it succeeds, so Finish(nil) ends a
// client that will not get a reply.
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

// newMethod describes a method package to the adapter: its name, hash,
// NewClient and Respond.
func newMethod[C client](name string, h crypto.Hash, newClient func(io.Reader) (C, error),
	respond func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)) *method {
	return &method{
		name: name,
		hash: h,
		newClient: func(rand io.Reader) (client, error) {
			c, err := newClient(rand)
			if err != nil {
				return nil, err // not a non-nil interface holding a nil pointer
			}
			return c, nil
		},
		respond: respond,
	}
}

// hybridKEX runs a method over x/crypto/ssh's packet connection, in the
// shape of x/crypto's own ecdh and mlkem768 key exchanges (kex.go,
// mlkem.go): the client never verifies the signature itself (x/crypto's
// handshake does, over H, after Client returns).
type hybridKEX struct {
	m *method
	// observe, set only on the registration self-test's values (never on
	// registered ones), receives each result before it is returned to
	// x/crypto.
	observe func(server bool, r *kexResult)
}

// Client sends SSH_MSG_KEX_ECDH_INIT with C_INIT and processes the server's
// SSH_MSG_KEX_ECDH_REPLY. A nil p or magics is an error (rand may be nil:
// crypto/rand).
func (k *hybridKEX) Client(p packetConn, rand io.Reader, magics *handshakeMagics) (*kexResult, error) {
	if err := k.checkArgs(p, magics); err != nil {
		return nil, err
	}
	c, err := k.m.newClient(rand)
	if err != nil {
		return nil, err
	}
	finished := false
	defer func() {
		if !finished {
			// Every method's Finish overwrites the client's secrets whether
			// or not it succeeds: on a failure before S_REPLY it wipes them
			// with an empty reply (and returns an error, ignored).
			c.Finish(nil)
		}
	}()
	qc := c.Init()
	if err := p.writePacket(sshwire.AppendKexECDHInit(nil, qc)); err != nil {
		return nil, err
	}
	packet, err := p.readPacket()
	if err != nil {
		return nil, err
	}
	hostKey, qs, sig, err := sshwire.ParseKexECDHReply(packet)
	if err != nil {
		return nil, fmt.Errorf("sshkex: %s: server's SSH_MSG_KEX_ECDH_REPLY: %w", k.m.name, err)
	}
	finished = true
	K, err := c.Finish(qs)
	if err != nil {
		return nil, err
	}
	H := kexhash.ExchangeHash(k.m.hash, magics.clientVersion, magics.serverVersion,
		magics.clientKexInit, magics.serverKexInit, hostKey, qc, qs, K)
	r := &kexResult{H: H, K: K, HostKey: hostKey, Signature: sig, Hash: k.m.hash}
	if k.observe != nil {
		k.observe(false, r)
	}
	return r, nil
}

// Server reads SSH_MSG_KEX_ECDH_INIT, answers with SSH_MSG_KEX_ECDH_REPLY
// signed by priv with the negotiated host key algorithm algo. A nil p,
// magics or priv, a priv without a public key, and a nil signature from
// it are errors (rand may be nil: crypto/rand).
func (k *hybridKEX) Server(p packetConn, rand io.Reader, magics *handshakeMagics, priv ssh.AlgorithmSigner, algo string) (*kexResult, error) {
	if err := k.checkArgs(p, magics); err != nil {
		return nil, err
	}
	if priv == nil {
		return nil, k.refuse("x/crypto gave the key exchange no host key signer")
	}
	pub := priv.PublicKey()
	if pub == nil {
		return nil, k.refuse("the host key signer has no public key")
	}
	packet, err := p.readPacket()
	if err != nil {
		return nil, err
	}
	qc, err := sshwire.ParseKexECDHInit(packet)
	if err != nil {
		return nil, fmt.Errorf("sshkex: %s: client's SSH_MSG_KEX_ECDH_INIT: %w", k.m.name, err)
	}
	qs, K, err := k.m.respond(rand, qc)
	if err != nil {
		return nil, err
	}
	hostKey := pub.Marshal()
	H := kexhash.ExchangeHash(k.m.hash, magics.clientVersion, magics.serverVersion,
		magics.clientKexInit, magics.serverKexInit, hostKey, qc, qs, K)
	sig, err := priv.SignWithAlgorithm(rand, H, underlyingAlgo(algo))
	if err == nil && sig == nil {
		err = k.refuse("the host key signer returned no signature")
	}
	if err != nil {
		clear(K) // K goes to x/crypto only on success
		return nil, err
	}
	sigBlob := ssh.Marshal(sig)
	if err := p.writePacket(sshwire.AppendKexECDHReply(nil, hostKey, qs, sigBlob)); err != nil {
		clear(K)
		return nil, err
	}
	r := &kexResult{H: H, K: K, HostKey: hostKey, Signature: sigBlob, Hash: k.m.hash}
	if k.observe != nil {
		k.observe(true, r)
	}
	return r, nil
}

// checkArgs returns an error for the nil arguments a key exchange cannot
// run without: x/crypto passes none, but an x/crypto that did must get an
// error, not a crash (the self-test is there to refuse it).
func (k *hybridKEX) checkArgs(p packetConn, magics *handshakeMagics) error {
	switch {
	case k == nil || k.m == nil:
		return errors.New("sshkex: a key exchange without a method")
	case p == nil:
		return k.refuse("x/crypto gave the key exchange no packetConn")
	case magics == nil:
		return k.refuse("x/crypto gave the key exchange no handshakeMagics")
	}
	return nil
}

// refuse returns an error of the key exchange saying why.
func (k *hybridKEX) refuse(why string) error {
	return fmt.Errorf("sshkex: %s: %s", k.m.name, why)
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
