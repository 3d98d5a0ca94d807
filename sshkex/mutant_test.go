package sshkex

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// The tests in this file build small programs against copies of x/crypto,
// taken from the module cache at go.mod's version, some of them changed in
// the ways x/crypto's internals could plausibly change, and require that
// Register refuses each change with an error (and x/crypto keeps working)
// instead of crashing or registering. The copies are used through a
// replace directive (as a fork or a vendored copy would be) or served as
// versions newer than any real release from a file-based module proxy (as
// the next release would be). None is a verified release, so every one of
// them goes through the structural checks and the self-test. They take a
// few minutes, so they are a long run (PQKEX_LONG=1, tier.Long), which
// .ci/run runs in a step of its own; elsewhere they are skipped with a
// message saying so.

// edit is a textual change of one file of x/crypto/ssh: every match of old
// (a regular expression) is replaced by new; a change that matches nothing
// fails the test, so the mutants cannot silently stop mutating.
type edit struct {
	file     string
	old, new string
}

type mutant struct {
	name  string
	edits []edit
	extra string // Go source added to package ssh as zz_mutant.go
	// readersGet, if set, is a method added to every type of package ssh
	// that has a readPacket method (the packetConn implementations, which
	// differ between releases).
	readersGet string
	// want is a substring of the refusal users see; also, more of them
	// (for a change the self-test sees in both directions).
	want string
	also []string
	// registerOnly: x/crypto's own key exchanges break too, so the probe
	// only registers, and the test requires the refusal and a clean exit
	// but no handshake afterwards.
	registerOnly bool
}

// keyLetters are the letters (RFC 4253 §7.2) each direction's IV, cipher
// key and MAC key are derived with.
var keyLetters = map[string]string{"client": "ACE", "server": "BDF"}

// swappedKeyLetters returns, for each direction and each of its three
// keys, the mutant that derives that key with the other direction's
// letter, and the refusal that names the direction and the key that no
// longer works.
func swappedKeyLetters() []mutant {
	var ms []mutant
	for _, d := range []struct{ dir, other string }{{"server", "client"}, {"client", "server"}} {
		own, other := keyLetters[d.dir], keyLetters[d.other]
		re := fmt.Sprintf(`%sKeys = direction\{\[\]byte\{'%c'\}, \[\]byte\{'%c'\}, \[\]byte\{'%c'\}\}`, d.dir, own[0], own[1], own[2])
		for i, key := range []string{"IV", "cipher key", "MAC key"} {
			l := []byte(own)
			l[i] = other[i]
			want := fmt.Sprintf("the %s's first encrypted packet does not decrypt with IV '%c' and key '%c'", d.dir, own[0], own[1])
			if key == "MAC key" {
				want = fmt.Sprintf("the MAC of the %s's first encrypted packet does not verify with key '%c'", d.dir, own[2])
			}
			ms = append(ms, mutant{
				name:  fmt.Sprintf("the %s's %s is derived with the %s's letter %c", d.dir, key, d.other, other[i]),
				edits: []edit{{"transport.go", re, fmt.Sprintf("%sKeys = direction{[]byte{'%c'}, []byte{'%c'}, []byte{'%c'}}", d.dir, l[0], l[1], l[2])}},
				want:  want,
			})
		}
	}
	return ms
}

// The three lines of the review (issue 29): every key of the server's
// direction, told apart by its cipher key's letter 'D', is derived from an
// empty kexResult (no K, H or session identifier), that is from public
// data, while the client's direction stays right.
var serverKeysFromPublicData = edit{"transport.go",
	`(func newPacketCipher\(d direction, algs DirectionAlgorithms, kex \*kexResult\) \(packetCipher, error\) \{\n)`,
	"${1}\tif d.keyTag[0] == 'D' {\n\t\tkex = &kexResult{Hash: kex.Hash}\n\t}\n"}

// Strict key exchange (OpenSSH's PROTOCOL, kex-strict): x/crypto's client
// and server stop offering it, or reset the sequence numbers after
// SSH_MSG_NEWKEYS even without it, or keep them although it was agreed.
var (
	noStrictKex = []edit{
		{"handshake.go", `\t\t\tmsg\.KexAlgos = append\(msg\.KexAlgos, kexStrictServer\)\n`, ""},
		{"handshake.go", `\t\t\tmsg\.KexAlgos = append\(msg\.KexAlgos, kexStrictClient\)\n`, ""},
	}
	alwaysResetSeq = edit{"transport.go", `if strictMode \{(\n\s*s\.seqNum = 0\n)`, "if true {${1}"}
	neverResetSeq  = edit{"transport.go", `if strictMode \{\n\s*s\.seqNum = 0\n\s*\}`, "_ = strictMode"}
)

// implementedByAll returns methods for every built-in key exchange type.
func implementedByAll(method string) string {
	var b strings.Builder
	b.WriteString("package ssh\n\nimport \"crypto\"\n\nvar _ crypto.Hash\n\n")
	for _, typ := range []string{"dhGroup", "ecdh", "curve25519sha256", "dhGEXSHA", "mlkem768WithCurve25519sha256"} {
		fmt.Fprintf(&b, "func (*%s) %s\n\n", typ, method)
	}
	return b.String()
}

const kexIfaceClient = `(\tClient\(p packetConn, rand io\.Reader, magics \*handshakeMagics\) \(\*kexResult, error\)\n)`

var mutants = slices.Concat([]mutant{
	{
		name:  "kexAlgorithm gains an exported method (Hash)",
		edits: []edit{{"kex.go", kexIfaceClient, "${1}\tHash() crypto.Hash\n"}},
		extra: implementedByAll("Hash() crypto.Hash { return 0 }"),
		want:  "has 3 methods, the mirror 2",
	},
	{
		name:  "kexAlgorithm gains an unexported method (name)",
		edits: []edit{{"kex.go", kexIfaceClient, "${1}\tname() string\n"}},
		extra: implementedByAll(`name() string { return "" }`),
		want:  "has 3 methods, the mirror 2",
	},
	{
		name:  "kexAlgorithm gains an exported method that sorts first (Algorithm)",
		edits: []edit{{"kex.go", kexIfaceClient, "${1}\tAlgorithm() string\n"}},
		extra: implementedByAll(`Algorithm() string { return "" }`),
		want:  "has 3 methods, the mirror 2",
	},
	{
		name: "Client signature changes (a variadic parameter)",
		edits: []edit{
			{"kex.go", `(\tClient\(p packetConn, rand io\.Reader, magics \*handshakeMagics)\)`, "${1}, opts ...int)"},
			{"kex.go", `(\) Client\(c packetConn, \w+ io\.Reader, magics \*handshakeMagics)\)`, "${1}, _ ...int)"},
			{"mlkem.go", `(\) Client\(c packetConn, \w+ io\.Reader, magics \*handshakeMagics)\)`, "${1}, _ ...int)"},
		},
		want: "method Client: signature",
	},
	{
		name: "kexAlgoMap becomes map[string]*kexEntry",
		edits: []edit{
			{"kex.go", `var kexAlgoMap = map\[string\]kexAlgorithm\{\}`, "var kexAlgoMap = map[string]*kexEntry{}\n\ntype kexEntry struct{ kexAlgorithm }\n\nvar kexAlgoInit = map[string]any{}"},
			{"kex.go", `kexAlgoMap\[`, "kexAlgoInit["},
		},
		extra: "package ssh\n\nfunc init() {\n\tfor k, v := range kexAlgoInit {\n\t\tkexAlgoMap[k] = &kexEntry{v.(kexAlgorithm)}\n\t}\n}\n",
		want:  "has 0 types map[string]ssh.kexAlgorithm",
	},
	{
		name:  "kexResult gains a field",
		edits: []edit{{"kex.go", `(\tSessionID \[\]byte\n)`, "${1}\tStrict bool\n"}},
		want:  "has 7 fields, the mirror 6",
	},
	{
		name:  "kexResult fields are reordered (H after SessionID)",
		edits: []edit{{"kex.go", `\tH \[\]byte\n`, ""}, {"kex.go", `(\tSessionID \[\]byte\n)`, "${1}\tH []byte\n"}},
		want:  "field 0 is K",
	},
	{
		name:  "handshakeMagics gains a field",
		edits: []edit{{"kex.go", `(\tclientKexInit, serverKexInit \[\]byte\n)`, "${1}\tstrict bool\n"}},
		want:  "has 5 fields, the mirror 4",
	},
	{
		name:  "handshakeMagics fields are reordered",
		edits: []edit{{"kex.go", `\tclientVersion, serverVersion \[\]byte\n\tclientKexInit, serverKexInit \[\]byte\n`, "\tclientKexInit, serverKexInit []byte\n\tclientVersion, serverVersion []byte\n"}},
		want:  "field 0 is clientKexInit",
	},
	{
		name:       "packetConn gains a method",
		edits:      []edit{{"transport.go", `(\tClose\(\) error\n\}\n)`, "\tflush() error\n${1}"}},
		readersGet: "flush() error { return nil }",
		want:       "packetConn has 4 methods, the mirror 3",
	},
	{
		name: "supportedKexAlgos changes type",
		edits: []edit{
			{"common.go", `supportedKexAlgos`, "supportedKexNames"},
		},
		extra: "package ssh\n\ntype kexInfo struct {\n\tname     string\n\tinsecure bool\n}\n\nvar supportedKexAlgos = []kexInfo{{name: KeyExchangeCurve25519}, {name: KeyExchangeMLKEM768X25519}}\n",
		want:  "supportedKexAlgos is not the list ssh.SupportedAlgorithms returns",
	},
	{
		name: "defaultKexAlgos changes type",
		edits: []edit{
			{"common.go", `defaultKexAlgos`, "defaultKexNames"},
			{"kex.go", `defaultKexAlgos`, "defaultKexNames"},
		},
		extra: "package ssh\n\nvar defaultKexAlgos = map[string]int{KeyExchangeCurve25519: 1}\n",
		want:  "defaultKexAlgos",
	},
	// Changes of meaning with the same layout: only the self-test sees them.
	{
		name:  "the client no longer verifies the host key signature after Client",
		edits: []edit{{"handshake.go", `\tif err := verifyHostKeySignature\(hostKey, t\.algorithms\.HostKey, result\); err != nil \{\n\t\treturn nil, err\n\t\}\n`, ""}},
		want:  "x/crypto's client accepted a host key signature made with another key",
	},
	{
		name:  "the session identifier is no longer H",
		edits: []edit{{"handshake.go", `t\.sessionID = result\.H`, "t.sessionID = append([]byte{0}, result.H...)"}},
		want:  "session identifier is not the exchange hash",
	},
	{
		name: "the key exchange is given the two KEXINITs swapped",
		edits: []edit{
			{"handshake.go", `clientKexInit: otherInitPacket,\n\t\tserverKexInit: t\.sentInitPacket,`, "clientKexInit: t.sentInitPacket,\n\t\tserverKexInit: otherInitPacket,"},
			{"handshake.go", `magics\.clientKexInit = t\.sentInitPacket\n\t\tmagics\.serverKexInit = otherInitPacket`, "magics.clientKexInit = otherInitPacket\n\t\tmagics.serverKexInit = t.sentInitPacket"},
		},
		want: "exchange hash differs from the one computed from the wire",
	},
	{
		name:  "session keys are derived from H alone, not K",
		edits: []edit{{"transport.go", `h\.Write\(r\.K\)`, "h.Write(r.H)"}},
		want:  "did not derive its keys from pqkex's K and H: the client's first encrypted packet does not decrypt",
		also:  []string{"; the server's first encrypted packet does not decrypt"},
	},
	// Changes of one direction's keys (issue 29): the self-test decrypts and
	// authenticates both directions' packets after SSH_MSG_NEWKEYS, and
	// names the direction and the key that failed.
	{
		name:  "the server's keys come from public data (for key tag 'D' an empty kexResult)",
		edits: []edit{serverKeysFromPublicData},
		want:  "the server's first encrypted packet does not decrypt with IV 'B' and key 'D'",
	},
	// (Then each of the six keys derived with the other direction's
	// letter: swappedKeyLetters.)
}, swappedKeyLetters(), []mutant{
	{
		name:  "key derivation leaves out the session identifier",
		edits: []edit{{"transport.go", `h\.Write\(r\.SessionID\)`, ""}},
		want:  "the client's first encrypted packet does not decrypt",
		also:  []string{"the server's first encrypted packet does not decrypt"},
	},
	{
		name:  "key extension (K2 = HASH(K || H || K1)) repeats K1",
		edits: []edit{{"transport.go", `if len\(digestsSoFar\) == 0 \{`, "if true {"}},
		want:  "the MAC of the client's first encrypted packet does not verify with key 'E'",
		also:  []string{"the MAC of the server's first encrypted packet does not verify with key 'F'"},
	},
	{
		name:  "strict key exchange no longer resets the sequence numbers",
		edits: []edit{neverResetSeq},
		want:  "the MAC of the client's first encrypted packet verifies with sequence number 3, not 0",
		also:  []string{"the MAC of the server's first encrypted packet verifies with sequence number 3, not 0"},
	},
	{
		name:  "without strict key exchange the sequence numbers are reset",
		edits: append([]edit{alwaysResetSeq}, noStrictKex...),
		want:  "the MAC of the client's first encrypted packet verifies with sequence number 0, not 3",
		also:  []string{"the MAC of the server's first encrypted packet verifies with sequence number 0, not 3"},
	},
	// Behaviour changes that crashed the process during Register before
	// issue 29 (a nil dereference in pqkex's key exchange, a panic on a
	// goroutine of x/crypto's or the self-test's): now an error. x/crypto's
	// own key exchanges and client break on them too, so the probe makes no
	// handshake after the refusal.
	{
		name:         "the server's key exchange is given nil handshakeMagics",
		edits:        []edit{{"handshake.go", `kex\.Server\(t\.conn, t\.config\.Rand, magics,`, "kex.Server(t.conn, t.config.Rand, nil,"}},
		want:         "; the server: sshkex: mlkem768nistp256-sha256: x/crypto gave the key exchange no handshakeMagics",
		registerOnly: true,
	},
	{
		name:         "the client's key exchange is given nil handshakeMagics",
		edits:        []edit{{"handshake.go", `kex\.Client\(t\.conn, t\.config\.Rand, magics\)`, "kex.Client(t.conn, t.config.Rand, nil)"}},
		want:         "x/crypto's client failed the handshake: ssh: handshake failed: sshkex: mlkem768nistp256-sha256: x/crypto gave the key exchange no handshakeMagics",
		registerOnly: true,
	},
	{
		name: "the packet writer panics on SSH_MSG_KEX_ECDH_INIT (called from pqkex's Client)",
		edits: []edit{{"transport.go", `(func \(t \*transport\) writePacket\(packet \[\]byte\) error \{\n)`,
			"${1}\tif len(packet) > 0 && packet[0] == 30 {\n\t\tpanic(\"mutant: writePacket panics\")\n\t}\n"}},
		want:         "a panic in pqkex's Client on x/crypto's goroutine: mutant: writePacket panics (in golang.org/x/crypto/ssh.(*transport).writePacket, transport.go:",
		registerOnly: true,
	},
	{
		name: "the client panics while authenticating (on the goroutine that called NewClientConn)",
		edits: []edit{{"client_auth.go", `(func \(c \*connection\) clientAuthenticate\(config \*ClientConfig\) error \{\n)`,
			"${1}\tpanic(\"mutant: clientAuthenticate panics\")\n"}},
		want:         "a panic in x/crypto's NewClientConn: mutant: clientAuthenticate panics (in golang.org/x/crypto/ssh.(*connection).clientAuthenticate, client_auth.go:",
		registerOnly: true,
	},
	{
		name: "DiscardRequests panics (on a goroutine of the self-test serving a connection)",
		edits: []edit{{"connection.go", `(func DiscardRequests\(in <-chan \*Request\) \{\n)`,
			"${1}\tpanic(\"mutant: DiscardRequests panics\")\n"}},
		want:         "a panic in x/crypto's DiscardRequests: mutant: DiscardRequests panics (in golang.org/x/crypto/ssh.DiscardRequests, connection.go:",
		registerOnly: true,
	},
	{
		name: "kexAlgoMap is renamed",
		edits: []edit{
			{"kex.go", `kexAlgoMap`, "kexRegistry"},
			{"common.go", `kexAlgoMap`, "kexRegistry"},
			{"handshake.go", `kexAlgoMap`, "kexRegistry"},
		},
		want: "registry (kexAlgoMap) is missing or empty",
	},
})

// probeMain registers (with RequireVerifiedXCrypto if an argument is
// "require"), says how, and then, unless an argument is "register-only",
// runs x/crypto handshakes over loopback with sntrup761x25519-sha512 and
// mlkem768nistp256-sha256, or with x/crypto's own curve25519-sha256 when
// Register refused, to show x/crypto still works.
const probeMain = `package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"slices"
	"time"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

func main() {
	opts := sshkex.Options{RequireVerifiedXCrypto: slices.Contains(os.Args[1:], "require")}
	kexs := []string{sshkex.KeyExchangeSNTRUP761X25519, sshkex.KeyExchangeMLKEM768NISTP256}
	if err := sshkex.RegisterWith(opts); err != nil {
		fmt.Println("refused:", err)
		kexs = []string{ssh.KeyExchangeCurve25519}
	} else {
		reg, _ := sshkex.Registered()
		fmt.Printf("registered: %s, verified release: %v, self-test took %v\n", reg.XCrypto, reg.Verified, reg.SelfTest.Round(time.Microsecond))
	}
	if slices.Contains(os.Args[1:], "register-only") {
		fmt.Println("exiting without a handshake")
		return
	}
	for _, kex := range kexs {
		if err := handshake(kex); err != nil {
			fmt.Println("handshake failed:", err)
			os.Exit(1)
		}
		fmt.Println("handshake ok", kex)
	}
}

func handshake(kex string) error {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer l.Close()
	scfg := &ssh.ServerConfig{NoClientAuth: true}
	scfg.KeyExchanges = []string{kex}
	scfg.AddHostKey(signer)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		sc, chans, reqs, err := ssh.NewServerConn(c, scfg)
		if err != nil {
			c.Close()
			return
		}
		go ssh.DiscardRequests(reqs)
		for ch := range chans {
			ch.Reject(ssh.Prohibited, "")
		}
		sc.Close()
	}()
	ccfg := &ssh.ClientConfig{User: "probe", HostKeyCallback: ssh.FixedHostKey(signer.PublicKey())}
	ccfg.KeyExchanges = []string{kex}
	c, err := ssh.Dial("tcp", l.Addr().String(), ccfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if got := c.Conn.(ssh.AlgorithmsConnMetadata).Algorithms().KeyExchange; got != kex {
		return fmt.Errorf("negotiated %s, want %s", got, kex)
	}
	return nil
}
`

type probeEnv struct {
	root     string // pqkex's module root
	xDir     string // x/crypto in the module cache
	xVersion string
}

func newProbeEnv(t *testing.T) probeEnv {
	tier.SkipUnlessLong(t, "builds programs against mutated x/crypto copies, a few minutes")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "golang.org/x/crypto").Output()
	if err != nil {
		t.Fatalf("go list -m golang.org/x/crypto: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] == "" {
		t.Fatalf("go list -m golang.org/x/crypto: %q", out)
	}
	return probeEnv{root: root, xDir: f[0], xVersion: f[1]}
}

// copyXCrypto copies x/crypto into a writable directory and applies m.
func (e probeEnv) copyXCrypto(t *testing.T, m *mutant) string {
	dir := filepath.Join(t.TempDir(), "xcrypto")
	if out, err := exec.Command("cp", "-r", e.xDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("copying x/crypto: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dir).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	if m != nil {
		m.apply(t, dir, e.xVersion)
	}
	return dir
}

// apply changes the copy of x/crypto in dir (a module root, or a vendored
// golang.org/x/crypto directory) as m says.
func (m *mutant) apply(t *testing.T, dir, xVersion string) {
	for _, ed := range m.edits {
		path := filepath.Join(dir, "ssh", ed.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(ed.old)
		if !re.Match(src) {
			t.Fatalf("mutant %q: %s has no match for %q (x/crypto %s changed; update the mutant)", m.name, ed.file, ed.old, xVersion)
		}
		if err := os.WriteFile(path, re.ReplaceAll(src, []byte(ed.new)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	extra := m.extra
	if m.readersGet != "" {
		extra = "package ssh\n\n" + packetReaders(t, filepath.Join(dir, "ssh"), m.readersGet)
	}
	if extra != "" {
		if err := os.WriteFile(filepath.Join(dir, "ssh", "zz_mutant.go"), []byte(extra), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// packetReaders returns method declared on every type of the package in
// dir that has a readPacket method.
func packetReaders(t *testing.T, dir, method string) string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^func \(\w+ \*(\w+)\) readPacket\(\)`)
	var b strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(src, -1) {
			fmt.Fprintf(&b, "func (*%s) %s\n", m[1], method)
		}
	}
	if b.Len() == 0 {
		t.Fatal("no readPacket methods found in x/crypto/ssh")
	}
	return b.String()
}

// run builds the probe against x/crypto in xDir ("" for the module cache's
// unmodified release, by version) and runs it with args.
func (e probeEnv) run(t *testing.T, xDir string, args ...string) string {
	var replace string
	if xDir != "" {
		replace = fmt.Sprintf("\nreplace golang.org/x/crypto => %q\n", xDir)
	}
	return e.build(t, e.xVersion, replace, nil).run(t, args...)
}

// probe is a built probe program.
type probe string

// build writes and builds the probe requiring x/crypto at version, with
// extra go.mod lines and extra environment for the go command.
func (e probeEnv) build(t *testing.T, version, extra string, env []string) probe {
	dir := t.TempDir()
	e.writeProbe(t, dir, version, extra)
	return buildProbe(t, dir, "-mod=mod", env)
}

// writeProbe writes the probe module into dir, requiring x/crypto at
// version, with extra go.mod lines.
func (e probeEnv) writeProbe(t *testing.T, dir, version, extra string) {
	gomod := fmt.Sprintf("module probe\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/pqkex/pqkex v0.0.0\n\tgolang.org/x/crypto %s\n)\n\nreplace github.com/pqkex/pqkex => %q\n%s", version, e.root, extra)
	sum, err := os.ReadFile(filepath.Join(e.root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(probeMain)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// buildProbe builds the probe module in dir with the -mod flag given.
func buildProbe(t *testing.T, dir, mod string, env []string) probe {
	build := exec.Command("go", "build", mod, "-o", "probe", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), env...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
	return probe(filepath.Join(dir, "probe"))
}

// run runs the probe with args and returns its output.
func (p probe) run(t *testing.T, args ...string) string {
	cmd := exec.Command(string(p), args...)
	// The probe exercises the non-FIPS registration: drop a GODEBUG (such
	// as the fips140=on of .ci/run's second pass) from its environment.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") })
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("probe crashed or failed: %v\n%s", err, out.String())
	}
	return out.String()
}

// TestMutatedXCryptoRefused: every mutant, used through a replace
// directive, is refused with an error naming the change (by the structural
// checks or, for a change of meaning, by the self-test), the process does
// not crash, and x/crypto's own key exchange still completes a handshake
// afterwards.
func TestMutatedXCryptoRefused(t *testing.T) {
	e := newProbeEnv(t)
	for i := range mutants {
		m := &mutants[i]
		t.Run(m.name, func(t *testing.T) {
			var args []string
			if m.registerOnly {
				args = []string{"register-only"}
			}
			out := e.run(t, e.copyXCrypto(t, m), args...)
			t.Logf("%s", out)
			wantRefusal(t, out, m)
			if !m.registerOnly && !strings.Contains(out, "handshake ok curve25519-sha256") {
				t.Fatalf("x/crypto's own key exchange failed after the refusal:\n%s", out)
			}
		})
	}
}

// wantRefusal checks a probe's output for a refusal naming what m wants.
func wantRefusal(t *testing.T, out string, m *mutant) {
	t.Helper()
	if !strings.Contains(out, "refused:") {
		t.Fatalf("want a refusal, got:\n%s", out)
	}
	for _, want := range append([]string{m.want}, m.also...) {
		if !strings.Contains(out, want) {
			t.Fatalf("want a refusal naming %q, got:\n%s", want, out)
		}
	}
}

// wantRegistered checks a probe's output for a registration and both
// post-quantum handshakes.
func wantRegistered(t *testing.T, what, out, how string) {
	t.Helper()
	t.Logf("%s:\n%s", what, out)
	for _, want := range []string{"registered: " + how, "handshake ok sntrup761x25519-sha512", "handshake ok mlkem768nistp256-sha256"} {
		if !strings.Contains(out, want) {
			t.Fatalf("%s: no %q in:\n%s", what, want, out)
		}
	}
}

// TestUnmodifiedXCryptoAccepted: the same copy without a change, used
// through a replace directive, registers after the self-test (not a
// verified release) and completes sntrup761x25519 and mlkem768nistp256
// handshakes; with RequireVerifiedXCrypto it is refused for its version;
// the module cache's release registers as a verified release.
func TestUnmodifiedXCryptoAccepted(t *testing.T) {
	e := newProbeEnv(t)
	copied := e.copyXCrypto(t, nil)
	p := e.build(t, e.xVersion, fmt.Sprintf("\nreplace golang.org/x/crypto => %q\n", copied), nil)
	wantRegistered(t, "replaced unmodified copy", p.run(t), "golang.org/x/crypto replaced by "+copied+", verified release: false")
	out := p.run(t, "require")
	t.Logf("with RequireVerifiedXCrypto:\n%s", out)
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "RequireVerifiedXCrypto is set") {
		t.Fatalf("replaced copy with RequireVerifiedXCrypto:\n%s", out)
	}
	wantRegistered(t, "module cache release", e.run(t, ""), "golang.org/x/crypto "+e.xVersion+", verified release: true")
}

// TestVendoredXCryptoEditedInPlace: a program that vendors x/crypto at
// go.mod's release (go mod vendor, built with -mod=vendor) reports that
// release, and Registered says it is verified, so RequireVerifiedXCrypto
// lets it through; edited in place the way of issue 29 (the server's keys
// from public data), the same release number is refused, with and without
// RequireVerifiedXCrypto, by the self-test.
func TestVendoredXCryptoEditedInPlace(t *testing.T) {
	e := newProbeEnv(t)
	dir := t.TempDir()
	e.writeProbe(t, dir, e.xVersion, "")
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "vendor"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	how := "golang.org/x/crypto " + e.xVersion
	p := buildProbe(t, dir, "-mod=vendor", nil)
	wantRegistered(t, "vendored, unedited", p.run(t), how+", verified release: true")
	wantRegistered(t, "vendored, unedited, with RequireVerifiedXCrypto", p.run(t, "require"), how+", verified release: true")

	m := findMutant(t, "the server's keys come from public data (for key tag 'D' an empty kexResult)")
	m.apply(t, filepath.Join(dir, "vendor", "golang.org", "x", "crypto"), e.xVersion)
	p = buildProbe(t, dir, "-mod=vendor", nil)
	// Each case runs whatever the other's result (the one with
	// RequireVerifiedXCrypto is the claim SECURITY.md makes).
	for name, args := range map[string][]string{"default": nil, "RequireVerifiedXCrypto": {"require"}} {
		t.Run(name, func(t *testing.T) {
			out := p.run(t, args...)
			t.Logf("vendored, edited in place, args %q:\n%s", args, out)
			wantRefusal(t, out, &mutant{want: "refused: sshkex: nothing registered: " + how + " failed the registration self-test: ", also: []string{m.want}})
			if !strings.Contains(out, "handshake ok curve25519-sha256") {
				t.Fatalf("x/crypto's own key exchange failed after the refusal:\n%s", out)
			}
		})
	}
}

// TestNonStrictXCryptoAccepted: an x/crypto whose client and server no
// longer offer strict key exchange (kex-strict-*-v00@openssh.com) derives
// pqkex's keys right; the self-test then expects the sequence numbers
// counted on from the first packet (not reset after SSH_MSG_NEWKEYS), and
// such an x/crypto registers and completes handshakes. (The mutant
// "without strict key exchange the sequence numbers are reset" shows that
// the count is checked.)
func TestNonStrictXCryptoAccepted(t *testing.T) {
	e := newProbeEnv(t)
	m := &mutant{name: "no strict key exchange", edits: noStrictKex}
	dir := e.copyXCrypto(t, m)
	wantRegistered(t, m.name, e.run(t, dir), "golang.org/x/crypto replaced by "+dir+", verified release: false")
}
