package kat

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761"
)

// rspSHA256 is the SHA-256 of sntrup761_nist_kat.rsp as recorded in
// testdata/README.md (and ../shared/vectors/README.md).
const rspSHA256 = "147c26b63493ddaaeae1f59a5b42ffc233e24e1414198eacbcff7100f05077aa"

// TestSNTRUP761NISTKATFile regenerates the whole .rsp text in memory, seeds
// included, and compares its SHA-256 with the recorded value.
func TestSNTRUP761NISTKATFile(t *testing.T) {
	var entropy [DRBGSeedSize]byte
	for i := range entropy {
		entropy[i] = byte(i)
	}
	seeds := NewDRBG(&entropy)
	out := &RSP{Header: "# sntrup761"}
	for i := range 100 {
		seed := make([]byte, DRBGSeedSize)
		seeds.Read(seed)
		k, err := katCount(seed)
		if err != nil {
			t.Fatal(err)
		}
		k.Count = i
		out.KATs = append(out.KATs, k)
	}
	sum := sha256.Sum256(out.Format())
	if got := hex.EncodeToString(sum[:]); got != rspSHA256 {
		t.Errorf("SHA-256 of regenerated .rsp = %s, want %s", got, rspSHA256)
	}
	// The bundled file itself must also be the recorded one.
	file, err := os.ReadFile("../../vectors/testdata/sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(file); hex.EncodeToString(sum[:]) != rspSHA256 {
		t.Errorf("vectors/testdata/sntrup761_nist_kat.rsp is not the recorded file")
	}
}

// TestSNTRUP761OpenSSH checks that the OpenSSH-generated
// sntrup761x25519-sha512 exchanges include a key generation whose first g
// is not invertible (RunSSHFile checks each with sntrup761 alone), and
// that the implicitly rejected ciphertexts of the edge cases decapsulate
// with sntrup761 alone to OpenSSH's value.
func TestSNTRUP761OpenSSH(t *testing.T) {
	v := readSSH(t, "sntrup761x25519-sha512_openssh.json")
	retries := 0
	for i := range v.Tests {
		retries += len(Calls(v.Tests[i].ClientRandomCalls, "sntrup761_keygen_small_random_g")) - 1
	}
	if retries == 0 {
		t.Error("no vector exercised the key generation retry")
	}
	k, n := hybrid.SNTRUP761(), 0
	for _, tc := range v.EdgeTests {
		if tc.Role != "client" || tc.KEMSharedSecret == nil || len(tc.QS) < sntrup761.CiphertextSize {
			continue
		}
		dk, err := k.NewDecapsulationKey(tc.ClientKEMPrivate)
		if err != nil {
			t.Fatal(err)
		}
		ss := make([]byte, 32)
		dk.Decapsulate(ss, tc.QS[:sntrup761.CiphertextSize])
		if !bytes.Equal(ss, tc.KEMSharedSecret) {
			t.Errorf("edge tcId %d (%s): decapsulated key differs", tc.TcID, tc.Comment)
		}
		n++
	}
	if n < 3 {
		t.Errorf("only %d client edge cases with a KEM secret, want at least 3", n)
	}
}
