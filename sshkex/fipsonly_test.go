package sshkex

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/fips140"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
)

// onlyModeTests are the tests of this package that apply under
// GODEBUG=fips140=only (the others need X25519, AES-GCM or a process that
// registers differently; TestNoSecretsInErrors applies because the errors
// with which Go refuses the X25519 hybrids must hold no secret either).
const onlyModeTests = "^(TestNoSecretsInErrors|TestRegistered|TestSelfTestPasses|TestSelfTestFailsAndRestores|TestVerifyHonestDetects|TestSessionKeysBothDirections|TestSelfTestRecoversPanics|TestKEXNilArguments|TestCheckRejectedDetects|TestHandshakes|TestDefaultsNegotiatePQ|TestRekey|TestConcurrentHandshakes|TestHostKeyVerificationStaysInXCrypto|TestFIPSOnlyHandshake)$"

// TestFIPSOnlyHandshake runs x/crypto/ssh's own client and server (in
// this process, over loopback TCP, aes256-ctr and hmac-sha2-256) with each
// NIST-curve hybrid in FIPS 140-3 mode, and checks what Register did
// there: pqkex registers only the two approved methods, the defaults offer
// only approved ones, and a client that lists only one of pqkex's other
// methods finds no common key exchange. Under GODEBUG=fips140=only Go
// refuses every non-approved service, so a completed handshake shows that
// the key exchange used only approved ones (fuzz.TestMethods/mlkem768nistp256-sha256/FIPS
// shows that the mode refuses the derandomized path).
//
// Outside FIPS mode it runs onlyModeTests in a child with
// GODEBUG=fips140=only and requires each of them to pass.
func TestFIPSOnlyHandshake(t *testing.T) {
	if !fips140.Enabled() {
		cmd := exec.Command(os.Args[0], "-test.run="+onlyModeTests, "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG=fips140=only")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fips140=only child: %v\n%s", err, out)
		}
		for _, want := range []string{
			"--- PASS: TestRegistered",
			"--- PASS: TestNoSecretsInErrors",
			"--- PASS: TestHandshakes/ecdsa-p256/" + KeyExchangeMLKEM768NISTP256,
			"--- PASS: TestHandshakes/rsa-sha2-512/" + KeyExchangeMLKEM1024NISTP384,
			"--- PASS: TestDefaultsNegotiatePQ",
			"--- PASS: TestHostKeyVerificationStaysInXCrypto",
			"--- PASS: TestFIPSOnlyHandshake",
			"--- PASS: TestSessionKeysBothDirections/" + KeyExchangeMLKEM1024NISTP384,
			"--- PASS: TestSelfTestRecoversPanics",
			"fips140=only enforced",
		} {
			if !strings.Contains(string(out), want) {
				t.Fatalf("fips140=only child lacks %q:\n%s", want, out)
			}
		}
		return
	}
	if fips140.Enforced() {
		t.Log("fips140=only enforced")
	}
	for _, name := range []string{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH} {
		if _, ours := kexAlgoMap[name].(*hybridKEX); ours {
			t.Errorf("%s is registered by pqkex in FIPS mode", name)
		}
	}
	var defaults ssh.Config
	defaults.SetDefaults()
	if !slices.Equal(defaults.KeyExchanges[:2], []string{KeyExchangeMLKEM768NISTP256, KeyExchangeMLKEM1024NISTP384}) {
		t.Errorf("FIPS-mode defaults do not start with the NIST hybrids: %v", defaults.KeyExchanges)
	}
	for _, name := range defaults.KeyExchanges {
		if !sshwire.FIPSApprovedKEX(name) {
			t.Errorf("FIPS-mode defaults offer %s", name)
		}
	}

	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	host := mustSigner(t, ecKey)
	for _, name := range []string{KeyExchangeMLKEM768NISTP256, KeyExchangeMLKEM1024NISTP384} {
		a, err := xcryptoHandshake(t, host, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.KeyExchange != name || a.Write.Cipher != ssh.CipherAES256CTR || a.Read.Cipher != ssh.CipherAES256CTR {
			t.Fatalf("%s: negotiated %+v", name, a)
		}
		t.Logf("%s: handshake and an encrypted request/reply in FIPS mode (%s, %s)", name, a.Write.Cipher, a.Write.MAC)
	}
	for _, name := range []string{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH} {
		if _, err := xcryptoHandshake(t, host, name); err == nil {
			t.Errorf("a client offering only %s completed a handshake in FIPS mode", name)
		}
	}
}

// xcryptoHandshake runs one handshake between an x/crypto client offering
// clientKex and an x/crypto server with the default key exchanges (the
// server offers only approved ones in FIPS mode), both with aes256-ctr and
// hmac-sha2-256, then a global request the server answers, and returns
// the client's negotiated algorithms.
func xcryptoHandshake(t *testing.T, host ssh.Signer, clientKex string) (ssh.NegotiatedAlgorithms, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	algs := ssh.Config{Ciphers: []string{ssh.CipherAES256CTR}, MACs: []string{ssh.HMACSHA256}}
	scfg := &ssh.ServerConfig{Config: algs, NoClientAuth: true}
	scfg.AddHostKey(host)
	srvErr := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			srvErr <- err
			return
		}
		defer c.Close()
		conn, chans, reqs, err := ssh.NewServerConn(c, scfg)
		if err != nil {
			srvErr <- err
			return
		}
		go func() {
			for ch := range chans {
				ch.Reject(ssh.Prohibited, "no channels")
			}
		}()
		for r := range reqs {
			r.Reply(r.Type == "pqkex-ping", []byte("pong"))
		}
		srvErr <- conn.Wait()
	}()
	ccfg := &ssh.ClientConfig{
		Config:            algs,
		User:              "fips",
		HostKeyCallback:   ssh.FixedHostKey(host.PublicKey()),
		HostKeyAlgorithms: []string{ssh.KeyAlgoECDSA256},
		Timeout:           20 * time.Second,
	}
	ccfg.KeyExchanges = []string{clientKex}
	c, err := ssh.Dial("tcp", l.Addr().String(), ccfg)
	if err != nil {
		return ssh.NegotiatedAlgorithms{}, err
	}
	ok, reply, err := c.SendRequest("pqkex-ping", true, nil)
	if err != nil || !ok || string(reply) != "pong" {
		c.Close()
		t.Fatalf("%s: request over the new keys: %v, %v, %q", clientKex, err, ok, reply)
	}
	a, ok := kexserver.Negotiated(c.Conn)
	c.Close()
	if !ok {
		t.Fatal("x/crypto does not report negotiated algorithms")
	}
	<-srvErr
	return a, nil
}
