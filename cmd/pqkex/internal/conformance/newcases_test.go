package conformance

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCInitReadings: a server that takes a wrong-length C_INIT is told
// apart by the reading its signature verifies under: the C_INIT it was
// sent, or the one it used (zero-extended, or cut to length); the honest
// server refuses both.
func TestCInitReadings(t *testing.T) {
	m := methods[0]
	for _, c := range []struct {
		d    defect
		want map[string]string
	}{
		{srvLenSent, map[string]string{"c-init-short": "hashed C_INIT as sent", "c-init-long": "hashed C_INIT as sent"}},
		{srvLenUsed, map[string]string{"c-init-short": "hashed C_INIT as it used it, zero-extended", "c-init-long": "hashed C_INIT as it used it, cut to its length"}},
	} {
		for _, r := range checkSimServer(simServer(t, c.d), m, []string{"c-init-short", "c-init-long"}) {
			if r.Verdict != Replied || !strings.Contains(r.Detail, "its signature verifies over H with the honest K: the server "+c.want[r.Case]) {
				t.Errorf("%s: %s: %s: %s, want replied and the reading %q", c.d, r.Case, r.Observed(), r.Detail, c.want[r.Case])
			}
		}
	}
}

// TestTranscriptNewCases: the transcripts of the re-exchange (a
// simulated server's, check starting it) and of a leading-zero case (a
// simulated client's) hold both exchanges' messages, the second keys'
// derivation from the first H as session identifier, and keep every
// value they record out of the result.
func TestTranscriptNewCases(t *testing.T) {
	m := methods[0]
	dir := t.TempDir()
	s := &serverChecker{opts: ServerOptions{Addr: simServer(t, honestPeer), Timeout: 10 * time.Second, TranscriptDir: dir, Tool: "pqkex test"}}
	s.opts.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return net.Dial("tcp", addr) }
	for _, cs := range serverCases(m) {
		if cs.id != "rekey" {
			continue
		}
		r := s.run(context.Background(), m, cs)
		if r.Verdict != Completed || r.Transcript == "" {
			t.Fatalf("rekey: %s: %s (transcript %q)", r.Observed(), r.Detail, r.Transcript)
		}
		_, recs := parseTranscript(t, r.Transcript)
		want := []string{"> version", "< version", "> SSH_MSG_KEXINIT", "< SSH_MSG_KEXINIT", "> SSH_MSG_KEX_ECDH_INIT",
			"< SSH_MSG_KEX_ECDH_REPLY", "> SSH_MSG_NEWKEYS", "< SSH_MSG_NEWKEYS", "> SSH_MSG_KEXINIT", "< SSH_MSG_KEXINIT",
			"> SSH_MSG_KEX_ECDH_INIT", "< SSH_MSG_KEX_ECDH_REPLY", "> SSH_MSG_NEWKEYS", "< SSH_MSG_NEWKEYS",
			"> SSH_MSG_SERVICE_REQUEST", "< SSH_MSG_SERVICE_ACCEPT", "> SSH_MSG_DISCONNECT"}
		if got := messages(recs, 1); !slices.Equal(got, want) {
			t.Errorf("rekey: messages\n%q\nwant\n%q", got, want)
		}
		if !slices.ContainsFunc(recs, func(r tRecord) bool { return strings.Contains(r.text, "from K, H and the session id below") }) {
			t.Error("rekey: the second keys are not recorded as derived with the first H as session id")
		}
		secretsKeptOut(t, recs, r)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { simClients(ln.Addr().String(), honestPeer, []string{m.name}, simIdent, 0, stop); close(done) }()
	defer func() { close(stop); <-done }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Timeout: 10 * time.Second, TranscriptDir: t.TempDir(), Tool: "pqkex test",
		Cases: []string{m.name + "/k-cl-00", m.name + "/rekey-by-client"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Verdict != Completed || r.Transcript == "" {
			t.Fatalf("%s: %s: %s", r.Case, r.Observed(), r.Detail)
		}
		_, recs := parseTranscript(t, r.Transcript)
		if r.Case == "k-cl-00" && find(t, recs, 1, '=', "K_CL ")[0] != 0 {
			t.Error("k-cl-00: the K_CL recorded does not start with 00")
		}
		secretsKeptOut(t, recs, r)
	}
}
