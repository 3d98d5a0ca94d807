package conformance

import (
	"crypto/rand"
	"fmt"
	"slices"

	"github.com/pqkex/pqkex/internal/sshwire"
	"golang.org/x/crypto/ssh"
)

// What the checks offer besides the key exchange under test: host key
// algorithms x/crypto verifies, and the ciphers and MACs sshwire
// implements (chacha20-poly1305 is the only cipher tinysshd has).
var (
	clientHostKeyAlgos = []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521,
		ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256}
	ciphers = []string{sshwire.CipherAES256CTR, sshwire.CipherAES128CTR, sshwire.CipherChaCha20Poly1305}
	macs    = []string{sshwire.MACHMACSHA256, sshwire.MACHMACSHA512}
)

// Strict key exchange (OpenSSH's PROTOCOL §1.10, the Terrapin
// countermeasure): offered by a client and a server in their first
// KEXINIT, it resets the sequence numbers at SSH_MSG_NEWKEYS and makes any
// unexpected message during the first key exchange fatal.
const (
	strictClient = "kex-strict-c-v00@openssh.com"
	strictServer = "kex-strict-s-v00@openssh.com"
)

// exchangeKexInit sends ki as our SSH_MSG_KEXINIT and reads the peer's
// (peer, "client" or "server", names it in the errors): our payload, the
// peer's and the peer's parsed. Both sides' checkers start so.
func (c *conn) exchangeKexInit(ki *sshwire.KexInit, peer string) (ours, theirs []byte, parsed *sshwire.KexInit, err error) {
	ours = sshwire.AppendKexInit(nil, ki)
	if err := c.write(ours); err != nil {
		return nil, nil, nil, fmt.Errorf("sending SSH_MSG_KEXINIT: %v", err)
	}
	ev := c.next(false)
	if ev.kind != evPacket {
		return nil, nil, nil, fmt.Errorf("waiting for the %s's SSH_MSG_KEXINIT: %s", peer, describe(ev))
	}
	if parsed, err = sshwire.ParseKexInit(ev.payload); err != nil {
		return nil, nil, nil, fmt.Errorf("the %s's SSH_MSG_KEXINIT: %v", peer, err)
	}
	return ours, ev.payload, parsed, nil
}

// newKexInit returns a KEXINIT offering kex and hostKeys with the ciphers
// and MACs above and a random cookie.
func newKexInit(kex, hostKeys []string) *sshwire.KexInit {
	k := &sshwire.KexInit{
		KexAlgos:       kex,
		HostKeyAlgos:   hostKeys,
		CiphersC2S:     ciphers,
		CiphersS2C:     ciphers,
		MACsC2S:        macs,
		MACsS2C:        macs,
		CompressionC2S: []string{"none"},
		CompressionS2C: []string{"none"},
	}
	rand.Read(k.Cookie[:])
	return k
}

// algorithms is the outcome of negotiation (RFC 4253 §7.1).
type algorithms struct {
	kex, hostKey       string
	cipherCS, cipherSC string
	macCS, macSC       string // empty with an AEAD cipher
	strict             bool
}

// firstCommon returns the first name of client's list that server's has.
func firstCommon(what string, client, server []string) (string, error) {
	for _, c := range client {
		if slices.Contains(server, c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("no %s in common", what)
}

// pseudoKex reports whether name is a marker carried in the key exchange
// list that names no key exchange method: strict key exchange's (OpenSSH's
// PROTOCOL §1.10) and RFC 8308 §2.1's ext-info-c and ext-info-s. A
// marker is never negotiated, even when both sides list it.
func pseudoKex(name string) bool {
	switch name {
	case strictClient, strictServer, "ext-info-c", "ext-info-s":
		return true
	}
	return false
}

// negotiate picks the algorithms of a connection from both KEXINITs: for
// each list the first name of the client's that the server also has (for
// the key exchange, the first that is not a marker).
func negotiate(client, server *sshwire.KexInit) (algorithms, error) {
	var a algorithms
	var err error
	pick := func(dst *string, what string, c, s []string) {
		if err == nil {
			*dst, err = firstCommon(what, c, s)
		}
	}
	pick(&a.kex, "key exchange", client.KexAlgos, slices.DeleteFunc(slices.Clone(server.KexAlgos), pseudoKex))
	pick(&a.hostKey, "host key algorithm", client.HostKeyAlgos, server.HostKeyAlgos)
	pick(&a.cipherCS, "client-to-server cipher", client.CiphersC2S, server.CiphersC2S)
	pick(&a.cipherSC, "server-to-client cipher", client.CiphersS2C, server.CiphersS2C)
	if err == nil && !sshwire.AEAD(a.cipherCS) {
		pick(&a.macCS, "client-to-server MAC", client.MACsC2S, server.MACsC2S)
	}
	if err == nil && !sshwire.AEAD(a.cipherSC) {
		pick(&a.macSC, "server-to-client MAC", client.MACsS2C, server.MACsS2C)
	}
	var comp string // we offer only "none"
	pick(&comp, "client-to-server compression", client.CompressionC2S, server.CompressionC2S)
	pick(&comp, "server-to-client compression", client.CompressionS2C, server.CompressionS2C)
	if err != nil {
		return a, err
	}
	a.strict = slices.Contains(client.KexAlgos, strictClient) && slices.Contains(server.KexAlgos, strictServer)
	return a, nil
}
