package examples

import (
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
)

// upstream9Kex is the KexAlgorithms default of upstream OpenSSH 9.0 to
// 9.8: sntrup761 under its @openssh.com name only, no ML-KEM method.
const upstream9Kex = "sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org," +
	"ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256," +
	"diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,diffie-hellman-group14-sha256"

// TestClientWithSSHD runs the x/crypto client example (sshkex.Register,
// KeyExchanges left empty) against OpenSSH's sshd, logging in as root
// with public-key auth and a strict host key check. The negotiated method
// is read from sshd's own log ("debug1: kex: algorithm: NAME [preauth]")
// and must be what the client printed.
func TestClientWithSSHD(t *testing.T) {
	for _, tc := range []struct {
		name, kind, env string
		kex             string // sshd's KexAlgorithms; "" for its default
		want            string
	}{
		// The OpenSSH 9.0-9.8 case: a server that knows sntrup761 by its
		// @openssh.com name only.
		{"openssh10 offering only sntrup761x25519-sha512@openssh.com", "openssh10", "PQKEX_OPENSSH10_SSHD", sntrupAlias, sntrupAlias},
		{"openssh10 offering upstream 9.0-9.8's defaults", "openssh10", "PQKEX_OPENSSH10_SSHD", upstream9Kex, sntrupAlias},
		{"openssh92 offering upstream 9.0-9.8's defaults", "openssh92", "PQKEX_OPENSSH92_SSHD", upstream9Kex, sntrupAlias},
		{"openssh92 default", "openssh92", "PQKEX_OPENSSH92_SSHD", "", sntrup},
		{"openssh10 default", "openssh10", "PQKEX_OPENSSH10_SSHD", "", mlkem},
		{"openssh106 offering only mlkem768nistp256-sha256", "openssh106", "PQKEX_OPENSSH106_SSHD", nistp256, nistp256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needPeer(t, tc.env)
			sshd := startLoginSSHD(t, tc.kind, tc.kex)

			out := sshd.login(t, "client", "-addr", sshd.Addr)
			if got := strings.TrimSpace(out); got != "kex="+tc.want {
				t.Errorf("the client printed %q, want kex=%s", got, tc.want)
			}
			proof, err := peertest.WaitLogLine(sshd.Log, func(l string) bool { return l == "debug1: kex: algorithm: "+tc.want+" [preauth]" })
			if err != nil {
				t.Fatal(err)
			}
			login, err := peertest.WaitLogLine(sshd.Log, func(l string) bool { return strings.HasPrefix(l, "Accepted publickey for root from 127.0.0.1") })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("TABLE | client | %s | %s | %s |", tc.kind, offerName(tc.kex), tc.want)
			t.Logf("sshd: %q, %q", proof, login)
		})
	}
}

func offerName(kex string) string {
	switch kex {
	case "":
		return "default"
	case upstream9Kex:
		return "upstream 9.0-9.8 defaults"
	}
	return "only " + kex
}
