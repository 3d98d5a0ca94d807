package sntrup761_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/sntrup761"
)

// TestGenerateKeysNISTKAT: batch key generation consumes the NIST KAT's
// random streams as single key generations do (vectors.TestBundled runs
// the file's counts): each count's seed, through a batch of one, gives
// its sk.
func TestGenerateKeysNISTKAT(t *testing.T) {
	f, err := os.Open("../vectors/testdata/sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rsp, err := kat.ParseRSP(f)
	if err != nil || len(rsp.KATs) != 100 {
		t.Fatalf("%v (%d counts, want 100)", err, len(rsp.KATs))
	}
	for _, want := range rsp.KATs {
		var s [kat.DRBGSeedSize]byte
		copy(s[:], want.Seed)
		batch, err := sntrup761.GenerateKeysFrom(kat.NewDRBG(&s), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(batch[0].Bytes(), want.SK) {
			t.Errorf("count %d: batch key generation differs", want.Count)
		}
	}
}
