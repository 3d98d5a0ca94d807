package mlkem1024nistp384_test

import (
	"crypto"
	"crypto/mlkem"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
)

// TestConstants pins the exported values to the specification (RFC 10042
// sections 2.3 and 3; FIPS 203 table 3; SEC1 uncompressed points).
func TestConstants(t *testing.T) {
	if mlkem1024nistp384.Name != "mlkem1024nistp384-sha384" {
		t.Errorf("Name = %q", mlkem1024nistp384.Name)
	}
	if mlkem1024nistp384.Hash != crypto.SHA384 {
		t.Errorf("Hash = %v", mlkem1024nistp384.Hash)
	}
	for _, c := range []struct {
		name              string
		got, want1, want2 int
	}{
		{"ClientInitSize", mlkem1024nistp384.ClientInitSize, 1665, mlkem.EncapsulationKeySize1024 + 97},
		{"ServerReplySize", mlkem1024nistp384.ServerReplySize, 1665, mlkem.CiphertextSize1024 + 97},
		{"SharedSecretSize", mlkem1024nistp384.SharedSecretSize, 52, 4 + crypto.SHA384.Size()},
	} {
		if c.got != c.want1 || c.got != c.want2 {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want1)
		}
	}
	m := mlkem1024nistp384.Engine
	if m.ClientInitSize() != 1665 || m.ServerReplySize() != 1665 || m.Params != hybrid.MLKEM1024 || m.Curve.Name() != "P-384" {
		t.Error("engine parameters differ from the constants")
	}
}

// TestProperties runs the shared behaviour checks on the public API and on
// the engine with each ML-KEM backend.
func TestProperties(t *testing.T) {
	for _, ex := range exchanges() {
		t.Run(ex.Label, func(t *testing.T) {
			hybridtest.RunProperties(t, ex, "mlkem1024nistp384", mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024)
		})
	}
}

func TestZeroClient(t *testing.T) {
	var c mlkem1024nistp384.Client
	if _, err := c.Finish(make([]byte, mlkem1024nistp384.ServerReplySize)); err == nil {
		t.Error("Finish on a zero Client succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("Init on a zero Client did not panic")
		}
	}()
	c.Init()
}

// TestFIPSMode proves that under GODEBUG=fips140=on and fips140=only
// NewClient and Respond use only the Go Cryptographic Module's approved
// services, whatever reader they get, and that fips140=only refuses the
// derandomized path; see hybridtest.CheckFIPSPath.
func TestFIPSMode(t *testing.T) {
	m := mlkem1024nistp384.Engine
	hybridtest.CheckFIPSPath(t, "TestFIPSMode", public(), &m)
}

// TestCrossCheck runs circl's ML-KEM-1024 against crypto/mlkem on random
// inputs, and whole exchanges across backends (a circl client with a
// crypto/mlkem server and back).
func TestCrossCheck(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		hybridtest.CrossCheck(t, 200, hybrid.Circl(hybrid.MLKEM1024), hybrid.Std(hybrid.MLKEM1024))
		hybridtest.ExchangeAcrossBackends(t, mlkem1024nistp384.Name, mlkem1024nistp384.Engine)
	})
}
