package mlkem768nistp256_test

import (
	"crypto"
	"crypto/mlkem"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/hybridtest"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// TestConstants pins the exported values to the specification (RFC 10042
// sections 2.3 and 3; FIPS 203 table 3; SEC1 uncompressed points).
func TestConstants(t *testing.T) {
	if mlkem768nistp256.Name != "mlkem768nistp256-sha256" {
		t.Errorf("Name = %q", mlkem768nistp256.Name)
	}
	if mlkem768nistp256.Hash != crypto.SHA256 {
		t.Errorf("Hash = %v", mlkem768nistp256.Hash)
	}
	for _, c := range []struct {
		name              string
		got, want1, want2 int
	}{
		{"ClientInitSize", mlkem768nistp256.ClientInitSize, 1249, mlkem.EncapsulationKeySize768 + 65},
		{"ServerReplySize", mlkem768nistp256.ServerReplySize, 1153, mlkem.CiphertextSize768 + 65},
		{"SharedSecretSize", mlkem768nistp256.SharedSecretSize, 36, 4 + crypto.SHA256.Size()},
	} {
		if c.got != c.want1 || c.got != c.want2 {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want1)
		}
	}
	m := mlkem768nistp256.Engine
	if m.ClientInitSize() != 1249 || m.ServerReplySize() != 1153 || m.Params != hybrid.MLKEM768 || m.Curve.Name() != "P-256" {
		t.Error("engine parameters differ from the constants")
	}
}

// TestProperties runs the shared behaviour checks on the public API and on
// the engine with each ML-KEM backend.
func TestProperties(t *testing.T) {
	for _, ex := range exchanges() {
		t.Run(ex.Label, func(t *testing.T) {
			hybridtest.RunProperties(t, ex, "mlkem768nistp256", mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768)
		})
	}
}

func TestZeroClient(t *testing.T) {
	var c mlkem768nistp256.Client
	if _, err := c.Finish(make([]byte, mlkem768nistp256.ServerReplySize)); err == nil {
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
	m := mlkem768nistp256.Engine
	hybridtest.CheckFIPSPath(t, "TestFIPSMode", public(), &m)
}

// TestCrossCheck runs circl's ML-KEM-768 against crypto/mlkem on random
// inputs, and whole exchanges across backends (a circl client with a
// crypto/mlkem server and back).
func TestCrossCheck(t *testing.T) {
	hybridtest.KnownAnswers(t, func() {
		hybridtest.CrossCheck(t, 200, hybrid.Circl(hybrid.MLKEM768), hybrid.Std(hybrid.MLKEM768))
		hybridtest.ExchangeAcrossBackends(t, mlkem768nistp256.Name, mlkem768nistp256.Engine)
	})
}
