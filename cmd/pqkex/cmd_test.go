package main

import (
	"bytes"
	"crypto/fips140"
	"encoding/json"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
	"github.com/pqkex/pqkex/internal/vecarith"
	"github.com/pqkex/pqkex/sshkex"
)

func startTestServer(t *testing.T, kexs []string) (addr string, hostKey ssh.PublicKey) {
	t.Helper()
	if err := sshkex.Register(); err != nil {
		t.Fatal(err)
	}
	signer := benchHostKey()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, kexs))
	go s.Serve()
	t.Cleanup(func() { s.Close() })
	return l.Addr().String(), signer.PublicKey()
}

// TestScanEveryMethod scans a server offering one post-quantum method at a
// time (plus curve25519): scan must pick and complete it and report the
// server's host key.
func TestScanEveryMethod(t *testing.T) {
	for _, name := range []string{sshkex.KeyExchangeMLKEM768X25519, sshkex.KeyExchangeSNTRUP761X25519, sshkex.KeyExchangeSNTRUP761X25519OpenSSH,
		sshkex.KeyExchangeMLKEM768NISTP256, sshkex.KeyExchangeMLKEM1024NISTP384} {
		t.Run(name, func(t *testing.T) {
			addr, pub := startTestServer(t, []string{ssh.KeyExchangeCurve25519, name})
			var out, errOut bytes.Buffer
			code := runScan([]string{"-json", addr}, &out, &errOut)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
			}
			var res scanResult
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if res.Selected != name || !res.PQ {
				t.Fatalf("selected %q (pq %v), want %s", res.Selected, res.PQ, name)
			}
			if res.Fingerprint != ssh.FingerprintSHA256(pub) || res.HostKeyType != pub.Type() {
				t.Fatalf("host key %s %s, want %s %s", res.HostKeyType, res.Fingerprint, pub.Type(), ssh.FingerprintSHA256(pub))
			}
			if res.ServerVersion == "" || len(res.KexOffered) < 2 || len(res.PQOffered) != 1 || res.ElapsedMS <= 0 {
				t.Fatalf("incomplete result: %+v", res)
			}
		})
	}
}

func TestScanNoPQ(t *testing.T) {
	addr, _ := startTestServer(t, []string{ssh.KeyExchangeCurve25519})
	var out, errOut bytes.Buffer
	if code := runScan([]string{addr}, &out, &errOut); code != 3 {
		t.Fatalf("exit %d, want 3: %s %s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "not using a post-quantum key exchange") {
		t.Fatalf("no warning: %q", errOut.String())
	}
	if !strings.Contains(out.String(), "negotiated  curve25519-sha256") {
		t.Fatalf("the classical key exchange was not completed: %q", out.String())
	}
}

// TestScanErrors: a closed port, a non-SSH listener and bad arguments.
// Before the server's identification line there is nothing to describe,
// so stdout stays empty (and -json prints an object with empty lists).
func TestScanErrors(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	var out, errOut bytes.Buffer
	if code := runScan([]string{"-timeout", "2s", closed}, &out, &errOut); code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "connection refused") {
		t.Fatalf("closed port: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := runScan([]string{"-json", "-timeout", "2s", closed}, &out, &errOut); code != 1 {
		t.Fatalf("closed port -json: exit %d", code)
	}
	for _, list := range []string{"kex_offered", "pq_offered", "extensions_offered", "host_key_algorithms"} {
		if !strings.Contains(out.String(), `"`+list+`": []`) {
			t.Errorf("-json on error: %s is not []:\n%s", list, out.String())
		}
	}

	for _, tc := range []struct{ name, sends, want string }{
		{"http", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>" + strings.Repeat("x", 100),
			`not an SSH server (no SSH identification line, RFC 4253 section 4.2): it sent "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>xxxxxxxxxxxxxx"... (159 bytes)`},
		{"control bytes", "\x1b[2J\xff\n", `not an SSH server (no SSH identification line, RFC 4253 section 4.2): it sent "\x1b[2J\xff\n"`},
		{"silent close", "", "no SSH identification line: the server closed the connection without sending anything (not an SSH server, or one refusing connections"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				c, err := l.Accept()
				if err == nil {
					c.Write([]byte(tc.sends))
					c.Close()
				}
			}()
			var out, errOut bytes.Buffer
			code := runScan([]string{"-timeout", "5s", l.Addr().String()}, &out, &errOut)
			// stderr is wrapped at spaces to 100 columns.
			if code != 1 || out.Len() != 0 || !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q, want %q", code, out.String(), errOut.String(), tc.want)
			}
		})
	}

	// Usage errors exit 2 before any connection: the address is the
	// closed port, which would exit 1.
	for _, args := range [][]string{nil, {"-kex", "foo", closed}, {"-kex", "ext-info-c", closed}, {"-kex", ",", closed}, {"a", "b"}} {
		out.Reset()
		errOut.Reset()
		if code := runScan(args, &out, &errOut); code != 2 || out.Len() != 0 {
			t.Errorf("scan %q: exit %d, stdout %q", args, code, out.String())
		}
	}
	if code := runScan([]string{"-kex", "foo", closed}, &out, &errOut); !strings.Contains(errOut.String(), `unknown key exchange "foo" (known: `) {
		t.Errorf("-kex foo: exit %d, stderr %q", code, errOut.String())
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"SSH-2.0-OpenSSH_10.0": "SSH-2.0-OpenSSH_10.0",
		"SSH-2.0-x\x1b[2J":     `"SSH-2.0-x\x1b[2J"`,
		"a\xffb":               `"a\xffb"`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %s, want %s", in, got, want)
		}
	}
}

// scanJSON runs "pqkex scan -json addr", which must exit 0, and returns
// its result and what it wrote.
func scanJSON(t *testing.T, addr string) (res scanResult, out, errOut *bytes.Buffer) {
	t.Helper()
	out, errOut = new(bytes.Buffer), new(bytes.Buffer)
	if code := runScan([]string{"-json", addr}, out, errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res, out, errOut
}

// TestScanExtensionMarkers: x/crypto's server lists
// kex-strict-s-v00@openssh.com among its key exchanges; scan reports it
// as an extension marker, not as a key exchange.
func TestScanExtensionMarkers(t *testing.T) {
	addr, _ := startTestServer(t, []string{ssh.KeyExchangeCurve25519, sshkex.KeyExchangeMLKEM768X25519})
	res, out, errOut := scanJSON(t, addr)
	if want := []string{ssh.KeyExchangeCurve25519, "curve25519-sha256@libssh.org", sshkex.KeyExchangeMLKEM768X25519}; !slices.Equal(res.KexOffered, want) {
		t.Errorf("kex_offered %q, want %q", res.KexOffered, want)
	}
	if want := []string{"kex-strict-s-v00@openssh.com"}; !slices.Equal(res.Extensions, want) {
		t.Errorf("extensions_offered %q, want %q", res.Extensions, want)
	}
	out.Reset()
	if code := runScan([]string{addr}, out, errOut); code != 0 ||
		!strings.Contains(out.String(), "extension markers (listed with the key exchanges, not key exchanges):\n      kex-strict-s-v00@openssh.com (strict key exchange") {
		t.Errorf("exit %d, text output:\n%s", code, out.String())
	}
}

func TestServeListenCheck(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:2222": true, "[::1]:22": true, "localhost:2222": true,
		"0.0.0.0:2222": false, ":2222": false, "192.0.2.1:22": false, "nonsense": false,
	} {
		if err := checkListen(addr, false); (err == nil) != ok {
			t.Errorf("checkListen(%q) = %v", addr, err)
		}
	}
	if err := checkListen("0.0.0.0:2222", true); err != nil {
		t.Errorf("-allow-remote refused: %v", err)
	}
}

// TestBenchJSON runs a short bench and checks the JSON schema: every row
// and primitive is present and the figures are consistent.
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every benchmark briefly")
	}
	var out, errOut bytes.Buffer
	start := time.Now()
	if code := runBench([]string{"-json", "-time", "5ms"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	t.Logf("bench -time 5ms took %v", time.Since(start))
	var rep benchReport
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.Go == "" || rep.GOOS == "" || rep.GOARCH == "" || rep.CPU == "" {
		t.Fatalf("missing environment fields: %+v", rep)
	}
	if rep.SNTRUP761 != vecarith.Label() || rep.SNTRUP761 == "" {
		t.Fatalf("sntrup761_arithmetic = %q, this binary runs %q", rep.SNTRUP761, vecarith.Label())
	}
	wantRows := []struct{ method, impl, variant string }{
		{"mlkem768x25519-sha256", "pqkex", ""},
		{"sntrup761x25519-sha512", "pqkex", ""},
		{"sntrup761x25519-sha512", "pqkex", "batch"},
		{"mlkem768x25519-sha256", "x/crypto", ""},
		{"curve25519-sha256", "x/crypto", ""},
		{"ecdh-sha2-nistp256", "x/crypto", ""},
		{"mlkem768nistp256-sha256", "pqkex", ""},
		{"mlkem768nistp256-sha256", "baseline", ""},
		{"mlkem1024nistp384-sha384", "pqkex", ""},
		{"mlkem1024nistp384-sha384", "baseline", ""},
	}
	if len(rep.Rows) != len(wantRows) {
		t.Fatalf("%d rows, want %d", len(rep.Rows), len(wantRows))
	}
	for _, w := range wantRows {
		found := false
		for _, r := range rep.Rows {
			if r.Method != w.method || r.Impl != w.impl || r.Variant != w.variant {
				continue
			}
			found = true
			if r.ClientUS <= 0 || r.ServerUS <= 0 || r.Samples != benchRounds || r.SpreadPct < 0 {
				t.Errorf("%v: non-positive figures %+v", w, r)
			}
			// The baseline is crypto only: no SSH adapter, no handshakes.
			if (r.HandshakesPerS > 0) != (r.Impl != "baseline") {
				t.Errorf("%v: handshakes/s %v", w, r.HandshakesPerS)
			}
			if math.Abs(r.KexUS-(r.ClientUS+r.ServerUS)) > 0.2 || math.Abs(r.KexPerS-1e6/r.KexUS) > 0.01*r.KexPerS+1 {
				t.Errorf("%v: inconsistent kex figures %+v", w, r)
			}
		}
		if !found {
			t.Errorf("row %v missing", w)
		}
	}
	for _, name := range []string{"sntrup761.GenerateKey", "sntrup761.Encapsulate", "sntrup761.Decapsulate", "sntrup761.GenerateKeyBatch",
		"mlkem768.GenerateKey", "mlkem768.Encapsulate", "mlkem768.Decapsulate", "x25519.GenerateKey", "x25519.ECDH",
		"mlkem1024.GenerateKey", "mlkem1024.Encapsulate", "mlkem1024.Decapsulate",
		"p256.GenerateKey", "p256.ECDH", "p384.GenerateKey", "p384.ECDH"} {
		found := false
		for _, p := range rep.Primitives {
			if p.Name == name {
				found = p.US > 0 && p.Samples == benchRounds && p.SpreadPct >= 0
			}
		}
		if !found {
			t.Errorf("primitive %s missing or zero", name)
		}
	}
}

// TestBenchJSONTypes: kex_per_s and the other figures are JSON numbers
// with a fraction where they have one, samples an integer, as
// docs/usage.md documents.
func TestBenchJSONTypes(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runBench([]string{"-json", "-time", "5ms", "-methods", "curve25519-sha256"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var raw struct {
		Rows       []map[string]any `json:"rows"`
		Primitives []map[string]any `json:"primitives"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Rows) != 1 || raw.Primitives == nil || len(raw.Primitives) != 0 {
		t.Fatalf("rows %v, primitives %v (want [] for curve25519-sha256)", raw.Rows, raw.Primitives)
	}
	for k, v := range raw.Rows[0] {
		switch k {
		case "method", "impl", "variant":
			if _, ok := v.(string); !ok {
				t.Errorf("%s = %v, want a string", k, v)
			}
		case "samples":
			if f, ok := v.(float64); !ok || f != float64(int(f)) {
				t.Errorf("%s = %v, want an integer", k, v)
			}
		default:
			if _, ok := v.(float64); !ok {
				t.Errorf("%s = %v, want a number", k, v)
			}
		}
	}
}

// TestBenchMethods: every registered name and alias selects its rows, and
// the primitives are those of the selected key exchanges.
func TestBenchMethods(t *testing.T) {
	for _, tc := range []struct {
		methods    string
		rows       []string
		primitives []string
	}{
		{"sntrup761x25519-sha512@openssh.com", []string{"sntrup761x25519-sha512 pqkex ", "sntrup761x25519-sha512 pqkex batch"},
			[]string{"sntrup761.GenerateKey", "sntrup761.Encapsulate", "sntrup761.Decapsulate", "sntrup761.GenerateKeyBatch", "x25519.GenerateKey", "x25519.ECDH"}},
		{"mlkem768x25519-sha256", []string{"mlkem768x25519-sha256 x/crypto ", "mlkem768x25519-sha256 pqkex "},
			[]string{"mlkem768.GenerateKey", "mlkem768.Encapsulate", "mlkem768.Decapsulate", "x25519.GenerateKey", "x25519.ECDH"}},
		{"curve25519-sha256@libssh.org,ecdh-sha2-nistp256", []string{"curve25519-sha256 x/crypto ", "ecdh-sha2-nistp256 x/crypto "}, nil},
		{"mlkem768nistp256-sha256", []string{"mlkem768nistp256-sha256 pqkex ", "mlkem768nistp256-sha256 baseline "},
			[]string{"p256.GenerateKey", "p256.ECDH"}},
		{"mlkem1024nistp384-sha384", []string{"mlkem1024nistp384-sha384 pqkex ", "mlkem1024nistp384-sha384 baseline "},
			[]string{"mlkem1024.GenerateKey", "mlkem1024.Encapsulate", "mlkem1024.Decapsulate", "p384.GenerateKey", "p384.ECDH"}},
	} {
		t.Run(tc.methods, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := runBench([]string{"-json", "-time", "5ms", "-methods", tc.methods}, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			var rep benchReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			var rows, prims []string
			for _, r := range rep.Rows {
				rows = append(rows, r.Method+" "+r.Impl+" "+r.Variant)
			}
			for _, p := range rep.Primitives {
				prims = append(prims, p.Name)
			}
			if !slices.Equal(rows, tc.rows) || !slices.Equal(prims, tc.primitives) {
				t.Errorf("rows %q, primitives %q; want %q, %q", rows, prims, tc.rows, tc.primitives)
			}
		})
	}
}

// TestBenchFIPS runs bench in child processes in FIPS 140-3 mode, with
// GODEBUG=fips140=on and fips140=only: it measures only the key exchanges
// built on approved algorithms (the NIST-curve hybrids, their baseline and
// x/crypto's ecdh-sha2-nistp256) and crypto/mlkem's and crypto/ecdh's
// primitives, says so on stderr and in the report, exits 0, and the
// hybrids' rows and handshakes run the approved path: no call enters
// circl's ML-KEM or a derandomized service (under fips140=only Go would
// refuse the derandomized encapsulation outright).
func TestBenchFIPS(t *testing.T) {
	if mode := os.Getenv("PQKEX_BENCH_FIPS_CHILD"); mode != "" {
		if !fips140.Enabled() {
			t.Fatal("child not in FIPS 140-3 mode")
		}
		circl, derand := hybrid.CirclCalls(), hybrid.DerandomizedCalls()
		var out, errOut bytes.Buffer
		if code := runBench([]string{"-json", "-time", "5ms"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if d1, d2 := hybrid.CirclCalls()-circl, hybrid.DerandomizedCalls()-derand; d1 != 0 || d2 != 0 {
			t.Fatalf("bench in FIPS mode made %d circl and %d derandomized calls", d1, d2)
		}
		var rep benchReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		var rows, prims []string
		for _, r := range rep.Rows {
			rows = append(rows, r.Method+" "+r.Impl)
		}
		for _, p := range rep.Primitives {
			prims = append(prims, p.Name)
		}
		wantRows := []string{"ecdh-sha2-nistp256 x/crypto", "mlkem768nistp256-sha256 pqkex", "mlkem768nistp256-sha256 baseline",
			"mlkem1024nistp384-sha384 pqkex", "mlkem1024nistp384-sha384 baseline"}
		wantPrims := []string{"mlkem.GenerateKey768", "mlkem.Encapsulate768", "mlkem.Decapsulate768",
			"mlkem.GenerateKey1024", "mlkem.Encapsulate1024", "mlkem.Decapsulate1024",
			"p256.GenerateKey", "p256.ECDH", "p384.GenerateKey", "p384.ECDH"}
		if !slices.Equal(rows, wantRows) || !slices.Equal(prims, wantPrims) || !strings.Contains(errOut.String(), "FIPS 140-3 mode") || rep.FIPS140 != mode {
			t.Fatalf("rows %q, primitives %q, fips140 %q, stderr %q", rows, prims, rep.FIPS140, errOut.String())
		}
		t.Log("FIPS bench checked")
		return
	}
	if testing.Short() {
		t.Skip("runs FIPS-mode child processes with every approved benchmark")
	}
	for _, mode := range []string{"on", "only"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBenchFIPS$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, "PQKEX_BENCH_FIPS_CHILD="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "FIPS bench checked") {
			t.Fatalf("fips140=%s child: %v\n%s", mode, err, out)
		}
	}
}

// TestBenchFooter: the text output explains every row kind and every
// primitive it prints, and warns when a spread is large.
func TestBenchFooter(t *testing.T) {
	rep := &benchReport{Go: "go", GOOS: "os", GOARCH: "arch", CPU: "cpu"}
	for _, r := range []benchRow{{Impl: "pqkex"}, {Impl: "pqkex", Variant: "batch"}, {Impl: "x/crypto"}, {Impl: "baseline"}} {
		r.Method, r.Samples, r.SpreadPct, r.ClientUS, r.ServerUS = "m", benchRounds, 3, 1, 1
		if r.Impl != "baseline" {
			r.HandshakesPerS = 1234
		}
		rep.Rows = append(rep.Rows, r)
	}
	for _, fips := range []bool{false, true} {
		for _, p := range primitives(fips) {
			rep.Primitives = append(rep.Primitives, benchPrimitive{Name: p.name, US: 1, Samples: benchRounds, SpreadPct: 2})
		}
	}
	var out bytes.Buffer
	printBench(&out, rep)
	text := out.String()
	for _, want := range []string{"median of 5 timed rounds", "spread = ", "pqkex = ", "pqkex (batch) = ", "x/crypto = ", "baseline = ", "kex = client + server"} {
		if !strings.Contains(text, want) {
			t.Errorf("footer lacks %q:\n%s", want, text)
		}
	}
	for _, p := range rep.Primitives {
		found := false
		for _, l := range strings.Split(text, "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == p.Name && !strings.HasSuffix(f[len(f)-1], "%") {
				found = true
			}
		}
		if !found {
			t.Errorf("no explanation for %s:\n%s", p.Name, text)
		}
	}
	if strings.Contains(text, "NOTE:") {
		t.Errorf("noise note with small spreads:\n%s", text)
	}
	// handshakes/s: a figure for the SSH rows, "-" for the baseline (in
	// the table, before the verdict).
	table, _, _ := strings.Cut(text, "VERDICT")
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) < 8 || f[0] != "m" {
			continue
		}
		want := "1234"
		if f[1] == "baseline" {
			want = "-"
		}
		if f[len(f)-2] != want {
			t.Errorf("row %q: handshakes/s %q, want %q", l, f[len(f)-2], want)
		}
	}
	rep.Primitives[0].SpreadPct = 40
	out.Reset()
	printBench(&out, rep)
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "NOTE: 1 figures (marked !) vary by more than 10%") || !strings.Contains(out.String(), "40% !") {
		t.Errorf("no noise note:\n%s", out.String())
	}
	// In FIPS 140-3 mode the pqkex rows are the approved path, and the
	// footer says so instead of describing the circl defaults.
	if strings.Contains(out.String(), "approved path") {
		t.Errorf("non-FIPS footer claims the approved path:\n%s", out.String())
	}
	rep.FIPS140 = "only"
	out.Reset()
	printBench(&out, rep)
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "FIPS 140-3 mode (fips140=only): the approved path only") || strings.Contains(out.String(), "circl ML-KEM-768 and X25519") {
		t.Errorf("FIPS footer:\n%s", out.String())
	}
}

// TestHelpExitsZero: -h prints the usage on stdout and exits 0 for every
// subcommand (those named here and every verb of the table).
func TestHelpExitsZero(t *testing.T) {
	verbs := map[string]func([]string, io.Writer, io.Writer) int{
		"bench": runBench, "scan": runScan, "serve": runServe, "kat": runKAT,
	}
	for _, c := range commands {
		verbs[c.name] = c.run
	}
	for name, run := range verbs {
		for _, h := range []string{"-h", "-help", "--help"} {
			var out, errOut bytes.Buffer
			if code := run([]string{h}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "usage: pqkex "+name) || errOut.Len() != 0 {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", name, h, code, out.String(), errOut.String())
			}
		}
		var out, errOut bytes.Buffer
		if code := run([]string{"-no-such-flag"}, &out, &errOut); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "usage: pqkex "+name) {
			t.Errorf("%s -no-such-flag: exit %d, stdout %q, stderr %q", name, code, out.String(), errOut.String())
		}
	}
}

func TestBenchFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runBench([]string{"-methods", "nonsense"}, &out, &errOut); code != 2 {
		t.Fatalf("unknown method: exit %d", code)
	}
	for _, bad := range []string{"0s", "-1s"} {
		errOut.Reset()
		if code := runBench([]string{"-time", bad}, &out, &errOut); code != 2 || !strings.HasPrefix(errOut.String(), "pqkex bench: -time must be a positive duration") {
			t.Fatalf("-time %s: exit %d, stderr %q", bad, code, errOut.String())
		}
	}
}

// TestHelpVerb: "pqkex help VERB" prints exactly what "pqkex VERB -h"
// prints, for every verb, and exits 0; "pqkex help" the general usage;
// an unknown verb exits 2.
func TestHelpVerb(t *testing.T) {
	for _, c := range commands {
		name := c.name
		var help, helpErr, flagH, flagHErr bytes.Buffer
		code := run([]string{"help", name}, &help, &helpErr)
		want := run([]string{name, "-h"}, &flagH, &flagHErr)
		if code != 0 || want != 0 || help.String() != flagH.String() || helpErr.Len() != 0 || !strings.HasPrefix(help.String(), "usage: pqkex "+name) {
			t.Errorf("help %s: exit %d, stdout %q, stderr %q; %s -h: exit %d, stdout %q", name, code, help.String(), helpErr.String(), name, want, flagH.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"help"}, &out, &errOut); code != 0 || out.String() != usage {
		t.Errorf("help: exit %d, stdout %q", code, out.String())
	}
	for _, args := range [][]string{{"help", "nonsense"}, {"help", "bench", "extra"}, {"nonsense"}, nil} {
		out.Reset()
		errOut.Reset()
		if code := run(args, &out, &errOut); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "usage: pqkex <command>") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// TestBenchVerdict: the verdict gives each row's cost as a ratio to
// pqkex's mlkem768x25519-sha256 and in µs, calls a difference within the
// spreads "no clear difference" (never a ranking: here the batch row's
// handshakes are faster than the reference's, but within the spread),
// and sets the costliest extra cost against a network round trip.
func TestBenchVerdict(t *testing.T) {
	row := func(method, impl, variant string, kexUS, hsPerS, spread float64) benchRow {
		return benchRow{Method: method, Impl: impl, Variant: variant, KexUS: kexUS, HandshakesPerS: hsPerS, SpreadPct: spread, Samples: benchRounds}
	}
	rep := &benchReport{Rows: []benchRow{
		row("curve25519-sha256", "x/crypto", "", 100, 2000, 5),
		row("mlkem768x25519-sha256", "pqkex", "", 100, 2000, 5),  // 500 µs per handshake
		row("sntrup761x25519-sha512", "pqkex", "", 400, 1000, 5), // 1000 µs
		row("sntrup761x25519-sha512", "pqkex", "batch", 105, 2200, 20),
		row("mlkem768nistp256-sha256", "baseline", "", 95, 0, 10),
	}}
	// The batch row's handshakes with their rounds' range: 420 to 600 µs
	// overlaps the reference's 487.5 to 512.5 µs.
	rep.Rows[3].hsLo, rep.Rows[3].hsHi, rep.Rows[3].hsSpread = 420, 600, 40
	var out bytes.Buffer
	printBenchVerdict(&out, rep)
	text := out.String()
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") } // the prose is wrapped
	lineOf := func(method, impl string) string {
		for _, l := range strings.Split(text, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] == method && strings.HasPrefix(strings.Join(f[1:], " "), impl+" ") {
				return l
			}
		}
		t.Fatalf("no verdict line for %s %s:\n%s", method, impl, text)
		return ""
	}
	for _, c := range []struct {
		method, impl string
		want         []string
	}{
		{"mlkem768x25519-sha256", "pqkex", []string{"100 reference 500 reference"}},
		{"curve25519-sha256", "x/crypto", []string{"100 ≈ (±5%) 500 ≈ (±5%)"}},
		{"sntrup761x25519-sha512", "pqkex", []string{"400 4.0× (+300 µs) 1000 2.0× (+500 µs)"}},
		{"sntrup761x25519-sha512", "pqkex (batch)", []string{"105 ≈ (±20%) 455 ≈ (±40%)"}},
		{"mlkem768nistp256-sha256", "baseline", []string{"95 ≈ (±10%) -"}},
	} {
		l := flat(lineOf(c.method, c.impl))
		for _, w := range c.want {
			if !strings.Contains(l, w) {
				t.Errorf("%s %s: %q lacks %q", c.method, c.impl, l, w)
			}
		}
	}
	for _, want := range []string{"against pqkex's mlkem768x25519-sha256, measured in this run",
		"The costliest of pqkex's methods here, sntrup761x25519-sha512 (pqkex), adds 300 µs of crypto per connection",
		"300 µs is 0.4% of the first and 38% of the second, so across the internet nobody will notice it; inside a data centre it lengthens"} {
		if !strings.Contains(flat(text), want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}

	// Everything within the spread: no ranking, the largest cost for scale.
	for i := range rep.Rows {
		rep.Rows[i].SpreadPct = 400
	}
	out.Reset()
	printBenchVerdict(&out, rep)
	if text := flat(out.String()); !strings.Contains(text, "too noisy to rank them") || strings.Contains(text, "4.0×") ||
		!strings.Contains(text, "For scale: the costliest of pqkex's methods here, sntrup761x25519-sha512 (pqkex), costs 400 µs") {
		t.Errorf("noisy verdict:\n%s", text)
	}

	// Without the reference row: the first pqkex row, said so.
	rep.Rows = rep.Rows[2:]
	out.Reset()
	printBenchVerdict(&out, rep)
	if text := flat(out.String()); !strings.Contains(text, "mlkem768x25519-sha256 (pqkex) was not measured in this run") ||
		!strings.Contains(text, "against sntrup761x25519-sha512 (pqkex) instead") {
		t.Errorf("verdict without the reference:\n%s", text)
	}
}

// TestBenchProgress: each step shows n/N, what it measures and the time
// left, estimated from the time per figure so far.
func TestBenchProgress(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := &benchProgress{w: &out, d: time.Second, total: 3, unitsTotal: 7, now: func() time.Time { return now }}
	p.step("row a", 3) // before anything is done: 7 units of 1s and a third
	now = now.Add(6 * time.Second)
	p.step("row b", 3) // 2 s per unit so far, 4 units left
	now = now.Add(6 * time.Second)
	p.step("primitive", 1)
	p.end()
	got := strings.Split(strings.ReplaceAll(out.String(), "\033[K", ""), "\r")
	want := []string{"", "[1/3] row a, about 9 s left", "[2/3] row b, about 8 s left", "[3/3] primitive, about 2 s left", ""}
	if !slices.Equal(got, want) {
		t.Errorf("progress %q, want %q", got, want)
	}
}

// TestBenchTextWidth: bench's text output stays within 100 columns, and
// with stderr not a terminal (a pipe, a CI log) it shows its progress
// there, a line per step, not rewritten in place.
func TestBenchTextWidth(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runBench([]string{"-time", "2ms"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if n := len([]rune(l)); n > textWidth {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	steps := strings.Count(errOut.String(), "pqkex bench: [")
	if steps < 10 || strings.ContainsAny(errOut.String(), "\r\x1b") || !strings.Contains(errOut.String(), "pqkex bench: [1/") {
		t.Errorf("%d progress lines on stderr:\n%q", steps, errOut.String())
	}
}
