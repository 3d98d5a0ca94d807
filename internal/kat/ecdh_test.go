package kat

import "testing"

// TestWycheproofECDH runs Wycheproof's P-256 and P-384 ECDH cases on the
// curve and through Finish: raw SEC1 points (the form SSH carries) and
// the points of the DER files. The ML-KEM backend plays no part, so only
// the public API runs them.
func TestWycheproofECDH(t *testing.T) {
	for _, c := range []struct {
		file, method           string
		valid, rejected, cases int
	}{
		{"wycheproof_ecdh_secp256r1_ecpoint_test.json", "mlkem768nistp256-sha256", 330, 25, 355},
		{"wycheproof_ecdh_secp256r1_test.json", "mlkem768nistp256-sha256", 390, -1, 612},
		{"wycheproof_ecdh_secp384r1_ecpoint_test.json", "mlkem1024nistp384-sha384", 771, 19, 790},
		{"wycheproof_ecdh_secp384r1_test.json", "mlkem1024nistp384-sha384", 830, -1, 1047},
	} {
		knownAnswers(func() {
			n := RunWycheproofECDH(t, c.file, readFile(t, c.file), MustPublic(c.method))
			if n.Valid != c.valid || c.rejected >= 0 && (n.Rejected != c.rejected || n.NotSSH != 0) || n.Valid+n.Rejected+n.NotSSH != c.cases {
				t.Errorf("%s: %+v, want %d cases, %d valid", c.file, n, c.cases, c.valid)
			}
		})
	}
}
