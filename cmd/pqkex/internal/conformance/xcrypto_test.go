package conformance

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

// pqkex's own server and client (x/crypto/ssh with sshkex) must conform
// in every case of every method.

func TestMain(m *testing.M) {
	if err := sshkex.Register(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// xcryptoServer serves x/crypto/ssh with sshkex's methods on loopback
// until the test ends; set, if not nil, changes its configuration.
func xcryptoServer(t *testing.T, set func(*ssh.Config)) string {
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	if set != nil {
		set(&cfg.Config)
	}
	cfg.AddHostKey(sshtest.HostKey(t))
	return sshtest.XCryptoServer(t, cfg, 10*time.Second)
}

func requireConforming(t *testing.T, rs []Result, wantMethods int) {
	t.Helper()
	methods := map[string]bool{}
	for _, r := range rs {
		methods[r.Method] = true
		if !r.Conforms && r.Verdict != NotApplicable {
			t.Errorf("%s %s: %s: %s", r.Method, r.Case, r.Observed(), r.Detail)
		}
	}
	if len(methods) != wantMethods {
		t.Errorf("results for %d methods, want %d", len(methods), wantMethods)
	}
}

func TestXCryptoServerConforms(t *testing.T) {
	addr := xcryptoServer(t, nil)
	rep, err := CheckServer(context.Background(), ServerOptions{Addr: addr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Strict || !strings.HasPrefix(rep.Version, "SSH-2.0-Go") {
		t.Errorf("version %q, strict %v", rep.Version, rep.Strict)
	}
	requireConforming(t, rep.Results, len(methods))
	for _, r := range rep.Results {
		if strings.Contains(r.Detail, "; got "+honestInitGot) { // "sent X; got an honest C_INIT got ..."
			t.Errorf("%s %s: the detail says what it got twice: %s", r.Method, r.Case, r.Detail)
		}
	}
	t.Logf("%d cases, %+v", len(rep.Results), Summarize(rep.Results))
}

// dialUntil connects an x/crypto client with sshkex's methods to addr
// again and again until ctx is done, as a user runs a client once per case.
func dialUntil(ctx context.Context, addr string, kex []string) {
	cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
	cfg.KeyExchanges = kex
	for ctx.Err() == nil {
		if c, err := ssh.Dial("tcp", addr, cfg); err == nil {
			c.Wait() // until check ends the case (rekey starts a re-exchange after authentication)
			c.Close()
		}
	}
}

func TestXCryptoClientConforms(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go dialUntil(ctx, ln.Addr().String(), sshkex.RecommendedKeyExchanges())
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Timeout: 5 * time.Second, Log: func(l string) { t.Log(l) }})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	requireConforming(t, rep.Results, len(methods))
	if len(rep.Versions) != 1 || !strings.HasPrefix(rep.Versions[0], "SSH-2.0-Go") {
		t.Errorf("client versions %q", rep.Versions)
	}
	t.Logf("%d cases, %+v", len(rep.Results), Summarize(rep.Results))
}

// TestPacketCiphers: every cipher and MAC that sshwire implements, alone
// on x/crypto's server, carries the honest exchange's encrypted round
// trip (x/crypto's implementation against sshwire's).
func TestPacketCiphers(t *testing.T) {
	for _, cipher := range ciphers {
		for _, mac := range macs {
			if sshwire.AEAD(cipher) && mac != macs[0] {
				continue
			}
			t.Run(cipher+"+"+mac, func(t *testing.T) {
				addr := xcryptoServer(t, func(c *ssh.Config) { c.Ciphers, c.MACs = []string{cipher}, []string{mac} })
				s := &serverChecker{opts: ServerOptions{Addr: addr, Timeout: 5 * time.Second}}
				s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return net.Dial("tcp", addr) }
				r := s.run(context.Background(), methods[0], serverCases(methods[0])[0])
				if r.Verdict != Completed || !strings.Contains(r.Detail, cipher) {
					t.Fatalf("%s: %s", r.Observed(), r.Detail)
				}
				if !sshwire.AEAD(cipher) && !strings.Contains(r.Detail, mac) {
					t.Fatalf("%s: %s", r.Observed(), r.Detail)
				}
			})
		}
	}
}

// TestHostKeyTypes: -hostkey may be any key type x/crypto signs with; the
// host-key-mismatch case gets another key of the same type.
func TestHostKeyTypes(t *testing.T) {
	for _, gen := range []func() (any, error){
		func() (any, error) { return rsa.GenerateKey(rand.Reader, 2048) },
		func() (any, error) { return ecdsa.GenerateKey(elliptic.P384(), rand.Reader) },
		func() (any, error) { return ecdsa.GenerateKey(elliptic.P521(), rand.Reader) },
	} {
		priv, err := gen()
		if err != nil {
			t.Fatal(err)
		}
		s, err := ssh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		hk, err := newHostKeys([]ssh.Signer{s})
		if err != nil {
			t.Fatalf("%s: %v", s.PublicKey().Type(), err)
		}
		for _, a := range hk.algos {
			if hk.other[a] == nil || string(hk.other[a].PublicKey().Marshal()) == string(s.PublicKey().Marshal()) || hk.other[a].PublicKey().Type() != s.PublicKey().Type() {
				t.Errorf("%s: no other key of the same type", a)
			}
		}
	}
}

// TestXCryptoClientRekeys: x/crypto's client starts a re-exchange after
// Config.RekeyThreshold bytes (at least 256): given a password to retry,
// it writes that many in answer to rekey-by-client's failures, and so
// runs the re-exchange a client starts, which check answers and checks,
// with a real client, for every method sshkex offers; and the one check
// starts (rekey).
func TestXCryptoClientRekeys(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go func() {
		cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
			Auth: []ssh.AuthMethod{ssh.RetryableAuthMethod(ssh.Password("pqkex check"), 16)}}
		cfg.KeyExchanges = sshkex.RecommendedKeyExchanges()
		cfg.RekeyThreshold = 256
		for ctx.Err() == nil {
			if c, err := ssh.Dial("tcp", ln.Addr().String(), cfg); err == nil {
				c.Wait()
				c.Close()
			}
		}
	}()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Timeout: 5 * time.Second, only: []string{"rekey", "rekey-by-client"}})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rep.Results {
		if r.Case == AllCases {
			continue
		}
		n++
		if r.Verdict != Completed {
			t.Errorf("%s %s: %s: %s", r.Method, r.Case, r.Observed(), r.Detail)
		}
		t.Logf("%s %s: %s", r.Method, r.Case, r.Detail)
	}
	if n == 0 {
		t.Fatal("no case ran")
	}
}
