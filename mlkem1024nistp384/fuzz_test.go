package mlkem1024nistp384_test

import (
	"crypto/mlkem"
	"testing"

	"github.com/pqkex/pqkex/internal/hybridtest"
)

// FuzzRespond feeds arbitrary C_INIT values to Respond; the oracle
// (crypto/mlkem + crypto/ecdh, hybridtest.FuzzRespond) decides the
// verdict and, on accept, S_REPLY and K. Run it with
//
//	go test ./mlkem1024nistp384 -run '^$' -fuzz FuzzRespond -fuzztime 60s
func FuzzRespond(f *testing.F) {
	inits, _ := hybridtest.FuzzSeeds(public(), mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024, hybridtest.Dir+"mlkem1024nistp384-sha384_putty.json")
	for _, s := range inits {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, clientInit []byte) {
		hybridtest.KnownAnswers(t, func() {
			hybridtest.FuzzRespond(t, public(), "mlkem1024nistp384", mlkem.EncapsulationKeySize1024, clientInit)
		})
	})
}

// FuzzFinish feeds arbitrary S_REPLY values to Finish of a fixed client;
// the oracle decides the verdict and K (hybridtest.FuzzFinish).
func FuzzFinish(f *testing.F) {
	_, replies := hybridtest.FuzzSeeds(public(), mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024, hybridtest.Dir+"mlkem1024nistp384-sha384_putty.json")
	for _, s := range replies {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, serverReply []byte) {
		hybridtest.FuzzFinish(t, public(), "mlkem1024nistp384", mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024, serverReply)
	})
}
