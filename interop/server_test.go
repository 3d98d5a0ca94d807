package interop

import (
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
)

// serverPeer is a real SSH server that the x/crypto client (with pqkex's key
// exchanges) logs in to.
type serverPeer struct {
	kind    string   // scripts/peer-server.sh KIND; also the subtest name
	vars    []string // PQKEX_* variables the peer needs
	version string   // prefix of the server's version string
	kexs    []string // must negotiate each of these
	refuses []string // must refuse each of these
	args    []string // further peer-server.sh start options
	// proof returns the matcher for the peer's own log line that names the
	// negotiated kex, or nil if the peer logs no kex (dropbear).
	proof func(kex string) func(string) bool
	// refusal returns the matcher for the peer's log line showing that it
	// saw our offer of kex and found no match.
	refusal func(kex string) func(string) bool
	// login, if set, matches the log line of a successful login; used where
	// there is no kex proof, to show that the peer itself served us.
	login func(string) bool
}

// sshdProof matches sshd's -E log at LogLevel DEBUG:
// "debug1: kex: algorithm: NAME [preauth]".
func sshdProof(kex string) func(string) bool {
	return exactLine("debug1: kex: algorithm: " + kex + " [preauth]")
}

// sshdRefusal matches "Unable to negotiate with 127.0.0.1 port P: no matching
// key exchange method found. Their offer: NAME,ext-info-c,... [preauth]".
func sshdRefusal(kex string) func(string) bool {
	return func(l string) bool {
		return strings.HasPrefix(l, "Unable to negotiate with 127.0.0.1 ") &&
			strings.Contains(l, ": "+opensshNoKex+". Their offer: "+kex+",")
	}
}

// tinysshdProof matches tinysshd -vv's stderr:
// "tinysshd: ID: debug: kex: kex selected: NAME {sshcrypto_kex.c:139}".
// The " {" after the name keeps the plain sntrup name from matching the
// @openssh.com one.
func tinysshdProof(kex string) func(string) bool {
	return containsLine(": debug: kex: kex selected: " + kex + " {")
}

// tinysshdRefusal matches "tinysshd: ID: debug: kex: kex not available
// NAME,ext-info-c,kex-strict-c-v00@openssh.com {sshcrypto_kex.c:145}".
func tinysshdRefusal(kex string) func(string) bool {
	return containsLine(": debug: kex: kex not available " + kex + ",")
}

var serverPeers = []serverPeer{
	{
		kind:    "openssh10",
		vars:    []string{"PQKEX_OPENSSH10_SSHD"},
		version: "SSH-2.0-OpenSSH_10.0",
		kexs:    allKex,
		proof:   sshdProof,
	},
	{
		// OpenSSH 10.6 (Debian forky) has mlkem768nistp256-sha256 but not in
		// its default KexAlgorithms, so the server is configured with it and
		// the three X25519 names; it has no mlkem1024nistp384-sha384.
		kind:    "openssh106",
		vars:    []string{"PQKEX_OPENSSH106_SSHD"},
		version: "SSH-2.0-OpenSSH_10.6",
		kexs:    []string{nistp256, mlkem, sntrup, sntrupAlias},
		refuses: []string{nistp384},
		args:    []string{"--kex", strings.Join([]string{nistp256, mlkem, sntrup, sntrupAlias}, ",")},
		proof:   sshdProof,
		refusal: sshdRefusal,
	},
	{
		// Debian's 9.2 also knows the plain sntrup name (deb12u4 and later);
		// the @openssh.com alias is what upstream 9.x has.
		kind:    "openssh92",
		vars:    []string{"PQKEX_OPENSSH92_SSHD"},
		version: "SSH-2.0-OpenSSH_9.2",
		kexs:    []string{sntrupAlias, sntrup},
		refuses: []string{mlkem},
		proof:   sshdProof,
		refusal: sshdRefusal,
	},
	{
		// dropbear 2025.89 has no debug output and never logs the kex
		// (scripts/README.md, "Proof lines"). The proof is on our side: the
		// client offers exactly one kex, so a completed handshake can only
		// have used it, and x/crypto reports it as negotiated. The log line
		// of the public-key login shows that dropbear itself served us.
		kind:    "dropbear",
		vars:    []string{"PQKEX_DROPBEAR", "PQKEX_DROPBEARCONVERT"},
		version: "SSH-2.0-dropbear_2025.89",
		kexs:    allKex,
		login:   containsLine("Pubkey auth succeeded for 'root' with ssh-ed25519 key"),
	},
	{
		// tinysshd's version string is "SSH-2.0-tinyssh <random id>".
		kind:    "tinysshd",
		vars:    []string{"PQKEX_TINYSSHD", "PQKEX_TCPSERVER"},
		version: "SSH-2.0-tinyssh ",
		kexs:    []string{sntrupAlias},
		refuses: []string{mlkem, sntrup},
		proof:   tinysshdProof,
		refusal: tinysshdRefusal,
	},
}

// TestPeerServer: each real server peer, with the x/crypto client offering
// exactly one post-quantum kex, public-key auth and a strict host key check.
func TestPeerServer(t *testing.T) {
	for _, p := range serverPeers {
		t.Run(p.kind, func(t *testing.T) {
			kexCases(t, p.kexs, p.refuses,
				func(t *testing.T, kex string) { needServer(t, p); testServerKex(t, p, kex) },
				func(t *testing.T, kex string) { needServer(t, p); testServerRefuses(t, p, kex) })
		})
	}
}

// needServer skips (fails under CI=true) unless p is installed.
func needServer(t *testing.T, p serverPeer) {
	t.Helper()
	needRoot(t)
	for _, v := range p.vars {
		needPeer(t, v)
	}
}

func testServerKex(t *testing.T, p serverPeer, kex string) {
	hostKey, clientKey := newKey(t), newKey(t)
	srv := startPeerServer(t, p.kind, hostKey, clientKey.pub(), p.args...)

	c, err := dialPeer(srv.addr, kex, hostKey.pub(), clientKey.signer)
	if err != nil {
		t.Fatalf("%s at %s, offering only %s: %v\nserver log:\n%s", p.kind, srv.addr, kex, err, peertest.ReadTail(srv.log))
	}
	defer c.Close()
	if v := string(c.ServerVersion()); !strings.HasPrefix(v, p.version) {
		t.Errorf("server version %q, want prefix %q", v, p.version)
	}

	// Our side: x/crypto's negotiated algorithms.
	a, ok := kexserver.Negotiated(c.Conn)
	if !ok {
		t.Fatal("x/crypto does not report the negotiated algorithms")
	}
	if a.KeyExchange != kex {
		t.Errorf("x/crypto negotiated %q, want %q", a.KeyExchange, kex)
	}

	// A command through a session.
	sess, err := c.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer sess.Close()
	out, err := sess.Output("echo pqkex-ok")
	if err != nil {
		t.Fatalf("echo pqkex-ok: %v (stdout %q)\nserver log:\n%s", err, out, peertest.ReadTail(srv.log))
	}
	if got := strings.TrimSpace(string(out)); got != "pqkex-ok" {
		t.Errorf("echo pqkex-ok printed %q", out)
	}

	// The peer's side: its own debug output.
	if p.proof != nil {
		line, err := peertest.WaitLogLine(srv.log, p.proof(kex))
		if err != nil {
			t.Fatalf("%s's log does not show kex %s: %v", p.kind, kex, err)
		}
		t.Logf("%s (%s) negotiated %s; client: %s; peer log: %q", p.kind, c.ServerVersion(), kex, a.KeyExchange, line)
	}
	if p.login != nil {
		line, err := peertest.WaitLogLine(srv.log, p.login)
		if err != nil {
			t.Fatalf("%s's log does not show our login: %v", p.kind, err)
		}
		t.Logf("%s (%s) negotiated %s; client: %s (no kex in the peer's log); peer log: %q", p.kind, c.ServerVersion(), kex, a.KeyExchange, line)
	}
}

func testServerRefuses(t *testing.T, p serverPeer, kex string) {
	hostKey, clientKey := newKey(t), newKey(t)
	srv := startPeerServer(t, p.kind, hostKey, clientKey.pub(), p.args...)

	c, err := dialPeer(srv.addr, kex, hostKey.pub(), clientKey.signer)
	if err == nil {
		c.Close()
		t.Fatalf("%s accepted %s", p.kind, kex)
	}
	if !strings.Contains(err.Error(), noCommonKex) {
		t.Fatalf("handshake offering only %s failed, but not for lack of a common kex: %v", kex, err)
	}
	line, lerr := peertest.WaitLogLine(srv.log, p.refusal(kex))
	if lerr != nil {
		t.Fatalf("%s's log does not show it refusing %s: %v", p.kind, kex, lerr)
	}
	t.Logf("%s refused %s; client: %v; peer log: %q", p.kind, kex, err, line)
}
