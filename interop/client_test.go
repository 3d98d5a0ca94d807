package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
)

// clientPeer is a real SSH client that logs in to a Go kexserver (pqkex's
// key exchanges) restricted to exactly one kex.
type clientPeer struct {
	name    string   // subtest name
	bin     string   // PQKEX_* variable of the client binary
	vars    []string // further PQKEX_* variables it needs
	version string   // prefix of the client version string the Go server logs
	kexs    []string // must negotiate each of these
	// refuses: with the Go server offering only this kex, the client (with
	// its default list) must fail to negotiate.
	refuses []string
	// run runs the client against 127.0.0.1:port with the command "kex".
	// kex is the name to force on the client, or "" for its defaults.
	run func(ctx context.Context, t *testing.T, bin string, port int, hostKey, clientKey key, kex string) *exec.Cmd
	// proof returns the matcher for the client's own debug line naming the
	// negotiated kex, or nil if the client has no debug output (dbclient).
	proof func(kex string) func(string) bool
}

// opensshClient runs OpenSSH's ssh with -vvv, strict host key checking
// against hostKey, and (if kex != "") KexAlgorithms=kex.
func opensshClient(ctx context.Context, t *testing.T, bin string, port int, hostKey, clientKey key, kex string) *exec.Cmd {
	dir := t.TempDir()
	id := writeFile(t, filepath.Join(dir, "id_ed25519"), clientKey.openSSH(t))
	kh := writeFile(t, filepath.Join(dir, "known_hosts"),
		append([]byte(fmt.Sprintf("[127.0.0.1]:%d ", port)), hostKey.authorizedKey()...))
	args := peertest.OpenSSH{Verbose: "-vvv", KnownHosts: kh, Identity: id, Kex: kex, User: "root", Port: port}.Args("kex")
	return exec.CommandContext(ctx, bin, args...)
}

// opensshProof matches ssh -v's "debug1: kex: algorithm: NAME".
func opensshProof(kex string) func(string) bool {
	return exactLine("debug1: kex: algorithm: " + kex)
}

// dbclient runs dropbear's client (in the trixie chroot, through its
// wrapper) with a dropbear-format key. dbclient cannot choose a kex (it
// always proposes sntrup761x25519-sha512, its @openssh.com alias, then
// mlkem768x25519-sha256, ...): the Go server's single kex decides. It has no
// known_hosts option either, so -y -y skips the host key check (it prints
// "dbclient: Caution, skipping hostkey check for 127.0.0.1").
func dbclient(ctx context.Context, t *testing.T, bin string, port int, hostKey, clientKey key, kex string) *exec.Cmd {
	dir := t.TempDir()
	id := writeFile(t, filepath.Join(dir, "id_ed25519.dropbear"), clientKey.dropbear())
	cmd := exec.CommandContext(ctx, bin, "-y", "-y", "-i", id, "-l", "root",
		fmt.Sprintf("127.0.0.1/%d", port), "kex")
	// The wrapper binds /tmp and $TMPDIR into the chroot; bind our dir
	// explicitly too, wherever it is.
	bind := dir
	if old := os.Getenv("PQKEX_TRIXIE_BIND"); old != "" {
		bind += ":" + old
	}
	cmd.Env = append(os.Environ(), "PQKEX_TRIXIE_BIND="+bind)
	return cmd
}

// plink runs PuTTY's plink (in the forky chroot, through its wrapper) with
// -v, -batch (never prompt) and the host key pinned by its SHA-256
// fingerprint; the client key is converted to PuTTY's .ppk by puttygen.
// plink has no command-line option for its kex list (its default offers
// all five post-quantum names first): the Go server's single kex decides.
func plink(ctx context.Context, t *testing.T, bin string, port int, hostKey, clientKey key, kex string) *exec.Cmd {
	ppk := puttyKey(t, clientKey)
	cmd := exec.CommandContext(ctx, bin, "-ssh", "-batch", "-v", "-P", strconv.Itoa(port), "-l", "root",
		"-i", ppk, "-hostkey", ssh.FingerprintSHA256(hostKey.pub()), "127.0.0.1", "kex")
	cmd.Env = append(os.Environ(), "PQKEX_FORKY_BIND="+filepath.Dir(ppk)+":"+os.Getenv("PQKEX_FORKY_BIND"))
	return cmd
}

// puttyKeys are the client keys converted to .ppk so far, by fingerprint
// (TestConformance runs plink once per case with one key).
var puttyKeys sync.Map

// puttyKey returns clientKey as a .ppk file, converted by puttygen once
// per key, in a directory that lives as long as t.
func puttyKey(t *testing.T, clientKey key) string {
	fp := ssh.FingerprintSHA256(clientKey.pub())
	if p, ok := puttyKeys.Load(fp); ok {
		if _, err := os.Stat(p.(string)); err == nil {
			return p.(string)
		}
	}
	dir := t.TempDir()
	id := writeFile(t, filepath.Join(dir, "id_ed25519"), clientKey.openSSH(t))
	ppk := filepath.Join(dir, "id_ed25519.ppk")
	gen := exec.Command(needPeer(t, "PQKEX_PUTTYGEN"), id, "-O", "private", "-o", ppk)
	gen.Env = append(os.Environ(), "PQKEX_FORKY_BIND="+dir+":"+os.Getenv("PQKEX_FORKY_BIND"))
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("puttygen: %v\n%s", err, out)
	}
	puttyKeys.Store(fp, ppk)
	return ppk
}

// plinkKex is how plink -v names each kex: "Doing DESC key exchange, using
// hash HASH" (followed by " (SHA-NI accelerated)" or " (unaccelerated)").
// Both sntrup761 names print the same line; the Go server's answer tells
// them apart.
var plinkKex = map[string]string{
	nistp256:    "ML-KEM-768 / NIST P256 hybrid key exchange, using hash SHA-256",
	nistp384:    "ML-KEM-1024 / NIST P384 hybrid key exchange, using hash SHA-384",
	mlkem:       "ML-KEM-768 / Curve25519 hybrid key exchange, using hash SHA-256",
	sntrup:      "NTRU Prime / Curve25519 hybrid key exchange, using hash SHA-512",
	sntrupAlias: "NTRU Prime / Curve25519 hybrid key exchange, using hash SHA-512",
}

func plinkProof(kex string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, "Doing "+plinkKex[kex]+" (") }
}

var clientPeers = []clientPeer{
	{
		name:    "openssh10",
		bin:     "PQKEX_OPENSSH10_SSH",
		version: "SSH-2.0-OpenSSH_10.0",
		kexs:    allKex,
		run:     opensshClient,
		proof:   opensshProof,
	},
	{
		// OpenSSH 10.6 (Debian forky chroot): mlkem768nistp256-sha256 is
		// not in its default list, so every case forces the kex; it has
		// no mlkem1024nistp384-sha384.
		name:    "openssh106",
		bin:     "PQKEX_OPENSSH106_SSH",
		version: "SSH-2.0-OpenSSH_10.6",
		kexs:    []string{nistp256, mlkem, sntrup, sntrupAlias},
		refuses: []string{nistp384},
		run:     opensshClient,
		proof:   opensshProof,
	},
	{
		// PuTTY 0.85 plink (client only), all five names.
		name:    "plink",
		bin:     "PQKEX_PLINK",
		vars:    []string{"PQKEX_PUTTYGEN"},
		version: "SSH-2.0-PuTTY_Release_0.85",
		kexs:    allFive,
		run:     plink,
		proof:   plinkProof,
	},
	{
		name:    "openssh92",
		bin:     "PQKEX_OPENSSH92_SSH",
		version: "SSH-2.0-OpenSSH_9.2",
		kexs:    []string{sntrupAlias, sntrup},
		refuses: []string{mlkem},
		run:     opensshClient,
		proof:   opensshProof,
	},
	{
		// dbclient prints no kex: the Go server, offering only one, proves
		// it (its answer "kex=NAME" and its log line).
		name:    "dbclient",
		bin:     "PQKEX_DBCLIENT",
		version: "SSH-2.0-dropbear_2025.89",
		kexs:    allKex,
		run:     dbclient,
	},
}

// TestPeerClient: each real client against the Go server offering exactly
// one post-quantum kex, running the command "kex", which the Go server
// answers with "kex=<negotiated kex>".
func TestPeerClient(t *testing.T) {
	for _, p := range clientPeers {
		t.Run(p.name, func(t *testing.T) {
			kexCases(t, p.kexs, p.refuses,
				func(t *testing.T, kex string) { testClientKex(t, p, needClient(t, p), kex) },
				func(t *testing.T, kex string) { testClientRefuses(t, p, needClient(t, p), kex) })
		})
	}
}

func needClient(t *testing.T, p clientPeer) string {
	t.Helper()
	needRoot(t)
	bin := needPeer(t, p.bin)
	for _, v := range p.vars {
		needPeer(t, v)
	}
	return bin
}

// runClient runs the client with a caseTimeout deadline.
func runClient(t *testing.T, p clientPeer, bin string, port int, hostKey, clientKey key, kex string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := p.run(ctx, t, bin, port, hostKey, clientKey, kex)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %v: %w", p.name, caseTimeout, errors.Join(err, ctx.Err()))
	}
	return o.Bytes(), e.Bytes(), err
}

func testClientKex(t *testing.T, p clientPeer, bin, kex string) {
	hostKey, clientKey := newKey(t), newKey(t)
	srv := startGoServer(t, hostKey, []string{kex})

	force := kex
	if p.proof == nil {
		force = "" // dbclient cannot choose
	}
	stdout, stderr, err := runClient(t, p, bin, srv.port, hostKey, clientKey, force)
	if err != nil {
		t.Fatalf("%s against the Go server offering only %s: %v\nstdout:\n%s\nstderr:\n%s", p.name, kex, err, stdout, peertest.Tail(string(stderr)))
	}

	// The Go server's view, through the session: "kex=NAME".
	if got := strings.TrimSpace(string(stdout)); got != "kex="+kex {
		t.Errorf("the command printed %q, want %q\nstderr:\n%s", stdout, "kex="+kex, peertest.Tail(string(stderr)))
	}
	// The Go server's log names the peer and the kex.
	logLine, lerr := srv.waitLog(`client "`+p.version, " kex="+kex+" ")
	if lerr != nil {
		t.Error(lerr)
	}
	// The peer's own debug output.
	if p.proof != nil {
		line, ok := peertest.FindLine(string(stderr), p.proof(kex))
		if !ok {
			t.Fatalf("%s's stderr does not show kex %s:\n%s", p.name, kex, peertest.Tail(string(stderr)))
		}
		t.Logf("%s negotiated %s; Go server: %q; peer stderr: %q", p.name, kex, logLine, line)
	} else {
		t.Logf("%s negotiated %s; Go server: %q; stdout %q (the peer prints no kex)", p.name, kex, logLine, strings.TrimSpace(string(stdout)))
	}
}

func testClientRefuses(t *testing.T, p clientPeer, bin, kex string) {
	hostKey, clientKey := newKey(t), newKey(t)
	srv := startGoServer(t, hostKey, []string{kex})

	stdout, stderr, err := runClient(t, p, bin, srv.port, hostKey, clientKey, "")
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("%s with its default kex list against the Go server offering only %s: want a failed login, got %v\nstdout:\n%s\nstderr:\n%s",
			p.name, kex, err, stdout, peertest.Tail(string(stderr)))
	}
	// OpenSSH: "Unable to negotiate with 127.0.0.1 port P: no matching key
	// exchange method found. Their offer: NAME,kex-strict-s-v00@openssh.com"
	line, ok := peertest.FindLine(string(stderr), func(l string) bool {
		return strings.Contains(l, opensshNoKex+". Their offer: "+kex+",")
	})
	if !ok {
		t.Fatalf("%s's stderr does not show it refusing %s:\n%s", p.name, kex, peertest.Tail(string(stderr)))
	}
	logLine, lerr := srv.waitLog("handshake failed", noCommonKex)
	if lerr != nil {
		t.Error(lerr)
	}
	t.Logf("%s refused %s; peer stderr: %q; Go server: %q", p.name, kex, line, logLine)
}
