package mlkem768nistp256_test

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
)

// TestWycheproofECDH runs Wycheproof's P-256 ECDH cases on the curve and
// through Finish: raw SEC1 points (the form SSH carries) and the points of
// the DER file. The ML-KEM backend plays no part, so only the public API
// runs them.
func TestWycheproofECDH(t *testing.T) {
	c := hybridtest.RunWycheproofECDH(t, hybridtest.Dir+"wycheproof_ecdh_secp256r1_ecpoint_test.json", public())
	if c.Valid != 330 || c.Rejected != 25 || c.NotSSH != 0 {
		t.Errorf("ecpoint: %+v, want 330 valid and 25 rejected", c)
	}
	d := hybridtest.RunWycheproofECDH(t, hybridtest.Dir+"wycheproof_ecdh_secp256r1_test.json", public())
	if d.Valid+d.Rejected+d.NotSSH != 612 || d.Valid != 390 {
		t.Errorf("DER: %+v, want 612 cases, 390 valid", d)
	}
	t.Logf("DER: %+v", d)
}
