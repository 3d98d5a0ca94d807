package kat

import (
	"crypto/fips140"
	"testing"
)

// TestWycheproofDH checks how Wycheproof's X25519, P-256 and P-384 cases
// are used: valid, rejected, without an SSH form (raw points, the form SSH
// carries, and the points of the DER files). The KEM backend plays no
// part in the curve's checks, so only the public API runs them: in
// vectors.TestBundled, and here in FIPS 140-3 mode (where .ci/run reruns
// this package and not vectors); otherwise the cases are only counted.
func TestWycheproofDH(t *testing.T) {
	for _, c := range []struct {
		file                   string
		methods                []string
		valid, rejected, cases int
	}{
		{"wycheproof_x25519_test.json", []string{"mlkem768x25519-sha256", "sntrup761x25519-sha512"}, 487, 31, 518},
		{"wycheproof_ecdh_secp256r1_ecpoint_test.json", []string{"mlkem768nistp256-sha256"}, 330, 25, 355},
		{"wycheproof_ecdh_secp256r1_test.json", []string{"mlkem768nistp256-sha256"}, 390, -1, 612},
		{"wycheproof_ecdh_secp384r1_ecpoint_test.json", []string{"mlkem1024nistp384-sha384"}, 771, 19, 790},
		{"wycheproof_ecdh_secp384r1_test.json", []string{"mlkem1024nistp384-sha384"}, 830, -1, 1047},
	} {
		var exs []Exchange
		for _, m := range c.methods {
			if fips140.Enabled() {
				exs = append(exs, mustPublic(m))
			}
		}
		knownAnswers(func() {
			n := RunWycheproofDH(t, c.file, readFile(t, c.file), exs...)
			if n.Valid != c.valid || c.rejected >= 0 && (n.Rejected != c.rejected || n.NotSSH != 0) || n.Valid+n.Rejected+n.NotSSH != c.cases {
				t.Errorf("%s: %+v, want %d cases, %d valid", c.file, n, c.cases, c.valid)
			}
		})
	}
}
