package mlkem1024nistp384_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
)

// TestWycheproofECDH runs Wycheproof's P-384 ECDH cases on the curve and
// through Finish: raw SEC1 points (the form SSH carries) and the points of
// the DER file. The ML-KEM backend plays no part, so only the public API
// runs them.
func TestWycheproofECDH(t *testing.T) {
	c := hybridtest.RunWycheproofECDH(t, hybridtest.Dir+"wycheproof_ecdh_secp384r1_ecpoint_test.json", public())
	if c.Valid != 771 || c.Rejected != 19 || c.NotSSH != 0 {
		t.Errorf("ecpoint: %+v, want 771 valid and 19 rejected", c)
	}
	d := hybridtest.RunWycheproofECDH(t, hybridtest.Dir+"wycheproof_ecdh_secp384r1_test.json", public())
	if d.Valid+d.Rejected+d.NotSSH != 1047 || d.Valid != 830 {
		t.Errorf("DER: %+v, want 1047 cases, 830 valid", d)
	}
	t.Logf("DER: %+v", d)
}
