package interop

import (
	"crypto/ed25519"
	"encoding/binary"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
	"github.com/pqkex/pqkex/sshkex"
)

// caseTimeout bounds one handshake plus command, so that a hung peer
// fails its case instead of hanging CI.
const caseTimeout = 30 * time.Second

// The key exchanges under test.
const (
	mlkem        = sshkex.KeyExchangeMLKEM768X25519         // "mlkem768x25519-sha256"
	sntrup       = sshkex.KeyExchangeSNTRUP761X25519        // "sntrup761x25519-sha512"
	sntrupAlias  = sshkex.KeyExchangeSNTRUP761X25519OpenSSH // "sntrup761x25519-sha512@openssh.com"
	nistp256     = sshkex.KeyExchangeMLKEM768NISTP256       // "mlkem768nistp256-sha256"
	nistp384     = sshkex.KeyExchangeMLKEM1024NISTP384      // "mlkem1024nistp384-sha384"
	noCommonKex  = "no common algorithm for key exchange"   // x/crypto's negotiation error
	opensshNoKex = "no matching key exchange method found"  // OpenSSH's
)

// allKex are the X25519-based names, which every OpenSSH >= 10.0 has;
// allFive adds the NIST-curve hybrids (PuTTY >= 0.83 has all five,
// OpenSSH 10.5 and later mlkem768nistp256-sha256 but not
// mlkem1024nistp384-sha384).
var (
	allKex  = []string{mlkem, sntrup, sntrupAlias}
	allFive = []string{nistp256, nistp384, mlkem, sntrup, sntrupAlias}
)

func TestMain(m *testing.M) { peertest.Main(m, sshkex.Register, &pqkex) }

// ---------------------------------------------------------------- skipping

// needRoot skips (fails under CI=true) unless the test runs as root, which
// the peers need (peertest.NeedRoot).
func needRoot(t *testing.T) {
	t.Helper()
	peertest.NeedRoot(t)
}

// needPeer returns the installed peer file that the environment variable
// name names, or skips (fails under CI=true) (peertest.Need).
func needPeer(t *testing.T, name string) string {
	t.Helper()
	return peertest.Need(t, name)
}

// kexCases runs accepted as the subtest named kex for each of kexs, then
// refused as the subtest "refuses-"+kex for each of refuses: the cases of
// one peer.
func kexCases(t *testing.T, kexs, refuses []string, accepted, refused func(t *testing.T, kex string)) {
	for _, kex := range kexs {
		t.Run(kex, func(t *testing.T) { accepted(t, kex) })
	}
	for _, kex := range refuses {
		t.Run("refuses-"+kex, func(t *testing.T) { refused(t, kex) })
	}
}

// ---------------------------------------------------------------- keys

type key struct {
	priv   ed25519.PrivateKey
	signer ssh.Signer
}

func newKey(t *testing.T) key {
	t.Helper()
	priv, s := sshtest.Ed25519Key(t)
	return key{priv: priv, signer: s}
}

func (k key) pub() ssh.PublicKey { return k.signer.PublicKey() }

// openSSH returns the unencrypted OpenSSH-format private key.
func (k key) openSSH(t *testing.T) []byte {
	t.Helper()
	b, err := ssh.MarshalPrivateKey(k.priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(b)
}

// dropbear returns the private key in dropbear's format (scripts/README.md):
// string "ssh-ed25519" || string(seed || public key), 83 bytes.
func (k key) dropbear() []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(ssh.KeyAlgoED25519)))
	b = append(b, ssh.KeyAlgoED25519...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(k.priv)))
	return append(b, k.priv...)
}

// authorizedKey returns the authorized_keys / known_hosts form
// "ssh-ed25519 AAAA..." with a newline.
func (k key) authorizedKey() []byte { return ssh.MarshalAuthorizedKey(k.pub()) }

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ---------------------------------------------------------------- logs

// exactLine matches a line equal to want.
func exactLine(want string) func(string) bool {
	return func(l string) bool { return l == want }
}

// containsLine matches a line containing want.
func containsLine(want string) func(string) bool {
	return func(l string) bool { return strings.Contains(l, want) }
}

// ---------------------------------------------------------------- server peers

// peerServer is a running server peer (peertest.StartServer).
type peerServer struct {
	addr string // 127.0.0.1:PORT
	log  string // the server's debug log (sshd -E, or its stderr)
}

// startPeerServer starts the server peer kind (openssh10, openssh92,
// openssh106, dropbear, tinysshd) on 127.0.0.1 with hostKey and the single
// authorized client key and further peer-server.sh options args, waits
// until it listens, and kills it when the test ends.
func startPeerServer(t *testing.T, kind string, hostKey key, client ssh.PublicKey, args ...string) *peerServer {
	t.Helper()
	dir := t.TempDir()
	hk := writeFile(t, filepath.Join(dir, "hostkey"), hostKey.openSSH(t))
	ak := writeFile(t, filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(client))
	s := peertest.StartServer(t, kind, hk, ak, args...)
	return &peerServer{addr: s.Addr, log: s.Log}
}

// dialPeer logs in to addr as root with client's key, offering only kex and
// accepting only hostKey. The connection's deadline is caseTimeout.
func dialPeer(addr, kex string, hostKey ssh.PublicKey, client ssh.Signer) (*ssh.Client, error) {
	cfg := &ssh.ClientConfig{
		User:              "root",
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(client)},
		HostKeyCallback:   ssh.FixedHostKey(hostKey),
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
	}
	cfg.KeyExchanges = []string{kex}
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(caseTimeout))
	c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// ---------------------------------------------------------------- Go server

// goServer is a kexserver on 127.0.0.1:0 that records its log lines.
type goServer struct {
	srv  *kexserver.Server
	port int
	mu   sync.Mutex
	logs []string
}

func startGoServer(t *testing.T, hostKey key, kexs []string) *goServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &goServer{srv: kexserver.New(l, kexserver.Config([]ssh.Signer{hostKey.signer}, kexs))}
	g.port = l.Addr().(*net.TCPAddr).Port
	g.srv.Log = func(s string) {
		g.mu.Lock()
		g.logs = append(g.logs, s)
		g.mu.Unlock()
	}
	served := make(chan struct{})
	go func() { g.srv.Serve(); close(served) }()
	t.Cleanup(func() { g.srv.Close(); <-served })
	return g
}

// waitLog waits up to peertest.LogTimeout for a log line containing all
// of want.
func (g *goServer) waitLog(want ...string) (string, error) {
	return peertest.WaitLine("the Go server's log", func() (string, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return strings.Join(g.logs, "\n"), nil
	}, peertest.ContainsAll(want...))
}
