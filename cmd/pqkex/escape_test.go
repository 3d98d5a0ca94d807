package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/sshtest"
)

// plainPacket frames payload as a cleartext SSH binary packet (RFC 4253
// section 6: no MAC, padding to a multiple of 8, at least 4 bytes).
func plainPacket(payload []byte) []byte {
	pad := 8 - (5+len(payload))%8
	if pad < 4 {
		pad += 8
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)+pad))
	out = append(out, byte(pad))
	out = append(out, payload...)
	return append(out, make([]byte, pad)...)
}

// kexinit returns a cleartext SSH_MSG_KEXINIT packet (RFC 4253 sections 6
// and 7.1) offering kex as its key exchange name-list.
func kexinit(kex string) []byte {
	return plainPacket(sshwire.AppendKexInit(nil, &sshwire.KexInit{
		KexAlgos: []string{kex}, HostKeyAlgos: []string{"ssh-ed25519"},
		CiphersC2S: []string{"aes128-ctr"}, CiphersS2C: []string{"aes128-ctr"},
		MACsC2S: []string{"hmac-sha2-256"}, MACsS2C: []string{"hmac-sha2-256"},
		CompressionC2S: []string{"none"}, CompressionS2C: []string{"none"},
	}))
}

// disconnect returns a cleartext SSH_MSG_DISCONNECT packet (RFC 4253
// section 11.1) with reason code 11 (by application) and msg.
func disconnect(msg string) []byte {
	p := binary.BigEndian.AppendUint32([]byte{1}, 11)
	p = sshwire.AppendString(p, []byte(msg))
	return plainPacket(sshwire.AppendString(p, nil))
}

// forged is terminal input a hostile peer or file name sends: it clears
// the screen, sets the window title, returns to the start of the line,
// prints a fake verdict, reverses the text direction, and breaks the line
// in every way Unicode and the C0 and C1 sets allow.
const forged = "\x1b[2J\x1b]0;owned\a\r\nok    selected    mlkem768x25519-sha256 \u202e\u2028\u0085\u009b31m\x7f\x00"

// forgedVersion is forged as the rest of an identification line, which
// ends at the first line feed.
var forgedVersion = strings.ReplaceAll(forged, "\n", "")

// noControl fails the test if out holds anything but printable runes and
// line ends.
func noControl(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not valid UTF-8: %q", what, out)
	}
	for _, r := range out {
		if r != '\n' && !strconv.IsPrint(r) {
			t.Errorf("%s holds %U: %q", what, r, out)
			return
		}
	}
}

// hostileServer listens on loopback and answers every connection with an
// identification line, the KEXINIT of kexinit(kex) and, if msg is not
// empty, an SSH_MSG_DISCONNECT carrying msg.
func hostileServer(t *testing.T, version, kex, msg string) string {
	t.Helper()
	return sshtest.Serve(t, func(c net.Conn) {
		out := append([]byte(version+"\r\n"), kexinit(kex)...)
		if msg != "" {
			out = append(out, disconnect(msg)...)
		}
		c.Write(out)
		io.Copy(io.Discard, c) // until the client is done
	})
}

// TestScanHostileServer: a server's version line, algorithm names and
// disconnect message full of terminal escapes reach neither stdout nor
// stderr raw; the escaped text is still there to read.
func TestScanHostileServer(t *testing.T) {
	for _, tc := range []struct {
		name, version, kex, msg string
		code                    int
		stdout, stderr          string
	}{
		{"no key exchange in common", "SSH-2.0-evil" + forgedVersion, "nope" + forged + ",x" + forged, "",
			1, `server      127.0.0.1:`, `pqkex scan: no key exchange in common with the server (it offers "nope\x1b[2J\x1b]0;owned\a\r\nok`},
		{"disconnect message", "SSH-2.0-evil", "mlkem768x25519-sha256", "bye" + forged,
			1, `PQ  mlkem768x25519-sha256`, `pqkex scan: key exchange mlkem768x25519-sha256 failed: "ssh: handshake failed: ssh: disconnect, reason 11: bye\x1b[2J\x1b]0;owned\a\r\nok`},
		{"long disconnect message", "SSH-2.0-evil", "mlkem768x25519-sha256", strings.Repeat(forged, 2000),
			1, `PQ  mlkem768x25519-sha256`, `bytes)`},
		{"not SSH 2.0", "SSH-1.5-evil" + forgedVersion, "", "", 1, "", `pqkex scan: server speaks "SSH-1.5-evil\x1b[2J`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := hostileServer(t, tc.version, tc.kex, tc.msg)
			var out, errOut bytes.Buffer
			code := runScan([]string{"-timeout", "5s", addr}, &out, &errOut)
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%.600s", code, out.String(), errOut.String())
			noControl(t, "stdout", out.String())
			noControl(t, "stderr", errOut.String())
			// stderr is wrapped at spaces to 100 columns.
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), tc.stderr) {
				t.Errorf("exit %d, want %d; want stdout to hold %s and stderr %s", code, tc.code, tc.stdout, tc.stderr)
			}
			if errOut.Len() > 2048 {
				t.Errorf("stderr has %d bytes", errOut.Len())
			}
		})
	}
}

// TestKATHostileFileName: a vector file whose name forges an "ok" line
// and terminal escapes, in a directory with a name as bad, is listed
// escaped, and so is the failure of a file whose contents hold them; no
// line holds a control byte.
func TestKATHostileFileName(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("control bytes in file names")
	}
	bad := "x\x1b[2J\rok    vectors.json  ssh-mlkem768x25519-sha256  32 vectors\n\u202e"
	// A file whose first edge case fails (its verdict flipped) and has
	// the forged text as its comment, which the failure quotes.
	var f map[string]any
	if err := json.Unmarshal(bundledFile(t, "mlkem768x25519-sha256_openssh.json"), &f); err != nil {
		t.Fatal(err)
	}
	edge := f["invalid_and_edge_tests"].([]any)[0].(map[string]any)
	edge["comment"], edge["result"] = forged, "accept"
	hostile, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := katWriteDir(t, map[string][]byte{
		bad + ".json":           bundledFile(t, "mlkem768x25519-sha256_openssh.json"),
		bad + "/notes.txt":      []byte("hello\n"),
		"broken" + bad + ".rsp": []byte("# sntrup761\ncount = 0\nseed = 00\n"),
		"contents.json":         hostile,
	})
	var stdout, stderr bytes.Buffer
	code := runKAT([]string{"-dir", dir}, &stdout, &stderr)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	noControl(t, "stdout", stdout.String())
	noControl(t, "stderr", stderr.String())
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	want := sshwire.Printable(filepath.Join(dir, bad+".json"), 0)
	if code != 1 || len(lines) != 5 || !katHasLine(lines, "ok    "+want+"  ssh-mlkem768x25519-sha256  32 vectors") ||
		!katHasLine(lines, "FAIL  "+filepath.Join(dir, "contents.json")+"  ssh-mlkem768x25519-sha256  1 of 32 failed: first failure ", `\x1b[2J\x1b]0;owned\a\r\nok`) {
		t.Errorf("exit %d, want 1 (the broken files); want 5 lines, one of them %q and one the FAIL line of contents.json", code, "ok    "+want)
	}
	if _, err := os.Stat(filepath.Join(dir, bad+".json")); err != nil {
		t.Fatal(err)
	}
}
