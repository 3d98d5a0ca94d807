package main

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/sshkex"
)

// TestScanClassicalKexAgainstPQServer: scan -kex with only a classical
// method against a server that offers post-quantum key exchange exits 0
// and says the server has it (not that it needs an upgrade).
func TestScanClassicalKexAgainstPQServer(t *testing.T) {
	addr, _ := startTestServer(t, sshkex.RecommendedKeyExchanges())
	var out, errOut bytes.Buffer
	code := runScan([]string{"-kex", ssh.KeyExchangeCurve25519, addr}, &out, &errOut)
	if code != 0 || strings.Contains(errOut.String(), "upgraded") || !strings.Contains(errOut.String(), "offers post-quantum key exchange") {
		t.Errorf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
}
