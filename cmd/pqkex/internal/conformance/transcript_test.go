package conformance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/kexhash"
	"golang.org/x/crypto/ssh"
)

// tRecord is one record of a transcript, as docs/usage.md describes it.
type tRecord struct {
	conn int
	mark byte
	text string
	data []byte
}

var (
	recordLine = regexp.MustCompile(`^  \+(\d+\.\d{3}) ([<>=*]) (.+)$`)
	hexLine    = regexp.MustCompile(`^    ([0-9a-f]+)$`)
	connLine   = regexp.MustCompile(`^connection (\d+)  `)
	byteCount  = regexp.MustCompile(`(\d+) bytes`)
)

// parseTranscript reads a transcript: its header's fields and its
// records. It fails t on any line that is not of the format, on a record
// whose data is not the length its text states, and on any byte a
// terminal could take for more than text.
func parseTranscript(t *testing.T, path string) (map[string]string, []tRecord) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range string(data) {
		if r != '\n' && !strconv.IsPrint(r) {
			t.Fatalf("%s: unescaped %q", path, r)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600 (it holds the connection's secrets): %v", path, fi.Mode(), err)
	}
	header := map[string]string{}
	var recs []tRecord
	conn := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	first := true
	for sc.Scan() {
		l := sc.Text()
		switch {
		case first:
			if l != transcriptFormat {
				t.Fatalf("%s: first line %q", path, l)
			}
			first = false
		case conn == 0 && l != "" && !connLine.MatchString(l):
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				t.Fatalf("%s: header line %q", path, l)
			}
			header[k] = strings.TrimSpace(v)
		case l == "":
		case connLine.MatchString(l):
			conn, _ = strconv.Atoi(connLine.FindStringSubmatch(l)[1])
		case recordLine.MatchString(l):
			m := recordLine.FindStringSubmatch(l)
			recs = append(recs, tRecord{conn: conn, mark: m[2][0], text: m[3]})
		case hexLine.MatchString(l):
			b, err := hex.DecodeString(hexLine.FindStringSubmatch(l)[1])
			if err != nil || len(recs) == 0 {
				t.Fatalf("%s: hex line %q: %v", path, l, err)
			}
			recs[len(recs)-1].data = append(recs[len(recs)-1].data, b...)
		default:
			t.Fatalf("%s: line %q is not of the format", path, l)
		}
	}
	for _, r := range recs {
		if m := byteCount.FindStringSubmatch(r.text); m != nil {
			if n, _ := strconv.Atoi(m[1]); n != len(r.data) {
				t.Errorf("%s: record %q has %d bytes of data", path, r.text, len(r.data))
			}
		} else if len(r.data) > 0 {
			t.Errorf("%s: record %q states no length", path, r.text)
		}
	}
	return header, recs
}

// messages are the message records of connection conn: the mark and
// the message's name ("> SSH_MSG_KEXINIT").
func messages(recs []tRecord, conn int) []string {
	var out []string
	for _, r := range recs {
		if r.conn != conn || r.mark == '=' || r.mark == '*' {
			continue
		}
		f := strings.Fields(r.text)
		switch {
		case f[0] == "identification":
			out = append(out, string(r.mark)+" version")
		case f[0] == "packet":
			out = append(out, string(r.mark)+" "+f[3])
		}
	}
	return out
}

// find is the data of connection conn's first record with mark and a
// text starting with prefix.
func find(t *testing.T, recs []tRecord, conn int, mark byte, prefix string) []byte {
	t.Helper()
	for _, r := range recs {
		if r.conn == conn && r.mark == mark && strings.HasPrefix(r.text, prefix) {
			return r.data
		}
	}
	t.Fatalf("connection %d has no record %c %s", conn, mark, prefix)
	return nil
}

// packetOf is the payload of connection conn's first packet record with
// mark whose message is name.
func packetOf(t *testing.T, recs []tRecord, conn int, mark byte, name string) []byte {
	t.Helper()
	for _, r := range recs {
		if f := strings.Fields(r.text); r.conn == conn && r.mark == mark && f[0] == "packet" && f[3] == name {
			return r.data
		}
	}
	t.Fatalf("connection %d has no packet %c %s", conn, mark, name)
	return nil
}

// checkExchange recomputes, from the transcript of connection conn
// alone, K from K_PQ and K_CL and H from the messages, and checks that
// they are the K and H recorded, that the host key signature in the
// reply verifies over H, and that each direction's recorded keys are
// those of K and H (RFC 4253 §7.2). vc and vs say which identification
// line is the client's (mark).
func checkExchange(t *testing.T, m *method, recs []tRecord, conn int, client byte) {
	t.Helper()
	server := byte('<')
	if client == '<' {
		server = '>'
	}
	line := func(mark byte) []byte {
		return bytes.TrimSuffix(find(t, recs, conn, mark, "identification line"), []byte("\r\n"))
	}
	vc, vs := line(client), line(server)
	ic, is := packetOf(t, recs, conn, client, "SSH_MSG_KEXINIT"), packetOf(t, recs, conn, server, "SSH_MSG_KEXINIT")
	qc, err := sshwire.ParseKexECDHInit(packetOf(t, recs, conn, client, "SSH_MSG_KEX_ECDH_INIT"))
	if err != nil {
		t.Fatal(err)
	}
	ks, qs, sigBlob, err := sshwire.ParseKexECDHReply(packetOf(t, recs, conn, server, "SSH_MSG_KEX_ECDH_REPLY"))
	if err != nil {
		t.Fatal(err)
	}
	d := m.hash.New()
	d.Write(find(t, recs, conn, '=', "K_PQ "))
	d.Write(find(t, recs, conn, '=', "K_CL "))
	k := kexhash.String(d.Sum(nil))
	if got := find(t, recs, conn, '=', "K = "); !bytes.Equal(got, k) {
		t.Errorf("recorded K %x, HASH(K_PQ || K_CL) of the recorded halves %x", got, k)
	}
	H := kexhash.ExchangeHash(m.hash, vc, vs, ic, is, ks, qc, qs, k)
	if got := find(t, recs, conn, '=', "H "); !bytes.Equal(got, H) {
		t.Errorf("recorded H %x, H of the recorded messages %x", got, H)
	}
	pub, err := ssh.ParsePublicKey(ks)
	if err != nil {
		t.Fatal(err)
	}
	var sig ssh.Signature
	if err := ssh.Unmarshal(sigBlob, &sig); err != nil {
		t.Fatal(err)
	}
	if err := pub.Verify(H, &sig); err != nil {
		t.Errorf("the recorded reply's signature does not verify over the H of the recorded messages: %v", err)
	}
	// The keys of each direction, under the names and letters of RFC
	// 4253 §7.2: derived from the recorded K and H.
	for _, key := range []struct {
		name   string
		letter byte
	}{{"client to server IV (A)", 'A'}, {"server to client IV (B)", 'B'}, {"client to server encryption key (C)", 'C'},
		{"server to client encryption key (D)", 'D'}, {"client to server MAC key (E)", 'E'}, {"server to client MAC key (F)", 'F'}} {
		got := find(t, recs, conn, '=', key.name+" ")
		if want := kexhash.DeriveKey(m.hash, k, H, H, key.letter, len(got)); !bytes.Equal(got, want) {
			t.Errorf("recorded %s %x, derived from the recorded K and H %x", key.name, got, want)
		}
	}
}

// secretsKeptOut fails t if any value recorded as derived appears in
// what the result carries (JSON, as check prints it).
func secretsKeptOut(t *testing.T, recs []tRecord, results ...Result) {
	t.Helper()
	out, err := json.Marshal(results)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.mark == '=' && len(r.data) >= 16 && (bytes.Contains(out, []byte(hex.EncodeToString(r.data))) || bytes.Contains(out, r.data)) {
			t.Errorf("the derived %s appears in the result", r.text)
		}
	}
}

// TestTranscriptServer: the transcript of a case against a simulated
// server holds the messages in order with their lengths, and values from
// which K, H, the signature and the packet keys check out; the forged
// packet of packet-tampered opens, under the recorded keys, once its bit
// is flipped back.
func TestTranscriptServer(t *testing.T) {
	addr := simServer(t, honestPeer)
	for _, m := range []*method{methods[0], methods[4]} {
		dir := t.TempDir()
		s := &serverChecker{opts: ServerOptions{Addr: addr, Timeout: 10 * time.Second, TranscriptDir: dir, Tool: "pqkex test"}}
		d := &net.Dialer{Timeout: 5 * time.Second}
		s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
		for _, cs := range serverCases(m) {
			if cs.id != "honest" && cs.id != "packet-tampered" {
				continue
			}
			r := s.run(context.Background(), m, cs)
			if r.Transcript == "" {
				t.Fatalf("%s %s: no transcript", m.name, cs.id)
			}
			header, recs := parseTranscript(t, r.Transcript)
			for k, want := range map[string]string{"tool": "pqkex test", "method": m.name, "case": cs.id, "clause": cs.clause,
				"verdict": r.Observed() + ", conforms", "secrets": transcriptSecrets, "peer": addr} {
				if header[k] != want {
					t.Errorf("%s %s: header %s %q, want %q", m.name, cs.id, k, header[k], want)
				}
			}
			last := r.Attempts
			want := []string{"> version", "< version", "> SSH_MSG_KEXINIT", "< SSH_MSG_KEXINIT", "> SSH_MSG_KEX_ECDH_INIT",
				"< SSH_MSG_KEX_ECDH_REPLY", "> SSH_MSG_NEWKEYS", "< SSH_MSG_NEWKEYS", "> SSH_MSG_SERVICE_REQUEST"}
			if cs.id == "honest" {
				want = append(want, "< SSH_MSG_SERVICE_ACCEPT", "> SSH_MSG_DISCONNECT")
			} else {
				want = append(want, "< SSH_MSG_DISCONNECT")
			}
			if got := messages(recs, last); !slices.Equal(got, want) {
				t.Errorf("%s %s: connection %d's messages\n%q\nwant\n%q", m.name, cs.id, last, got, want)
			}
			checkExchange(t, m, recs, last, '>')
			secretsKeptOut(t, recs, r)
			if cs.id == "packet-tampered" {
				checkTampered(t, recs, last)
			}
		}
	}
}

// checkTampered opens the tampered packet as sent, its MAC's last bit
// flipped back, with the recorded client-to-server keys themselves
// (aes256-ctr and hmac-sha2-256, as the simulated server negotiates):
// its MAC must verify and its payload be the one recorded.
func checkTampered(t *testing.T, recs []tRecord, conn int) {
	t.Helper()
	var seq uint32
	var payload []byte
	for _, r := range recs {
		if f := strings.Fields(r.text); r.conn == conn && r.mark == '>' && f[0] == "packet" && strings.Contains(r.text, "MAC flipped") {
			n, _ := strconv.Atoi(f[1])
			seq, payload = uint32(n), r.data
		}
	}
	if !slices.ContainsFunc(recs, func(r tRecord) bool {
		return r.conn == conn && r.text == "keys client to server: aes256-ctr + hmac-sha2-256, from K, H and the session id, which is H (RFC 4253 §7.2)"
	}) {
		t.Fatal("the keys client to server are not aes256-ctr + hmac-sha2-256 as recorded")
	}
	wire := slices.Clone(find(t, recs, conn, '>', "that packet as sent"))
	wire[len(wire)-1] ^= 1
	body, tag := wire[:len(wire)-sha256.Size], wire[len(wire)-sha256.Size:]
	block, err := aes.NewCipher(find(t, recs, conn, '=', "client to server encryption key (C) "))
	if err != nil {
		t.Fatal(err)
	}
	plain := make([]byte, len(body))
	cipher.NewCTR(block, find(t, recs, conn, '=', "client to server IV (A) ")).XORKeyStream(plain, body)
	mac := hmac.New(sha256.New, find(t, recs, conn, '=', "client to server MAC key (E) "))
	mac.Write(binary.BigEndian.AppendUint32(nil, seq))
	mac.Write(plain)
	if !hmac.Equal(mac.Sum(nil), tag) {
		t.Fatal("the repaired packet's MAC does not verify under the recorded MAC key")
	}
	if n := int(binary.BigEndian.Uint32(plain)); n+4 != len(plain) || 5+len(payload) > len(plain) || !bytes.Equal(plain[5:5+len(payload)], payload) {
		t.Errorf("the repaired packet %x does not carry the recorded payload %x", plain, payload)
	}
}

// TestTranscriptClient: the same of a case against a simulated client
// whose identification line carries terminal controls, which the
// transcript shows escaped (and as hex).
func TestTranscriptClient(t *testing.T) {
	m := methods[1]
	ident := "SSH-2.0-sim\x1b]0;pwned\x07\x1b[2J"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { simClients(ln.Addr().String(), honestPeer, []string{m.name}, ident, 0, stop); close(done) }()
	defer func() { close(stop); <-done }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Timeout: 10 * time.Second, TranscriptDir: dir, Tool: "pqkex test",
		Cases: []string{m.name + "/honest", m.name + "/x25519-0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want the 2 cases selected: %+v", len(rep.Results), rep.Results)
	}
	for _, r := range rep.Results {
		if r.Transcript == "" {
			t.Fatalf("%s: no transcript", r.Case)
		}
		header, recs := parseTranscript(t, r.Transcript)
		if header["peer"] != r.Peer || !strings.Contains(header["peer"], `\x1b]0;pwned\a\x1b[2J`) {
			t.Errorf("%s: header peer %q, result's %q", r.Case, header["peer"], r.Peer)
		}
		if got := bytes.TrimSuffix(find(t, recs, 1, '<', "identification line"), []byte("\r\n")); string(got) != ident {
			t.Errorf("%s: the client's line recorded as %q", r.Case, got)
		}
		want := []string{"> version", "< version", "> SSH_MSG_KEXINIT", "< SSH_MSG_KEXINIT", "< SSH_MSG_KEX_ECDH_INIT",
			"> SSH_MSG_KEX_ECDH_REPLY", "> SSH_MSG_NEWKEYS"}
		if r.Case == "honest" {
			want = append(want, "< SSH_MSG_NEWKEYS", "< SSH_MSG_SERVICE_REQUEST", "> SSH_MSG_SERVICE_ACCEPT", "< SSH_MSG_USERAUTH_REQUEST", "> SSH_MSG_DISCONNECT")
			checkExchange(t, m, recs, 1, '<')
		} else {
			want = append(want, "< SSH_MSG_DISCONNECT")
		}
		if got := messages(recs, 1); !slices.Equal(got, want) {
			t.Errorf("%s: messages\n%q\nwant\n%q", r.Case, got, want)
		}
		secretsKeptOut(t, recs, r)
	}
}

// TestParseCases: -case names a case as METHOD/CASE or CASE, in the
// role's cases of the methods -kex gives, the soak only with -soak; it
// gives the methods named. A selection that would run nothing is an
// error, not a run that blames the peer.
func TestParseCases(t *testing.T) {
	const x25519, p384 = "mlkem768x25519-sha256", "mlkem1024nistp384-sha384"
	for _, c := range []struct {
		sel     []string
		server  bool
		within  []string
		soak    bool
		methods []string
		err     bool
	}{
		{[]string{x25519 + "/packet-tampered"}, true, nil, false, []string{x25519}, false},
		{[]string{p384 + "/honest", x25519 + "/honest"}, false, nil, false, []string{x25519, p384}, false},
		{[]string{"packet-tampered"}, true, nil, false, nil, false},
		{[]string{"sig-k-mpint"}, true, nil, false, nil, true},                             // a client case
		{[]string{"sntrup761x25519-sha512/ek-modulus-first"}, true, nil, false, nil, true}, // not of sntrup761
		{[]string{"nosuch/honest"}, false, nil, false, nil, true},
		{[]string{x25519 + "/honest"}, true, []string{p384}, false, nil, true},                     // -kex leaves it out
		{[]string{"ek-modulus-first"}, true, []string{"sntrup761x25519-sha512"}, false, nil, true}, // in no method of -kex
		{[]string{"honest"}, true, []string{p384}, false, nil, false},
		{[]string{x25519 + "/honest"}, true, []string{x25519, p384}, false, []string{x25519}, false},
		{[]string{"soak"}, true, nil, false, nil, true}, // no -soak
		{[]string{x25519 + "/soak"}, true, nil, false, nil, true},
		{[]string{x25519 + "/soak"}, true, nil, true, []string{x25519}, false},
	} {
		got, err := ParseCases(c.sel, c.server, c.within, c.soak)
		if (err != nil) != c.err || !slices.Equal(got, c.methods) {
			t.Errorf("ParseCases(%q, %v, %q, %v) = %q, %v; want %q, error %v", c.sel, c.server, c.within, c.soak, got, err, c.methods, c.err)
		}
	}
}

// TestTranscriptRawBytes: what is not a valid packet is recorded as the
// raw bytes read, with the error escaped; a packet cut by the deadline
// too.
func TestTranscriptRawBytes(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	rec := newRecorder()
	c := newConn(a)
	rec.attach(c, "pipe")
	junk := []byte("\xff\xff\xff\xff\x1b[2J")
	go b.Write(junk)
	a.SetReadDeadline(time.Now().Add(5 * time.Second))
	if ev := c.next(false); ev.kind != evMalformed {
		t.Fatalf("junk read as %s", describe(ev))
	}
	half := sshwire.PlainPacket(serviceRequestMsg)[:7]
	c2 := newConn(b)
	rec.attach(c2, "pipe, the other way")
	go a.Write(half)
	b.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if ev := c2.next(false); ev.kind != evTimeout {
		t.Fatalf("half a packet read as %s", describe(ev))
	}
	dir := t.TempDir()
	path, err := rec.write(dir, transcriptInfo{tool: "test", role: "test", peer: "pipe"}, &Result{Method: "m", Case: "c", Verdict: Malformed})
	if err != nil {
		t.Fatal(err)
	}
	_, recs := parseTranscript(t, path)
	if got := find(t, recs, 1, '<', "not a packet: packet length 4294967295 exceeds"); !bytes.Equal(got, junk[:5]) {
		t.Errorf("the junk recorded as %x, want the 5 bytes of a packet header read, %x", got, junk[:5])
	}
	if got := find(t, recs, 2, '<', "nothing more before the deadline"); !bytes.Equal(got, half) {
		t.Errorf("the half packet recorded as %x, want %x", got, half)
	}
}

// TestTranscriptFileReplaced: a transcript holds check's secrets of its
// connection, so the file it writes has mode 0600 even where a file of
// an earlier run had another mode, and a symbolic link planted at its
// path is replaced, never written through.
func TestTranscriptFileReplaced(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and symbolic links are POSIX's")
	}
	dir := t.TempDir()
	info := transcriptInfo{tool: "test", role: "test", peer: "pipe"}
	if err := os.MkdirAll(filepath.Join(dir, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "m", "old.txt")
	if err := os.WriteFile(old, []byte("an earlier run"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("not check's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "m", "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"old", "link"} {
		path, err := newRecorder().write(dir, info, &Result{Method: "m", Case: c, Verdict: Completed})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want a regular file of mode 0600", c, st.Mode())
		}
		if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, []byte(transcriptFormat)) {
			t.Errorf("%s: the file does not hold the transcript: %q", c, b)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "not check's" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestTranscriptSoakKeepsLast: a soak's transcript holds its last
// exchange only, not one connection's secrets per exchange.
func TestTranscriptSoakKeepsLast(t *testing.T) {
	addr := simServer(t, honestPeer)
	m := methods[0]
	s := &serverChecker{opts: ServerOptions{Addr: addr, Timeout: 10 * time.Second, TranscriptDir: t.TempDir(), Tool: "pqkex test"}}
	d := &net.Dialer{Timeout: 5 * time.Second}
	s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	r := s.run(context.Background(), m, soakCase(m, 5))
	if r.Verdict != Completed || r.Attempts != 5 || r.Transcript == "" {
		t.Fatalf("soak of 5: %s after %d connections, transcript %q", r.Observed(), r.Attempts, r.Transcript)
	}
	b, err := os.ReadFile(r.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\nconnection "); n != 1 {
		t.Errorf("the soak's transcript holds %d connections, want the last one", n)
	}
	if !strings.Contains(string(b), "* soak exchange 5;") {
		t.Errorf("the soak's transcript does not say it is exchange 5:\n%s", b)
	}
}
