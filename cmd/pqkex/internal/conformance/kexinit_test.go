package conformance

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
)

// A marker in the key exchange list is never negotiated, even when both
// sides list it: a client of check -listen that put the strict key
// exchange server marker first once made serveCase index its queue at -1
// (found by CI's fuzz smoke on the client-stream target; its reproducer is
// testdata/fuzz/*/strict-marker-as-kex).
func TestNegotiateSkipsMarkers(t *testing.T) {
	m := methods[0]
	server := newKexInit([]string{m.name, strictServer}, clientHostKeyAlgos)
	for _, marker := range []string{strictServer, strictClient, "ext-info-c", "ext-info-s"} {
		server.KexAlgos = []string{m.name, strictServer, strictClient, "ext-info-c", "ext-info-s"}
		client := newKexInit([]string{marker, m.name}, clientHostKeyAlgos)
		a, err := negotiate(client, server)
		if err != nil || a.kex != m.name {
			t.Errorf("client offering %s first: negotiated %q, %v; want %s", marker, a.kex, err, m.name)
		}
		client.KexAlgos = []string{marker}
		if a, err := negotiate(client, server); err == nil {
			t.Errorf("client offering only %s: negotiated %q, want no key exchange in common", marker, a.kex)
		}
	}
}

func TestServeCaseClientOffersOnlyMarker(t *testing.T) {
	m := methods[0]
	var queue []pending
	for _, cs := range clientCases(m) {
		queue = append(queue, pending{m, cs})
	}
	ki := newKexInit([]string{strictServer, strictClient}, clientHostKeyAlgos)
	stream := append([]byte("SSH-2.0-fuzz\r\n"), packets(sshwire.AppendKexInit(nil, ki))...)
	idx, _, line := serveCase(replayConn{bytes.NewReader(stream)}, newSchedule(queue), fuzzKeys(), time.Second, nil)
	if idx != -1 || !strings.Contains(line, "no key exchange in common") {
		t.Fatalf("serveCase = %d, %q; want no case, no key exchange in common", idx, line)
	}
}
