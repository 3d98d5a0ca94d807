package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/cmd/pqkex/internal/conformance"
	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sshkex"
)

// TestCheckServeConforms: pqkex serve's server conforms in every case,
// check exits 0 and its JSON has the documented fields.
func TestCheckServeConforms(t *testing.T) {
	addr, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	var out, errOut bytes.Buffer
	if code := runCheck([]string{"-json", addr}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "tool", "role", "target", "peer_version", "kex_offered", "strict_kex", "methods", "results", "summary"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("-json has no %q", k)
		}
	}
	if rep["schema"] != checkSchema || rep["role"] != "server" || len(rep["methods"].([]any)) != 5 {
		t.Errorf("schema %v, role %v, methods %v", rep["schema"], rep["role"], rep["methods"])
	}
	res := rep["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"method", "case", "clause", "expected", "verdict", "conforms", "detail", "attempts", "elapsed_ms"} {
		if _, ok := res[k]; !ok {
			t.Errorf("a result has no %q: %v", k, res)
		}
	}
	out.Reset()
	if code := runCheck([]string{"-kex", sshkex.KeyExchangeMLKEM768NISTP256, addr}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "mlkem768nistp256-sha256\n  CASE") || !strings.Contains(out.String(), "\n  point-hybrid ") ||
		!strings.Contains(out.String(), "23 cases: 23 conform, 0 do not conform") || !strings.Contains(out.String(), "no finding") {
		t.Errorf("table:\n%s", out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 100 {
			t.Errorf("a line of %d columns (at most 100): %q", len(l), l)
		}
	}
	// -soak 3: one more case, of three connections, with its counts and
	// the probability that a server dropping a leading zero escapes.
	out.Reset()
	if code := runCheck([]string{"-json", "-soak", "3", "-kex", sshkex.KeyExchangeMLKEM768X25519, addr}, &out, &errOut); code != 0 {
		t.Fatalf("-soak 3: exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	var soak struct{ Results []conformance.Result }
	if err := json.Unmarshal(out.Bytes(), &soak); err != nil {
		t.Fatal(err)
	}
	// The plan on stderr counts the soak's connections, not one a case.
	plan := fmt.Sprintf("%d cases, %d connections (one a case, 3 for each method's soak)", len(soak.Results), len(soak.Results)-1+3)
	if !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), plan) {
		t.Errorf("-soak 3: stderr lacks %q:\n%s", plan, errOut.String())
	}
	last := soak.Results[len(soak.Results)-1]
	if last.Case != conformance.SoakCase || last.Verdict != conformance.Completed || last.Attempts != 3 ||
		!strings.Contains(last.Detail, "3 honest exchanges: K_PQ started with 00 in ") || !strings.Contains(last.Detail, "(255/256)^3 = 0.988") {
		t.Errorf("-soak 3: the last result is %+v", last)
	}
}

// fakeServer is a hostile or broken SSH server on loopback: it sends
// version and the payloads of kexinit, then answers every packet it reads
// with reply (nil: none), until the connection ends.
func fakeServer(t *testing.T, version string, kexinit []byte, reply func(p []byte) [][]byte) string {
	return sshtest.Serve(t, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte(version + "\r\n"))
		if kexinit == nil {
			return
		}
		c.Write(sshwire.PlainPacket(kexinit))
		br := bufio.NewReader(c)
		if _, err := sshwire.ReadVersion(br); err != nil {
			return
		}
		for {
			p, err := sshwire.ReadPlainPacket(br, 1<<16)
			if err != nil {
				return
			}
			if reply != nil {
				for _, r := range reply(p) {
					c.Write(sshwire.PlainPacket(r))
				}
			}
		}
	})
}

func kexInitOffering(kex ...string) []byte {
	return sshwire.AppendKexInit(nil, &sshwire.KexInit{
		KexAlgos: kex, HostKeyAlgos: []string{ssh.KeyAlgoED25519},
		CiphersC2S: []string{"aes128-ctr"}, CiphersS2C: []string{"aes128-ctr"},
		MACsC2S: []string{"hmac-sha2-256"}, MACsS2C: []string{"hmac-sha2-256"},
		CompressionC2S: []string{"none"}, CompressionS2C: []string{"none"},
	})
}

// TestCheckExitStatus: 1 when a case does not conform, 3 when a case or
// the whole check could not run, 2 for usage errors.
func TestCheckExitStatus(t *testing.T) {
	// The cases run in parallel with each other and with the package's
	// other parallel tests: "never answers" waits out 25 one-second
	// timeouts (most of this test's wall time, no CPU), and the others
	// need not queue behind it. The fake servers serve every connection
	// on its own goroutine, and t.Cleanup closes them only after every
	// parallel subtest has finished.
	t.Parallel()
	// A server that answers every KEX_ECDH_INIT with a KEX_ECDH_REPLY of
	// garbage: it accepts every bad C_INIT.
	garbage := fakeServer(t, "SSH-2.0-fake", kexInitOffering(sshkex.KeyExchangeMLKEM768X25519), func(p []byte) [][]byte {
		if p[0] == sshwire.MsgKexECDHInit {
			return [][]byte{sshwire.AppendKexECDHReply(nil, []byte("key"), make([]byte, 1120), []byte("sig"))}
		}
		return nil
	})
	noPQ := fakeServer(t, "SSH-2.0-fake", kexInitOffering(ssh.KeyExchangeCurve25519), nil)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	offersOne := fakeServer(t, "SSH-2.0-fake", kexInitOffering(sshkex.KeyExchangeMLKEM768X25519), nil) // and never answers
	for _, c := range []struct {
		name string
		args []string
		want int
		out  string // in stdout, or stderr if not in stdout
	}{
		{"accepts bad values", []string{"-timeout", "2s", garbage}, 1, "ek-modulus-first"},
		{"no hybrid offered", []string{noPQ}, 3, "offers none of the key exchanges checked"},
		{"connection refused", []string{closedAddr}, 3, "connection refused"}, // and nothing on stdout
		{"a method named is not offered", []string{"-timeout", "2s", "-kex", sshkex.KeyExchangeMLKEM1024NISTP384, offersOne}, 3, "the server does not offer mlkem1024nistp384-sha384"},
		// -timeout bounds each whole connection, the fake server's
		// identification line and KEXINIT too: 1 s, not less, so that a
		// loaded machine does not turn "hung" into "could not run".
		// Every case hangs after negotiating: the finding kex-silent,
		// packet-tampered's included (it could not run before).
		{"never answers", []string{"-timeout", "1s", offersOne}, 1, "28 cases: 0 conform, 25 do not conform, 0 could not run, 3 not applicable"},
		{"never answers: the finding", []string{"-timeout", "1s", "-case", "honest,packet-tampered", offersOne}, 1, "worst: medium kex-silent: the key exchange negotiated goes silent"},
		{"unknown method", []string{"-kex", "curve25519-sha256", garbage}, 2, "not a key exchange pqkex check knows"},
		{"no address", nil, 2, "usage: pqkex check"},
		{"both address and -listen", []string{"-listen", "127.0.0.1:0", garbage}, 2, "usage: pqkex check"},
		{"-listen not loopback", []string{"-listen", "192.0.2.1:22"}, 2, "not a loopback address"},
		{"-soak with -listen", []string{"-soak", "5", "-listen", "127.0.0.1:0"}, 2, "-soak N (N >= 0) applies to checking a server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := runCheck(append([]string{"-v"}, c.args...), &out, &errOut)
			if code != c.want {
				t.Errorf("exit %d, want %d\n%s\n%s", code, c.want, out.String(), errOut.String())
			}
			if !strings.Contains(out.String()+errOut.String(), c.out) {
				t.Errorf("output lacks %q:\n%s\n%s", c.out, out.String(), errOut.String())
			}
			if c.want != 0 && c.want != 1 && strings.Contains(out.String(), "METHOD") && strings.Contains(out.String(), "0 cases") {
				t.Errorf("an empty table on stdout:\n%s", out.String())
			}
		})
	}
}

// controlBytes returns the runes of s that a terminal could take for
// more than text (control bytes other than newline, invalid UTF-8,
// format controls): what a peer must not be able to send through check.
func controlBytes(s string) []rune {
	var bad []rune
	for _, r := range s {
		if r != '\n' && !strconv.IsPrint(r) {
			bad = append(bad, r)
		}
	}
	return bad
}

const hostile = "\x1b]0;pwned\x07\x1b[2J\r\nok  all cases conform\x9b"

// TestCheckHostileServer: a server's version line, algorithm names and
// disconnect messages reach stdout and stderr only escaped.
func TestCheckHostileServer(t *testing.T) {
	kexinit := kexInitOffering(sshkex.KeyExchangeMLKEM768X25519, "evil"+hostile)
	addr := fakeServer(t, "SSH-2.0-evil"+strings.ReplaceAll(hostile, "\r\n", ""), kexinit, func(p []byte) [][]byte {
		d := []byte{1, 0, 0, 0, 3}
		d = sshwire.AppendString(d, []byte(hostile+strings.Repeat("A", 100000)))
		return [][]byte{sshwire.AppendString([]byte{2}, []byte(hostile)), d}
	})
	for _, args := range [][]string{{"-v", "-timeout", "2s", addr}, {"-json", "-timeout", "2s", addr}} {
		var out, errOut bytes.Buffer
		code := runCheck(args, &out, &errOut)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (the honest exchange fails)", args, code)
		}
		if bad := controlBytes(out.String() + errOut.String()); len(bad) > 0 {
			t.Errorf("%v: control bytes %q reached the output:\n%s\n%s", args, bad, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), `\x1b]0;pwned`) {
			t.Errorf("%v: the disconnect message is not shown escaped:\n%s", args, out.String())
		}
		if len(out.String()) > 200000 {
			t.Errorf("%v: %d bytes of output: the 100 kB messages are not cut", args, out.Len())
		}
	}
}

// TestCheckListenGarbage: clients that send garbage, or nothing, run no
// case, are logged escaped, and the run ends after -idle with exit 3.
func TestCheckListenGarbage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	done := make(chan int)
	var out, errOut bytes.Buffer
	go func() {
		done <- runCheck([]string{"-listen", addr, "-idle", "2s", "-timeout", "1s", "-kex", sshkex.KeyExchangeMLKEM768NISTP256}, &out, &errOut)
	}()
	var c net.Conn
	for range 100 {
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte(hostile + "\r\n" + hostile + "\r\n"))
	c.Close()
	noCommon := "SSH-2.0-x" + strings.ReplaceAll(hostile, "\r\n", "") + "\r\n" + string(sshwire.PlainPacket(kexInitOffering(ssh.KeyExchangeCurve25519)))
	for _, junk := range []string{"SSH-2.0-x\r\n\xff\xff\xff\xff" + hostile, "SSH-2.0-x" + hostile + "\r\n\x00\x00\x00\x0c\x0a\x14" + hostile, noCommon, ""} {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Write([]byte(junk))
			time.Sleep(50 * time.Millisecond)
			c.Close()
		}
	}
	select {
	case code := <-done:
		if code != 3 {
			t.Errorf("exit %d, want 3 (no case ran)", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("check -listen did not end after -idle")
	}
	if bad := controlBytes(out.String() + errOut.String()); len(bad) > 0 {
		t.Errorf("control bytes %q reached the output:\n%s\n%s", bad, out.String(), errOut.String())
	}
	if n := strings.Count(errOut.String(), "no case ran"); n < 4 {
		t.Errorf("%d connections logged as running no case, want at least 4:\n%s", n, errOut.String())
	}
	if !strings.Contains(errOut.String(), `SSH-2.0-x\x1b]0;pwned`) {
		t.Errorf("the client's version line is not logged escaped:\n%s", errOut.String())
	}
	if !strings.Contains(out.String(), "23 cases: 0 conform, 0 do not conform, 23 could not run") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestCheckBaseline: a baseline accepts the findings it names (exit 0);
// a finding it does not name fails the check (exit 1), and so does an
// entry that matches nothing (a fixed finding still listed); the JUnit
// report counts the accepted findings as skipped and the others as
// failures; several servers give one combined status.
func TestCheckBaseline(t *testing.T) {
	garbage := fakeServer(t, "SSH-2.0-fake_1.0", kexInitOffering(sshkex.KeyExchangeMLKEM768X25519), func(p []byte) [][]byte {
		if p[0] == sshwire.MsgKexECDHInit {
			return [][]byte{sshwire.AppendKexECDHReply(nil, []byte("key"), make([]byte, 1120), []byte("sig"))}
		}
		return nil
	})
	good, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	check := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := runCheck(append([]string{"-timeout", "2s", "-kex", sshkex.KeyExchangeMLKEM768X25519}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := check("-write-baseline", base, garbage); code != 1 {
		t.Fatalf("exit %d without a baseline, want 1:\n%s", code, out)
	}
	written, err := os.ReadFile(base)
	if err != nil || !strings.Contains(string(written), "mlkem-ek-check mlkem768x25519-sha256 SSH-2.0-fake_1.0") {
		t.Fatalf("written baseline %q: %v", written, err)
	}
	junit := filepath.Join(dir, "report.xml")
	// The fake server fails honest, so packet-tampered cannot run: 3,
	// not 1, once its findings are accepted.
	if code, out := check("-baseline", base, "-junit", junit, garbage, good); code != 3 || strings.Contains(out, "FAIL") {
		t.Errorf("exit %d with the written baseline, want 3 (a case could not run) and no FAIL:\n%s", code, out)
	}
	if code, out := check("-baseline", base, good); code != 0 {
		t.Errorf("exit %d for a conforming server with a baseline whose entries are for another, want 0:\n%s", code, out)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	data, _ := os.ReadFile(junit)
	if err := xml.Unmarshal(data, &suites); err != nil || suites.Failures != 0 || suites.Skipped < 20 || len(suites.Suites) != 2 {
		t.Errorf("JUnit report: %+v, %v\n%s", suites, err, data)
	}
	lines := strings.Split(strings.TrimSpace(string(written)), "\n")
	var dropped []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "mlkem-ek-check") {
			dropped = append(dropped, l)
		}
	}
	os.WriteFile(base, []byte(strings.Join(dropped, "\n")+"\n"), 0o644)
	if code, out := check("-baseline", base, garbage); code != 1 || !strings.Contains(out, "mlkem-ek-check") {
		t.Errorf("exit %d with the modulus finding not accepted, want 1 naming it:\n%s", code, out)
	}
	os.WriteFile(base, append(written, "strict-kex * SSH-2.0-fake\n"...), 0o644)
	if code, out := check("-baseline", base, garbage); code != 1 || !strings.Contains(out, "match no finding") {
		t.Errorf("exit %d with a stale entry, want 1 saying so:\n%s", code, out)
	}
	os.WriteFile(base, []byte("no-such-finding\n"), 0o644)
	if code, out := check("-baseline", base, garbage); code != 2 {
		t.Errorf("exit %d with an unknown finding id, want 2:\n%s", code, out)
	}
}

// TestCheckCaseTranscript: -case runs exactly the cases it names (given
// twice, one a comma-separated list), -transcript writes each one's
// transcript, and -json names the tool and each transcript; a case that
// check does not run against a server is a usage error.
func TestCheckCaseTranscript(t *testing.T) {
	addr, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runCheck([]string{"-json", "-transcript", dir, "-case", "mlkem768x25519-sha256/packet-tampered",
		"-case", "sntrup761x25519-sha512/honest,mlkem768x25519-sha256/honest", addr}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	var rep struct {
		Tool    string
		Methods []string
		Results []conformance.Result
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, r := range rep.Results {
		ran = append(ran, r.Method+"/"+r.Case)
		data, err := os.ReadFile(r.Transcript)
		if err != nil || !strings.HasPrefix(string(data), "pqkex check transcript, format 1\n") ||
			!strings.Contains(string(data), "\ncase:     "+r.Case+"\n") || !strings.HasPrefix(r.Transcript, dir) {
			t.Errorf("%s %s: transcript %q: %v\n%.300s", r.Method, r.Case, r.Transcript, err, data)
		}
	}
	want := []string{"mlkem768x25519-sha256/honest", "mlkem768x25519-sha256/packet-tampered", "sntrup761x25519-sha512/honest"}
	if !slices.Equal(ran, want) || rep.Tool == "" || len(rep.Methods) != 2 {
		t.Errorf("ran %q (methods %q, tool %q), want %q", ran, rep.Methods, rep.Tool, want)
	}
	// The text output names the transcripts: -v's details, each case's,
	// and a root cause's row, its example's; within 100 columns.
	out.Reset()
	text := filepath.Join(dir, "text")
	runCheck([]string{"-v", "-transcript", text, "-case", "mlkem768x25519-sha256/honest,mlkem768x25519-sha256/x25519-0", addr}, &out, &errOut)
	flat := strings.Join(strings.Fields(out.String()), " ")           // a long path may be wrapped onto a line of its own
	for c, want := range map[string]int{"honest": 1, "x25519-0": 2} { // x25519-0: also its note's row
		line := "transcript: " + filepath.Join(text, "mlkem768x25519-sha256", c+".txt") + " "
		if n := strings.Count(flat, line); n != want {
			t.Errorf("-v -transcript: %d lines %q, want %d:\n%s", n, line, want, out.String())
		}
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if n := len([]rune(l)); n > textWidth {
			t.Errorf("-v -transcript: a line of %d columns: %q", n, l)
		}
	}
	for _, c := range []string{"sig-k-mpint", "mlkem768x25519-sha256/nosuch", "nosuch/honest"} {
		if code := runCheck([]string{"-case", c, addr}, &out, &errOut); code != 2 {
			t.Errorf("-case %s against a server: exit %d, want 2", c, code)
		}
	}
}
