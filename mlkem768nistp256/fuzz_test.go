package mlkem768nistp256_test

import (
	"crypto/mlkem"
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
)

// FuzzRespond feeds arbitrary C_INIT values to Respond; the oracle
// (crypto/mlkem + crypto/ecdh, hybridtest.FuzzRespond) decides the
// verdict and, on accept, S_REPLY and K. Run it with
//
//	go test ./mlkem768nistp256 -run '^$' -fuzz FuzzRespond -fuzztime 60s
func FuzzRespond(f *testing.F) {
	inits, _ := hybridtest.FuzzSeeds(public(), mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768, hybridtest.Dir+"mlkem768nistp256-sha256_openssh.json", hybridtest.Dir+"mlkem768nistp256-sha256_putty.json")
	for _, s := range inits {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, clientInit []byte) {
		hybridtest.KnownAnswers(t, func() {
			hybridtest.FuzzRespond(t, public(), "mlkem768nistp256", mlkem.EncapsulationKeySize768, clientInit)
		})
	})
}

// FuzzFinish feeds arbitrary S_REPLY values to Finish of a fixed client;
// the oracle decides the verdict and K (hybridtest.FuzzFinish).
func FuzzFinish(f *testing.F) {
	_, replies := hybridtest.FuzzSeeds(public(), mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768, hybridtest.Dir+"mlkem768nistp256-sha256_openssh.json", hybridtest.Dir+"mlkem768nistp256-sha256_putty.json")
	for _, s := range replies {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, serverReply []byte) {
		hybridtest.FuzzFinish(t, public(), "mlkem768nistp256", mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768, serverReply)
	})
}
