package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/sshkex"
)

// Server key exchange lists of real servers, as their KEXINIT sends them
// (scripts/install-peers.sh prints them: sshd -T for OpenSSH, a live
// probe for dropbear and tinysshd).
var (
	// Debian bookworm's OpenSSH 9.2p1 (deb12u10) default: Debian added the
	// plain sntrup761x25519-sha512 name, upstream 9.2 has only the
	// @openssh.com one.
	openSSH92Server = []string{"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
		"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
		"diffie-hellman-group-exchange-sha256", "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
		"ext-info-s", "kex-strict-s-v00@openssh.com"}
	openSSH100Server = []string{"mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
		"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
		"ext-info-s", "kex-strict-s-v00@openssh.com"}
	dropbearServer = []string{"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com", "mlkem768x25519-sha256",
		"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp521", "ecdh-sha2-nistp384", "ecdh-sha2-nistp256",
		"diffie-hellman-group14-sha256", "kexguess2@matt.ucc.asn.au", "kex-strict-s-v00@openssh.com"}
	tinysshdServer = []string{"curve25519-sha256", "curve25519-sha256@libssh.org", "sntrup761x25519-sha512@openssh.com", "kex-strict-s-v00@openssh.com"}
)

const (
	openSSH92Ident  = "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"
	openSSH100Ident = "SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1"
)

// testClients returns the stock clients with pqkex registered.
func testClients(t *testing.T) []clientProfile {
	t.Helper()
	if err := sshkex.Register(); err != nil {
		t.Fatal(err)
	}
	cs := stockClients()
	if len(cs) != 7 {
		t.Fatalf("%d clients", len(cs))
	}
	return cs
}

// TestXCryptoDefaults: the list captured at start is x/crypto's own
// (v0.52.0: defaultKexAlgos, with the @libssh.org alias SetDefaults adds), not the one Register installs.
func TestXCryptoDefaults(t *testing.T) {
	want := []string{"mlkem768x25519-sha256", "curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
		"diffie-hellman-group14-sha256", "diffie-hellman-group14-sha1"}
	if xcryptoVersion() == "v0.52.0" && !slices.Equal(xcryptoDefaults, want) {
		t.Errorf("x/crypto v0.52.0 defaults %q, want %q", xcryptoDefaults, want)
	}
	cs := testClients(t)
	if pq := cs[6].Kex; len(pq) == 0 || !isPQKex(pq[0]) || slices.Equal(pq, xcryptoDefaults) {
		t.Errorf("pqkex client list %q", pq)
	}
}

func TestNegotiateKex(t *testing.T) {
	for _, c := range []struct {
		client, server []string
		want           string
	}{
		{[]string{"a", "b"}, []string{"b", "a"}, "a"}, // the client's order decides
		{[]string{"a", "b"}, []string{"c", "b"}, "b"},
		{[]string{"a"}, []string{"b"}, ""},
		{[]string{"ext-info-c", "a"}, []string{"ext-info-c", "a"}, "a"},
		{[]string{"kex-strict-c-v00@openssh.com", "a"}, []string{"kex-strict-c-v00@openssh.com", "a"}, "a"},
		{nil, []string{"a"}, ""},
	} {
		if got := negotiateKex(c.client, c.server); got != c.want {
			t.Errorf("negotiateKex(%q, %q) = %q, want %q", c.client, c.server, got, c.want)
		}
	}
}

// outcomes returns what each client negotiates, by client index: the
// three OpenSSH ranges, PuTTY, libssh, x/crypto, x/crypto + pqkex.
func outcomes(v *pqVerdict) []string {
	var out []string
	for _, c := range v.Clients {
		out = append(out, c.Kex)
	}
	return out
}

func hasRec(v *pqVerdict, prefix string) bool {
	return slices.ContainsFunc(v.Recommendations, func(r string) bool { return strings.HasPrefix(r, prefix) })
}

// TestAssessPQ covers each verdict and recommendation branch with real
// servers' lists (and configurations of them).
func TestAssessPQ(t *testing.T) {
	const (
		mlkem  = "mlkem768x25519-sha256"
		sntrup = "sntrup761x25519-sha512"
		alias  = "sntrup761x25519-sha512@openssh.com"
		x25519 = "curve25519-sha256"
		p256   = "ecdh-sha2-nistp256"
		nist   = "mlkem768nistp256-sha256"
	)
	clients := testClients(t)
	for _, c := range []struct {
		name    string
		ident   string
		server  []string
		verdict string
		first   bool
		// what OpenSSH 9.0-9.8, 9.9, 10.x, PuTTY, libssh and x/crypto
		// without pqkex negotiate (pqkex's own list changes: only PQ is
		// checked).
		want    []string
		pqkexPQ bool
		recs    []string // prefixes of recommendations that must be there
		notRecs []string // and that must not
	}{
		{"openssh10 default", openSSH100Ident, openSSH100Server, verdictPQAll, true,
			[]string{alias, sntrup, mlkem, sntrup, mlkem, mlkem}, true,
			[]string{"keep mlkem768x25519-sha256, sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com:"},
			[]string{"add", "optionally", "clients that"}},
		{"openssh92 default", openSSH92Ident, openSSH92Server, verdictPQSome, true,
			[]string{alias, sntrup, sntrup, sntrup, sntrup, x25519}, true,
			[]string{"keep sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com:",
				"add mlkem768x25519-sha256: upgrade from OpenSSH 9.2 to >= 9.9",
				"clients that would negotiate a classical exchange: x/crypto/ssh"},
			[]string{"add sntrup", "optionally"}},
		{"dropbear default", "SSH-2.0-dropbear_2025.89", dropbearServer, verdictPQAll, true,
			[]string{alias, sntrup, mlkem, sntrup, mlkem, mlkem}, true,
			[]string{"keep sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com, mlkem768x25519-sha256:"},
			[]string{"add", "clients that"}},
		// The case ssh-audit gets wrong: the only hybrid must stay.
		{"tinysshd default", "SSH-2.0-tinyssh abcdef", tinysshdServer, verdictPQSome, false,
			[]string{alias, alias, alias, alias, alias, x25519}, true,
			[]string{"keep sntrup761x25519-sha512@openssh.com:",
				"add mlkem768x25519-sha256 (OpenSSH >= 9.9",
				"optionally list a hybrid first",
				"clients that would negotiate a classical exchange: x/crypto/ssh"},
			[]string{"add sntrup"}},
		{"openssh92 classical only", openSSH92Ident, []string{x25519, p256, "ext-info-s"}, verdictNone, false,
			[]string{x25519, x25519, x25519, x25519, x25519, x25519}, false,
			[]string{"add mlkem768x25519-sha256: upgrade from OpenSSH 9.2",
				"add sntrup761x25519-sha512@openssh.com to sshd_config's KexAlgorithms: OpenSSH 9.2 implements it"},
			[]string{"keep", "optionally", "clients that"}},
		{"openssh10 mlkem only", openSSH100Ident, []string{mlkem, x25519}, verdictPQSome, true,
			[]string{x25519, mlkem, mlkem, mlkem, mlkem, mlkem}, true,
			[]string{"keep mlkem768x25519-sha256:",
				"add sntrup761x25519-sha512@openssh.com to sshd_config's KexAlgorithms: OpenSSH 10.0 implements it",
				"clients that would negotiate a classical exchange: OpenSSH 9.0-9.8"},
			[]string{"add mlkem"}},
		{"openssh10 without mlkem", openSSH100Ident, []string{sntrup, alias, x25519}, verdictPQSome, true,
			[]string{alias, sntrup, sntrup, sntrup, sntrup, x25519}, true,
			[]string{"add mlkem768x25519-sha256 to sshd_config's KexAlgorithms: OpenSSH 10.0 implements it"},
			[]string{"add sntrup", "optionally"}},
		{"openssh10 hybrid last", openSSH100Ident, []string{x25519, p256, mlkem, sntrup, alias}, verdictPQAll, false,
			[]string{alias, sntrup, mlkem, sntrup, mlkem, mlkem}, true,
			[]string{"optionally list a hybrid first"},
			[]string{"add", "clients that"}},
		{"other server, nist hybrid only", "SSH-2.0-Example_1.0", []string{nist, p256}, verdictPQSome, true,
			[]string{p256, p256, p256, nist, nist, p256}, true,
			[]string{"keep mlkem768nistp256-sha256:", "add mlkem768x25519-sha256 (OpenSSH >= 9.9",
				"add sntrup761x25519-sha512@openssh.com if the server's software implements it"},
			nil},
		{"old tinyssh, pre-standard only", "SSH-2.0-tinyssh old", []string{x25519, "sntrup4591761x25519-sha512@tinyssh.org"}, verdictPreStandard, false,
			[]string{x25519, x25519, x25519, x25519, x25519, x25519}, false,
			[]string{"add mlkem768x25519-sha256 (OpenSSH >= 9.9", "sntrup4591761x25519-sha512@tinyssh.org: pre-standard"},
			[]string{"keep"}},
		// Upgrade advice for the other implementations whose release
		// the identification line gives.
		{"dropbear 2022.83 classical only", "SSH-2.0-dropbear_2022.83", []string{x25519, p256}, verdictNone, false,
			[]string{x25519, x25519, x25519, x25519, x25519, x25519}, false,
			[]string{"add mlkem768x25519-sha256: upgrade from dropbear 2022.83 to 2025.87 or later, which implements it",
				"add sntrup761x25519-sha512@openssh.com: upgrade from dropbear 2022.83 to 2025.87 or later"},
			[]string{"add mlkem768x25519-sha256 (OpenSSH"}},
		{"dropbear 2025.89 without ML-KEM", "SSH-2.0-dropbear_2025.89", []string{sntrup, alias, x25519}, verdictPQSome, true,
			[]string{alias, sntrup, sntrup, sntrup, sntrup, x25519}, true,
			[]string{"add mlkem768x25519-sha256: dropbear 2025.89 implements it (since 2025.87): this one was built without it: build it with DROPBEAR_MLKEM768"},
			[]string{"add sntrup"}},
		{"libssh 0.11 classical only", "SSH-2.0-libssh_0.11.3", []string{x25519}, verdictNone, false,
			[]string{x25519, x25519, x25519, x25519, x25519, x25519}, false,
			[]string{"add mlkem768x25519-sha256: upgrade from libssh 0.11.3 to 0.12.0 or later",
				"add sntrup761x25519-sha512@openssh.com: upgrade from libssh 0.11.3 to 0.12.0 or later"}, nil},
		{"libssh 0.12 without sntrup761", "SSH-2.0-libssh_0.12.2", []string{mlkem, x25519}, verdictPQSome, true,
			[]string{x25519, mlkem, mlkem, mlkem, mlkem, mlkem}, true,
			[]string{"add sntrup761x25519-sha512@openssh.com: libssh 0.12.2 implements it (since 0.12.0): add it to the server's key exchange list"},
			[]string{"add mlkem"}},
		{"PuTTY 0.81", "SSH-2.0-PuTTY_Release_0.81", []string{alias, x25519}, verdictPQSome, true,
			[]string{alias, alias, alias, alias, alias, x25519}, true,
			[]string{"add mlkem768x25519-sha256: upgrade from PuTTY 0.81 to 0.83 or later"}, []string{"add sntrup"}},
		{"no common kex", "SSH-2.0-Example_1.0", []string{"diffie-hellman-group1-sha1"}, verdictNone, false,
			[]string{"", "", "", "diffie-hellman-group1-sha1", "", ""}, false,
			[]string{"add mlkem768x25519-sha256 (OpenSSH >= 9.9"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := assessPQ(c.ident, c.server, clients)
			if v.Verdict != c.verdict || v.FirstIsPQ != c.first {
				t.Errorf("verdict %s, first %v; want %s, %v", v.Verdict, v.FirstIsPQ, c.verdict, c.first)
			}
			if got := outcomes(v)[:6]; !slices.Equal(got, c.want) {
				t.Errorf("negotiated %q, want %q", got, c.want)
			}
			if v.Clients[6].PQ != c.pqkexPQ {
				t.Errorf("pqkex client: %s (pq %v)", v.Clients[6].Kex, v.Clients[6].PQ)
			}
			for _, o := range v.Clients {
				if o.PQ != isPQKex(o.Kex) {
					t.Errorf("%s: %s, pq %v", o.Client, o.Kex, o.PQ)
				}
			}
			for _, r := range c.recs {
				if !hasRec(v, r) {
					t.Errorf("no recommendation %q in %q", r, v.Recommendations)
				}
			}
			for _, r := range c.notRecs {
				if hasRec(v, r) {
					t.Errorf("unexpected recommendation %q in %q", r, v.Recommendations)
				}
			}
		})
	}
}

// TestAssessPQNeverRemoves: for every subset of the standard hybrids on
// OpenSSH, other and unknown servers, no recommendation says to remove or
// disable anything, and every offered hybrid is in a "keep" line.
func TestAssessPQNeverRemoves(t *testing.T) {
	clients := testClients(t)
	for mask := range 1 << len(standardPQKex) {
		server := []string{"curve25519-sha256"}
		for i, k := range standardPQKex {
			if mask&(1<<i) != 0 {
				server = append(server, k)
			}
		}
		for _, ident := range []string{openSSH92Ident, openSSH100Ident, "SSH-2.0-OpenSSH_8.4", "SSH-2.0-tinyssh x", ""} {
			v := assessPQ(ident, server, clients)
			for _, r := range v.Recommendations {
				if l := strings.ToLower(r); strings.Contains(l, "remove ") && !strings.Contains(l, "removing a hybrid takes") || strings.Contains(l, "disable") {
					t.Errorf("%s %q: %q", ident, server, r)
				}
			}
			for _, k := range server[1:] {
				if !slices.ContainsFunc(v.Recommendations, func(r string) bool {
					keep, _, _ := strings.Cut(r, ":")
					return strings.HasPrefix(keep, "keep ") && slices.Contains(strings.Split(keep[len("keep "):], ", "), k)
				}) {
					t.Errorf("%s %q: %s not kept: %q", ident, server, k, v.Recommendations)
				}
			}
		}
	}
}

func TestOpenSSHServerVersion(t *testing.T) {
	for ident, want := range map[string][3]int{
		openSSH92Ident:                    {9, 2, 1},
		"SSH-2.0-OpenSSH_10.0":            {10, 0, 1},
		"SSH-2.0-OpenSSH_for_Windows_9.5": {0, 0, 0},
		"SSH-2.0-dropbear_2025.89":        {0, 0, 0},
		"SSH-2.0-OpenSSH_x.1":             {0, 0, 0},
	} {
		ma, mi, ok := openSSHServerVersion(ident)
		okInt := 0
		if ok {
			okInt = 1
		}
		if [3]int{ma, mi, okInt} != want {
			t.Errorf("%q: %d.%d %v, want %v", ident, ma, mi, ok, want)
		}
	}
}

func TestPrintPQVerdict(t *testing.T) {
	var b bytes.Buffer
	printPQVerdict(&b, assessPQ("SSH-2.0-tinyssh x", tinysshdServer, testClients(t)))
	for _, want := range []string{
		"post-quantum  pq-for-some-clients\n",
		"  hybrids offered: sntrup761x25519-sha512@openssh.com (a hybrid first: no)\n",
		"    OpenSSH 10.x                     PQ  sntrup761x25519-sha512@openssh.com\n",
		"    x/crypto/ssh " + xcryptoVersion() + strings.Repeat(" ", 32-len("x/crypto/ssh "+xcryptoVersion())) + "     curve25519-sha256\n",
		"    - keep sntrup761x25519-sha512@openssh.com: removing a hybrid takes post-quantum sessions away\n      from the clients that offer only it\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestScanVerdict: scan of a pqkex test server offering curve25519 and
// mlkem768x25519 carries the verdict in -json and in text.
func TestScanVerdict(t *testing.T) {
	addr, _ := startTestServer(t, []string{ssh.KeyExchangeCurve25519, sshkex.KeyExchangeMLKEM768X25519})
	res, out, errOut := scanJSON(t, addr)
	v := res.PQVerdict
	if !strings.HasPrefix(res.Tool, "pqkex ") || v == nil {
		t.Fatalf("tool %q, verdict %v:\n%s", res.Tool, v, out.String())
	}
	if v.Verdict != verdictPQSome || v.FirstIsPQ || !slices.Equal(v.Offered, []string{sshkex.KeyExchangeMLKEM768X25519}) || len(v.Clients) != 7 ||
		v.Clients[0].Kex != ssh.KeyExchangeCurve25519 || v.Clients[2].Kex != sshkex.KeyExchangeMLKEM768X25519 || v.Clients[4].Kex != sshkex.KeyExchangeMLKEM768X25519 {
		t.Errorf("verdict %+v", v)
	}
	for _, k := range []string{`"pq_verdict": {`, `"verdict": "pq-for-some-clients"`, `"pq_first": false`, `"recommendations": [`, `"source": "openssh-portable myproposal.h`} {
		if !strings.Contains(out.String(), k) {
			t.Errorf("-json has no %s:\n%s", k, out.String())
		}
	}
	out.Reset()
	if code := runScan([]string{addr}, out, errOut); code != 0 || !strings.Contains(out.String(), "\npost-quantum  pq-for-some-clients\n") ||
		!strings.Contains(out.String(), "    - keep mlkem768x25519-sha256: ") {
		t.Errorf("exit %d, text:\n%s", code, out.String())
	}
}

func TestWrapWords(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		want  []string
	}{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"a bb ccc", 8, []string{"a bb ccc"}},
		{"abcdefgh x", 4, []string{"abcdefgh", "x"}},
		{"", 4, []string{""}},
	} {
		if got := wrapWords(c.s, c.width); !slices.Equal(got, c.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.s, c.width, got, c.want)
		}
	}
}
