package sshkex

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/fips140"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
	"github.com/pqkex/pqkex/sntrup761"
	"golang.org/x/crypto/ssh"
)

// peerEnv makes the test binary act as a peer process that never calls
// Register, for the interoperability tests with x/crypto's built-in
// mlkem768x25519 (the registry is per process) and for the wrong-mirror
// test.
const peerEnv = "PQKEX_SSHKEX_TEST_PEER"

// builtinMLKEM is x/crypto's own mlkem768x25519-sha256, saved before
// Register replaced it.
var builtinMLKEM kexAlgorithm

func TestMain(m *testing.M) {
	if mode := os.Getenv(peerEnv); mode != "" {
		os.Exit(runPeer(mode, os.Args))
	}
	builtinMLKEM = kexAlgoMap[KeyExchangeMLKEM768X25519] // for BenchmarkHandshake
	if err := Register(); err != nil {
		fmt.Fprintln(os.Stderr, "Register:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// ---------------------------------------------------------------- helpers

type hostKey struct {
	name    string
	signer  ssh.Signer
	algos   []string // client HostKeyAlgorithms
	check   ssh.HostKeyCallback
	certKey ssh.PublicKey // for certificates: the CA
}

func mustSigner(t testing.TB, key any) ssh.Signer {
	t.Helper()
	s, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	hostKeysOnce sync.Once
	hostKeysVal  []hostKey
)

// hostKeys returns ed25519, ecdsa-p256, rsa (negotiated as rsa-sha2-512)
// and ed25519-certificate host keys with matching client checks.
func hostKeys(t testing.TB) []hostKey {
	hostKeysOnce.Do(func() {
		_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
		ecPriv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		rsaPriv, _ := rsa.GenerateKey(rand.Reader, 2048)
		ed := mustSigner(t, edPriv)
		ec := mustSigner(t, ecPriv)
		rs := mustSigner(t, rsaPriv)
		fixed := func(s ssh.Signer) ssh.HostKeyCallback { return ssh.FixedHostKey(s.PublicKey()) }

		_, caPriv, _ := ed25519.GenerateKey(rand.Reader)
		ca := mustSigner(t, caPriv)
		_, certHostPriv, _ := ed25519.GenerateKey(rand.Reader)
		certHost := mustSigner(t, certHostPriv)
		cert := &ssh.Certificate{
			Key:             certHost.PublicKey(),
			CertType:        ssh.HostCert,
			KeyId:           "pqkex test host",
			ValidPrincipals: []string{"127.0.0.1"},
			ValidBefore:     ssh.CertTimeInfinity,
		}
		if err := cert.SignCert(rand.Reader, ca); err != nil {
			panic(err)
		}
		certSigner, err := ssh.NewCertSigner(cert, certHost)
		if err != nil {
			panic(err)
		}
		checker := &ssh.CertChecker{
			IsHostAuthority: func(auth ssh.PublicKey, _ string) bool {
				return bytes.Equal(auth.Marshal(), ca.PublicKey().Marshal())
			},
		}
		hostKeysVal = []hostKey{
			{name: "ed25519", signer: ed, algos: []string{ssh.KeyAlgoED25519}, check: fixed(ed)},
			{name: "ecdsa-p256", signer: ec, algos: []string{ssh.KeyAlgoECDSA256}, check: fixed(ec)},
			{name: "rsa-sha2-512", signer: rs, algos: []string{ssh.KeyAlgoRSASHA512}, check: fixed(rs)},
			{name: "ed25519-cert", signer: certSigner, algos: []string{ssh.CertAlgoED25519v01}, check: checker.CheckHostKey, certKey: ca.PublicKey()},
		}
	})
	return hostKeysVal
}

// startServer serves kexserver on loopback TCP (net.Pipe deadlocks an SSH
// handshake: both ends write their version line first).
func startServer(t testing.TB, signer ssh.Signer, kexs []string) *kexserver.Server {
	t.Helper()
	return startServerWith(t, signer, kexs, nil)
}

// startServerWith is startServer with set, if not nil, called on the
// server before it serves (to set its limits).
func startServerWith(t testing.TB, signer ssh.Signer, kexs []string, set func(*kexserver.Server)) *kexserver.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, kexs))
	if set != nil {
		set(s)
	}
	go s.Serve()
	t.Cleanup(func() { s.Close() })
	return s
}

func clientConfig(hk hostKey, kexs []string) *ssh.ClientConfig {
	cfg := &ssh.ClientConfig{
		User:              "test",
		Auth:              []ssh.AuthMethod{ssh.Password("x")},
		HostKeyCallback:   hk.check,
		HostKeyAlgorithms: hk.algos,
		Timeout:           20 * time.Second,
	}
	cfg.KeyExchanges = kexs
	kexserver.OnlyModeAlgorithms(&cfg.Config)
	return cfg
}

// runKex dials addr, checks the negotiated kex on the client side and
// through the server's answer, and returns it.
func runKex(t testing.TB, addr string, cfg *ssh.ClientConfig) (string, error) {
	c, err := ssh.Dial("tcp", addr, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	a, ok := kexserver.Negotiated(c.Conn)
	if !ok {
		return "", fmt.Errorf("x/crypto does not report negotiated algorithms")
	}
	out, err := execOutput(c, "kex")
	if err != nil {
		return "", err
	}
	if out != "kex="+a.KeyExchange {
		return "", fmt.Errorf("server saw %q, client negotiated %s", out, a.KeyExchange)
	}
	return a.KeyExchange, nil
}

func execOutput(c *ssh.Client, cmd string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	out, err := s.Output(cmd)
	return strings.TrimSpace(string(out)), err
}

// needNonFIPS skips a test of the methods that are not registered in FIPS
// 140-3 mode; .ci/run runs the package once without and once with
// GODEBUG=fips140=on, so the test runs in the first.
func needNonFIPS(t *testing.T) {
	if fips140.Enabled() {
		t.Skip("sntrup761x25519 is not registered in FIPS 140-3 mode; this runs in the non-FIPS run")
	}
}

// classicalKex is a classical key exchange x/crypto offers in the current
// mode.
func classicalKex() string {
	if fips140.Enabled() {
		return ssh.KeyExchangeECDHP256
	}
	return ssh.KeyExchangeCurve25519
}

// ---------------------------------------------------------------- tests

func TestRegistered(t *testing.T) {
	for _, name := range postQuantum() {
		if _, ok := kexAlgoMap[name].(*hybridKEX); !ok {
			t.Errorf("%s is not pqkex's after Register", name)
		}
	}
	supp := ssh.SupportedAlgorithms().KeyExchanges
	for _, name := range postQuantum() {
		if !slices.Contains(supp, name) {
			t.Errorf("SupportedAlgorithms().KeyExchanges lacks %s: %v", name, supp)
		}
	}
	pq := postQuantum()
	var cfg ssh.Config
	cfg.SetDefaults()
	if len(cfg.KeyExchanges) <= len(pq) || !slices.Equal(cfg.KeyExchanges[:len(pq)], pq) {
		t.Errorf("defaults are not PQ-first in the documented order: %v", cfg.KeyExchanges)
	}
	rest := cfg.KeyExchanges[len(pq):]
	if fips140.Enabled() {
		for _, name := range []string{KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH, KeyExchangeMLKEM768X25519} {
			if _, ours := kexAlgoMap[name].(*hybridKEX); ours {
				t.Errorf("%s registered by pqkex in FIPS 140-3 mode", name)
			}
		}
		for _, name := range cfg.KeyExchanges {
			if !sshwire.FIPSApprovedKEX(name) {
				t.Errorf("FIPS-mode defaults contain %s: %v", name, cfg.KeyExchanges)
			}
		}
		if !slices.Contains(rest, ssh.KeyExchangeECDHP256) {
			t.Errorf("FIPS-mode defaults lost x/crypto's approved methods: %v", cfg.KeyExchanges)
		}
	} else if rest[0] != ssh.KeyExchangeCurve25519 {
		t.Errorf("classical defaults do not follow the PQ names: %v", cfg.KeyExchanges)
	}
	rec := RecommendedKeyExchanges()
	// SetDefaults adds x/crypto's alias curve25519-sha256@libssh.org.
	want := slices.DeleteFunc(slices.Clone(cfg.KeyExchanges), func(n string) bool { return n == "curve25519-sha256@libssh.org" })
	if !slices.Equal(rec, want) {
		t.Errorf("RecommendedKeyExchanges() = %v, defaults %v", rec, cfg.KeyExchanges)
	}
	rec[0] = "changed"
	if RecommendedKeyExchanges()[0] != pq[0] {
		t.Error("RecommendedKeyExchanges returns shared state")
	}
	// Like OpenSSH's client default: no method x/crypto marks insecure
	// (x/crypto's own defaults end with diffie-hellman-group14-sha1).
	for _, name := range ssh.InsecureAlgorithms().KeyExchanges {
		if slices.Contains(RecommendedKeyExchanges(), name) || slices.Contains(cfg.KeyExchanges, name) {
			t.Errorf("the defaults offer the insecure %s: %v", name, cfg.KeyExchanges)
		}
	}
	if !fips140.Enabled() {
		want := []string{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH,
			KeyExchangeMLKEM768NISTP256, KeyExchangeMLKEM1024NISTP384,
			ssh.KeyExchangeCurve25519, ssh.KeyExchangeECDHP256, ssh.KeyExchangeECDHP384, ssh.KeyExchangeECDHP521,
			ssh.KeyExchangeDH14SHA256}
		if got := RecommendedKeyExchanges(); !slices.Equal(got, want) {
			t.Errorf("RecommendedKeyExchanges() = %v, want %v", got, want)
		}
	}
}

// TestFIPSMode runs the registration and handshake tests again in a child
// process in FIPS 140-3 mode (.ci/run also runs the whole package so).
func TestFIPSMode(t *testing.T) {
	if fips140.Enabled() {
		t.Skip("already in FIPS 140-3 mode")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestRegistered|TestHandshakes|TestDefaultsNegotiatePQ|TestHostKeyVerificationStaysInXCrypto)$", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=fips140=on")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestRegistered", "--- PASS: TestHandshakes/ed25519/" + KeyExchangeMLKEM1024NISTP384, "--- PASS: TestDefaultsNegotiatePQ"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("FIPS-mode run lacks %q:\n%s", want, out)
		}
	}
}

func TestRegisterIdempotentConcurrent(t *testing.T) {
	before := len(kexAlgoMap)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Register()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(kexAlgoMap) != before {
		t.Fatal("a repeated Register changed the registry")
	}
	var cfg ssh.Config
	cfg.SetDefaults()
	if n := strings.Count(strings.Join(cfg.KeyExchanges, ",")+",", postQuantum()[1]+","); n != 1 {
		t.Fatalf("repeated Register duplicated names: %v", cfg.KeyExchanges)
	}
	if err := RegisterWith(Options{KeepDefaults: true}); err == nil {
		t.Fatal("Register with other options after a first Register succeeded")
	}
}

// TestHandshakes runs every name in both roles (pqkex client and server)
// with every host key type.
func TestHandshakes(t *testing.T) {
	for _, hk := range hostKeys(t) {
		srv := startServer(t, hk.signer, nil) // server: the PQ-first defaults
		for _, name := range postQuantum() {
			t.Run(hk.name+"/"+name, func(t *testing.T) {
				got, err := runKex(t, srv.Addr().String(), clientConfig(hk, []string{name}))
				if err != nil {
					t.Fatal(err)
				}
				if got != name {
					t.Fatalf("negotiated %s, want %s", got, name)
				}
			})
		}
	}
}

func TestDefaultsNegotiatePQ(t *testing.T) {
	hk := hostKeys(t)[0]
	srv := startServer(t, hk.signer, nil)
	got, err := runKex(t, srv.Addr().String(), clientConfig(hk, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != postQuantum()[0] {
		t.Fatalf("empty KeyExchanges negotiated %s", got)
	}
}

func TestClientOrderWins(t *testing.T) {
	needNonFIPS(t)
	hk := hostKeys(t)[0]
	srv := startServer(t, hk.signer, []string{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519OpenSSH, KeyExchangeSNTRUP761X25519})
	for _, order := range [][]string{
		{KeyExchangeSNTRUP761X25519, KeyExchangeMLKEM768X25519},
		{KeyExchangeSNTRUP761X25519OpenSSH, KeyExchangeSNTRUP761X25519},
		{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519},
	} {
		got, err := runKex(t, srv.Addr().String(), clientConfig(hk, order))
		if err != nil {
			t.Fatal(err)
		}
		if got != order[0] {
			t.Errorf("client order %v negotiated %s", order, got)
		}
	}
}

func TestMismatch(t *testing.T) {
	hk := hostKeys(t)[0]
	srv := startServer(t, hk.signer, []string{classicalKex()})
	_, err := runKex(t, srv.Addr().String(), clientConfig(hk, []string{KeyExchangeSNTRUP761X25519}))
	if err == nil || !strings.Contains(err.Error(), "no common algorithm for key exchange") {
		t.Fatalf("mismatch gave %v", err)
	}
}

// TestRekey forces several re-keys mid-session with each method and checks
// that the connection keeps working with an unchanged session ID.
func TestRekey(t *testing.T) {
	hk := hostKeys(t)[0]
	for _, name := range postQuantum() {
		t.Run(name, func(t *testing.T) {
			m := kexAlgoMap[name].(*hybridKEX).m
			var n atomic.Int32
			orig := m.respond
			m.respond = func(r io.Reader, qc []byte) ([]byte, []byte, error) {
				n.Add(1)
				return orig(r, qc)
			}
			defer func() { m.respond = orig }()

			srv := startServer(t, hk.signer, []string{name})
			cfg := clientConfig(hk, []string{name})
			cfg.RekeyThreshold = 256 // the minimum x/crypto accepts
			c, err := ssh.Dial("tcp", srv.Addr().String(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			id := bytes.Clone(c.SessionID())
			// Re-keys run in the background once 256 bytes have passed;
			// under load (the race detector, a busy CI machine) the first
			// may finish only after a few sessions, so keep opening sessions
			// until three key exchanges have run (or a generous deadline).
			deadline := time.Now().Add(30 * time.Second)
			for i := 0; i < 5 || n.Load() < 3 && time.Now().Before(deadline); i++ {
				out, err := execOutput(c, "kex")
				if err != nil {
					t.Fatalf("session %d after re-keys: %v", i, err)
				}
				if out != "kex="+name {
					t.Fatalf("session %d: %q", i, out)
				}
			}
			if !bytes.Equal(c.SessionID(), id) {
				t.Fatal("session ID changed across re-keys")
			}
			if got := n.Load(); got < 3 {
				t.Fatalf("only %d key exchanges ran in 30 s; re-keying does not work", got)
			}
		})
	}
}

// TestKeyPool runs key exchanges with keys from a small pool and from a
// zero KeyPool, then with the pool closed, which must fail with an error.
func TestKeyPool(t *testing.T) {
	needNonFIPS(t)
	hk := hostKeys(t)[0]
	srv := startServer(t, hk.signer, nil)
	cfg := clientConfig(hk, []string{KeyExchangeSNTRUP761X25519})
	defer SetKeyPool(nil)
	for _, pool := range []*sntrup761.KeyPool{sntrup761.NewKeyPool(4), new(sntrup761.KeyPool)} {
		SetKeyPool(pool)
		for range 6 { // crosses a refill of the small pool
			got, err := runKex(t, srv.Addr().String(), cfg)
			if err != nil || got != KeyExchangeSNTRUP761X25519 {
				t.Fatalf("batch %d: %s, %v", pool.BatchSize(), got, err)
			}
		}
		pool.Close()
		got, err := runKex(t, srv.Addr().String(), cfg)
		if err == nil || !strings.Contains(err.Error(), "closed KeyPool") {
			t.Fatalf("key exchange with a closed pool: %s, %v", got, err)
		}
		t.Log("closed pool:", err)
	}
}

// TestConcurrentHandshakes runs 200 handshakes at once over all methods;
// run it with -race.
// raceEnabled is set by race_test.go.
var raceEnabled bool

func TestConcurrentHandshakes(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	} else if raceEnabled {
		n = 50 // each handshake costs ~10x under the race detector
	}
	hk := hostKeys(t)[0]
	// n handshakes at once on a loaded machine can take longer than the
	// default 30 s from accept to authentication: this test is not about
	// that limit.
	srv := startServerWith(t, hk.signer, nil, func(s *kexserver.Server) { s.LoginGraceTime = 5 * time.Minute })
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := postQuantum()[i%len(postQuantum())]
			got, err := runKex(t, srv.Addr().String(), clientConfig(hk, []string{name}))
			if err == nil && got != name {
				err = fmt.Errorf("negotiated %s, want %s", got, name)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// ---------------------------------------------------------------- mirrors

func TestMirrorsMatch(t *testing.T) {
	if err := checkXCrypto(ourMirrors); err != nil {
		t.Fatal(err)
	}
}

// Deliberately wrong mirrors: each must be refused with a message naming
// the difference.
type badResultOrder struct {
	K         []byte
	H         []byte
	HostKey   []byte
	Signature []byte
	Hash      uint
	SessionID []byte
}

type badResultMissing struct {
	H         []byte
	K         []byte
	HostKey   []byte
	Signature []byte
	Hash      uint
}

//lint:ignore U1000 only its shape is used, by reflection
type badMagics struct {
	clientVersion, serverVersion string
	clientKexInit, serverKexInit []byte
}

type badConn interface {
	writePacket(packet []byte) error
	readPacket() ([]byte, int, error)
	Close() error
}

func TestWrongMirrorsRefused(t *testing.T) {
	cases := []struct {
		name string
		m    mirrorTypes
		want string
	}{
		{"field order", withResult(reflect.TypeFor[badResultOrder]()), "field 0"},
		{"missing field", withResult(reflect.TypeFor[badResultMissing]()), "fields"},
		{"magics field type", mirrorTypes{kex: ourMirrors.kex, result: ourMirrors.result, magics: reflect.TypeFor[badMagics](), conn: ourMirrors.conn}, "field 0"},
		{"packetConn method", mirrorTypes{kex: ourMirrors.kex, result: ourMirrors.result, magics: ourMirrors.magics, conn: reflect.TypeFor[badConn]()}, "readPacket"},
		{"not an interface", mirrorTypes{kex: reflect.TypeFor[kexResult](), result: ourMirrors.result, magics: ourMirrors.magics, conn: ourMirrors.conn}, "not an interface"},
	}
	for _, tc := range cases {
		err := checkXCrypto(tc.m)
		if err == nil {
			t.Errorf("%s: wrong mirror accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not name the difference (%q)", tc.name, err, tc.want)
		}
	}
}

func withResult(r reflect.Type) mirrorTypes {
	m := ourMirrors
	m.result = r
	return m
}

// TestWrongMirrorLeavesXCryptoAlone runs, in a fresh process, a
// registration with a wrong mirror: it must fail, register nothing, and
// x/crypto's own key exchanges must keep working.
func TestWrongMirrorLeavesXCryptoAlone(t *testing.T) {
	out, err := runPeerProcess(t, "wrong-mirror")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "builtin handshakes ok") {
		t.Fatalf("unexpected peer output:\n%s", out)
	}
}

// ---------------------------------------------------------------- interop with x/crypto's built-in mlkem768x25519

func TestBuiltinMLKEMInterop(t *testing.T) {
	hk := hostKeys(t)[0]
	// pqkex client -> x/crypto built-in server (another process)
	t.Run("pqkex-client", func(t *testing.T) {
		cmd := peerCommand(t, "builtin-server")
		stdout := sshtest.Start(t, cmd)
		defer cmd.Process.Kill()
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			t.Fatal("peer server printed no address")
		}
		addr, keyText, _ := strings.Cut(sc.Text(), " ")
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(keyText))
		if err != nil {
			t.Fatal(err)
		}
		cfg := clientConfig(hostKey{check: ssh.FixedHostKey(pub), algos: []string{ssh.KeyAlgoED25519}}, []string{KeyExchangeMLKEM768X25519})
		got, err := runKex(t, addr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got != KeyExchangeMLKEM768X25519 {
			t.Fatal(got)
		}
	})
	// x/crypto built-in client (another process) -> pqkex server
	t.Run("pqkex-server", func(t *testing.T) {
		srv := startServer(t, hk.signer, []string{KeyExchangeMLKEM768X25519})
		out, err := runPeerProcess(t, "builtin-client", srv.Addr().String(), string(ssh.MarshalAuthorizedKey(hk.signer.PublicKey())))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(out, "kex="+KeyExchangeMLKEM768X25519) {
			t.Fatalf("peer client output: %s", out)
		}
	})
}

func peerCommand(t testing.TB, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = append(os.Environ(), peerEnv+"="+args[0])
	return cmd
}

func runPeerProcess(t testing.TB, args ...string) (string, error) {
	out, err := peerCommand(t, args...).CombinedOutput()
	return string(out), err
}

// runPeer is the body of a peer process; it never calls Register.
func runPeer(mode string, args []string) int {
	rest := args[len(args)-1:]
	switch mode {
	case "builtin-server":
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, _ := ssh.NewSignerFromKey(priv)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		s := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, []string{ssh.KeyExchangeMLKEM768X25519}))
		fmt.Printf("%s %s", l.Addr(), ssh.MarshalAuthorizedKey(signer.PublicKey()))
		s.Serve() // until the test kills the process
		return 0
	case "builtin-client":
		addr, key := args[len(args)-2], rest[0]
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(key))
		if err != nil {
			fmt.Println(err)
			return 1
		}
		cfg := clientConfig(hostKey{check: ssh.FixedHostKey(pub), algos: []string{pub.Type()}}, []string{ssh.KeyExchangeMLKEM768X25519})
		c, err := ssh.Dial("tcp", addr, cfg)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		defer c.Close()
		out, err := execOutput(c, "kex")
		fmt.Println(out)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		return 0
	case "register-cold":
		start := time.Now()
		if err := Register(); err != nil {
			fmt.Println("refused:", err)
			return 1
		}
		reg, _ := Registered()
		fmt.Println(time.Since(start).Nanoseconds(), reg.SelfTest.Nanoseconds())
		return 0
	case "wrong-mirror":
		m := ourMirrors
		m.result = reflect.TypeFor[badResultOrder]()
		err := registerWith(Options{}, m)
		if err == nil {
			fmt.Println("wrong mirror accepted")
			return 1
		}
		fmt.Println("refused:", err)
		for _, name := range []string{KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH} {
			if _, ok := kexAlgoMap[name]; ok {
				fmt.Println("registered", name, "despite the refusal")
				return 1
			}
		}
		if _, ok := kexAlgoMap[KeyExchangeMLKEM768X25519].(*hybridKEX); ok {
			fmt.Println("replaced mlkem768x25519 despite the refusal")
			return 1
		}
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, _ := ssh.NewSignerFromKey(priv)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		s := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, nil))
		go s.Serve()
		defer s.Close()
		for _, name := range []string{ssh.KeyExchangeMLKEM768X25519, classicalKex()} {
			cfg := clientConfig(hostKey{check: ssh.FixedHostKey(signer.PublicKey()), algos: []string{ssh.KeyAlgoED25519}}, []string{name})
			got, err := runKex(nil, l.Addr().String(), cfg)
			if err != nil || got != name {
				fmt.Println("builtin handshake failed:", name, got, err)
				return 1
			}
		}
		fmt.Println("builtin handshakes ok")
		return 0
	}
	fmt.Println("unknown peer mode", mode)
	return 2
}
