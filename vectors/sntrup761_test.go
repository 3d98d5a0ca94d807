package vectors

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/nistdrbg"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// rspSHA256 is the SHA-256 of sntrup761_nist_kat.rsp as recorded in
// testdata/README.md (and ../shared/vectors/README.md).
const rspSHA256 = "147c26b63493ddaaeae1f59a5b42ffc233e24e1414198eacbcff7100f05077aa"

func readRSP(t *testing.T) *RSP {
	t.Helper()
	f, err := os.Open("testdata/sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rsp, err := ParseRSP(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rsp.KATs) != 100 {
		t.Fatalf("got %d counts, want 100", len(rsp.KATs))
	}
	return rsp
}

// katCount runs one NIST KAT count: keypair and encapsulation from the DRBG
// seeded with seed, then decapsulation.
func katCount(seed []byte) (KEMKAT, error) {
	var s [nistdrbg.SeedSize]byte
	copy(s[:], seed)
	rng := nistdrbg.New(&s)
	dk, err := sntrup761test.GenerateKey(rng)
	if err != nil {
		return KEMKAT{}, err
	}
	ss, ct, err := sntrup761test.Encapsulate(dk.EncapsulationKey(), rng)
	if err != nil {
		return KEMKAT{}, err
	}
	return KEMKAT{Seed: seed, PK: dk.EncapsulationKey().Bytes(), SK: dk.Bytes(), CT: ct, SS: ss}, nil
}

func TestSNTRUP761NISTKAT(t *testing.T) {
	rsp := readRSP(t)
	for _, want := range rsp.KATs {
		got, err := katCount(want.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name      string
			got, want []byte
		}{{"pk", got.PK, want.PK}, {"sk", got.SK, want.SK}, {"ct", got.CT, want.CT}, {"ss", got.SS, want.SS}} {
			if !bytes.Equal(f.got, f.want) {
				t.Errorf("count %d: %s differs", want.Count, f.name)
			}
		}
		// Batch key generation consumes the stream like single ones.
		var s [nistdrbg.SeedSize]byte
		copy(s[:], want.Seed)
		batch, err := sntrup761test.GenerateKeys(nistdrbg.New(&s), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(batch[0].Bytes(), want.SK) {
			t.Errorf("count %d: batch key generation differs", want.Count)
		}
		dk, err := sntrup761.NewDecapsulationKey(want.SK)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := dk.Decapsulate(want.CT)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, want.SS) {
			t.Errorf("count %d: decapsulated key differs", want.Count)
		}
	}
}

// TestSNTRUP761NISTKATFile regenerates the whole .rsp text in memory, seeds
// included, and compares its SHA-256 with the recorded value.
func TestSNTRUP761NISTKATFile(t *testing.T) {
	var entropy [nistdrbg.SeedSize]byte
	for i := range entropy {
		entropy[i] = byte(i)
	}
	seeds := nistdrbg.New(&entropy)
	out := &RSP{Header: "# sntrup761"}
	for i := range 100 {
		seed := make([]byte, nistdrbg.SeedSize)
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
	file, err := os.ReadFile("testdata/sntrup761_nist_kat.rsp")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(file); hex.EncodeToString(sum[:]) != rspSHA256 {
		t.Errorf("testdata/sntrup761_nist_kat.rsp is not the recorded file")
	}
}

// callReader returns each recorded random call's bytes from one Read, so
// the reader reproduces OpenSSH's call pattern.
type callReader struct{ calls [][]byte }

func (r *callReader) Read(p []byte) (int, error) {
	if len(r.calls) == 0 {
		return 0, errExhausted
	}
	c := r.calls[0]
	if len(p) != len(c) {
		return 0, errCallSize
	}
	r.calls = r.calls[1:]
	return copy(p, c), nil
}

func (r *callReader) done() bool { return len(r.calls) == 0 }

type vecErr string

func (e vecErr) Error() string { return string(e) }

const (
	errExhausted = vecErr("recorded random calls exhausted")
	errCallSize  = vecErr("read size differs from the recorded call")
)

func readSSH(t *testing.T, name string) *SSHFile {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := ParseSSH(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSNTRUP761OpenSSH checks the KEM half of every OpenSSH-generated
// sntrup761x25519-sha512 exchange, including the test whose first g is not
// invertible.
func TestSNTRUP761OpenSSH(t *testing.T) {
	v := readSSH(t, "sntrup761x25519-sha512_openssh.json")
	retries := 0
	for _, tc := range v.Tests {
		gCalls := Calls(tc.ClientRandomCalls, "sntrup761_keygen_small_random_g")
		retries += len(gCalls) - 1
		client := &callReader{Calls(tc.ClientRandomCalls, "sntrup761_keygen_small_random_g",
			"sntrup761_keygen_short_random_f", "sntrup761_keygen_rho")}
		dk, err := sntrup761test.GenerateKey(client)
		if err != nil {
			t.Fatalf("%v: %v", &tc, err)
		}
		if !client.done() {
			t.Errorf("%v: key generation left recorded random calls unused", &tc)
		}
		if !bytes.Equal(dk.Bytes(), tc.ClientKEMPrivate) {
			t.Errorf("%v: decapsulation key differs", &tc)
		}
		if !bytes.Equal(dk.EncapsulationKey().Bytes(), tc.ClientKEMPublic) {
			t.Errorf("%v: encapsulation key differs", &tc)
		}
		if !bytes.Equal(tc.QC[:sntrup761.EncapsulationKeySize], tc.ClientKEMPublic) {
			t.Errorf("%v: Q_C does not start with the KEM public key", &tc)
		}

		ek, err := sntrup761.NewEncapsulationKey(tc.QC[:sntrup761.EncapsulationKeySize])
		if err != nil {
			t.Fatal(err)
		}
		server := &callReader{Calls(tc.ServerRandomCalls, "sntrup761_encaps_short_random_r")}
		ss, ct, err := sntrup761test.Encapsulate(ek, server)
		if err != nil {
			t.Fatalf("%v: %v", &tc, err)
		}
		if !bytes.Equal(ct, tc.KEMCiphertext) || !bytes.Equal(ss, tc.KEMSharedSecret) {
			t.Errorf("%v: encapsulation differs", &tc)
		}
		ss2, err := dk.Decapsulate(tc.QS[:sntrup761.CiphertextSize])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss2, tc.KEMSharedSecret) {
			t.Errorf("%v: decapsulation differs", &tc)
		}
	}
	if retries == 0 {
		t.Error("no vector exercised the key generation retry")
	}

	// Client-side edge cases that carry a KEM secret: modified ciphertexts
	// decapsulate (implicitly rejected) to OpenSSH's value.
	n := 0
	for _, tc := range v.EdgeTests {
		if tc.Role != "client" || tc.KEMSharedSecret == nil || len(tc.QS) < sntrup761.CiphertextSize {
			continue
		}
		dk, err := sntrup761.NewDecapsulationKey(tc.ClientKEMPrivate)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := dk.Decapsulate(tc.QS[:sntrup761.CiphertextSize])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, tc.KEMSharedSecret) {
			t.Errorf("edge tcId %d (%s): decapsulated key differs", tc.TcID, tc.Comment)
		}
		n++
	}
	if n < 3 {
		t.Errorf("only %d client edge cases with a KEM secret, want at least 3", n)
	}
}
