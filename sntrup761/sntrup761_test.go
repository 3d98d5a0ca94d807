package sntrup761_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha512"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
)

func TestRoundTrip(t *testing.T) {
	for range 5 {
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		ss, ct := dk.EncapsulationKey().Encapsulate()
		if len(ss) != sntrup761.SharedKeySize || len(ct) != sntrup761.CiphertextSize {
			t.Fatalf("sizes %d, %d", len(ss), len(ct))
		}
		ss2, err := dk.Decapsulate(ct)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, ss2) {
			t.Fatal("shared keys differ")
		}

		// Through the generic interfaces and re-parsed keys.
		ek, err := sntrup761.NewEncapsulationKey(dk.Encapsulator().Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ss3, ct3 := ek.Encapsulate()
		dk2, err := sntrup761.NewDecapsulationKey(dk.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dk2.Bytes(), dk.Bytes()) {
			t.Fatal("NewDecapsulationKey(b).Bytes() != b")
		}
		if !bytes.Equal(dk2.EncapsulationKey().Bytes(), dk.EncapsulationKey().Bytes()) {
			t.Fatal("re-parsed key has another encapsulation key")
		}
		ss4, err := dk2.Decapsulate(ct3)
		if err != nil || !bytes.Equal(ss3, ss4) {
			t.Fatal("round trip through re-parsed keys failed")
		}
		if bytes.Equal(ct, ct3) || bytes.Equal(ss, ss3) {
			t.Fatal("two encapsulations gave the same output")
		}
	}
}

func TestKeysDiffer(t *testing.T) {
	a, _ := sntrup761.GenerateKey()
	b, _ := sntrup761.GenerateKey()
	if bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Equal(a.EncapsulationKey().Bytes(), b.EncapsulationKey().Bytes()) {
		t.Fatal("two generated keys are equal")
	}
}

func TestBadLengths(t *testing.T) {
	dk, _ := sntrup761.GenerateKey()
	_, ct := dk.EncapsulationKey().Encapsulate()
	for _, n := range []int{0, 1, sntrup761.CiphertextSize - 1, sntrup761.CiphertextSize + 1, 2 * sntrup761.CiphertextSize} {
		b := make([]byte, n)
		copy(b, ct)
		if _, err := dk.Decapsulate(b); err == nil {
			t.Errorf("Decapsulate accepted a %d-byte ciphertext", n)
		}
	}
	for _, n := range []int{0, sntrup761.EncapsulationKeySize - 1, sntrup761.EncapsulationKeySize + 1} {
		if _, err := sntrup761.NewEncapsulationKey(make([]byte, n)); err == nil {
			t.Errorf("NewEncapsulationKey accepted %d bytes", n)
		}
	}
	for _, n := range []int{0, sntrup761.DecapsulationKeySize - 1, sntrup761.DecapsulationKeySize + 1} {
		if _, err := sntrup761.NewDecapsulationKey(make([]byte, n)); err == nil {
			t.Errorf("NewDecapsulationKey accepted %d bytes", n)
		}
	}
}

// TestTotalDecoding checks that arbitrary byte strings of the right length
// are accepted as keys and ciphertexts (the decoders are total).
func TestTotalDecoding(t *testing.T) {
	for _, fill := range []byte{0x00, 0xff, 0x5a} {
		pk := bytes.Repeat([]byte{fill}, sntrup761.EncapsulationKeySize)
		ek, err := sntrup761.NewEncapsulationKey(pk)
		if err != nil {
			t.Fatal(err)
		}
		ek.Encapsulate()
		sk := bytes.Repeat([]byte{fill}, sntrup761.DecapsulationKeySize)
		dk, err := sntrup761.NewDecapsulationKey(sk)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dk.Decapsulate(bytes.Repeat([]byte{fill}, sntrup761.CiphertextSize)); err != nil {
			t.Fatal(err)
		}
	}
}

// rejectionKey computes the implicit-rejection key straight from the
// specification (section 2.3.8): Hash_0(Hash_3(rho) || ct), where Hash_b(x)
// is the first 32 bytes of SHA-512(b || x) and rho sits after f, 1/g and
// the public key in the secret key.
func rejectionKey(sk, ct []byte) []byte {
	const rhoOff, rhoLen = 191 + 191 + 1158, 191
	h3 := sha512.Sum512(append([]byte{3}, sk[rhoOff:rhoOff+rhoLen]...))
	h0 := sha512.Sum512(append(append([]byte{0}, h3[:32]...), ct...))
	return h0[:32]
}

func TestImplicitRejection(t *testing.T) {
	keys := 2
	if testing.Short() {
		keys = 1
	}
	for range keys {
		dk, _ := sntrup761.GenerateKey()
		good, ct := dk.EncapsulationKey().Encapsulate()
		if bytes.Equal(good, rejectionKey(dk.Bytes(), ct)) {
			t.Fatal("valid ciphertext's key equals the rejection key")
		}
		for i := range ct {
			bad := bytes.Clone(ct)
			bad[i] ^= 1 << (i % 8)
			ss, err := dk.Decapsulate(bad)
			if err != nil {
				t.Fatalf("byte %d: %v", i, err)
			}
			if want := rejectionKey(dk.Bytes(), bad); !bytes.Equal(ss, want) {
				t.Fatalf("byte %d flipped: not the implicit-rejection key", i)
			}
			again, _ := dk.Decapsulate(bad)
			if !bytes.Equal(ss, again) {
				t.Fatalf("byte %d flipped: decapsulation is not deterministic", i)
			}
		}
	}
	dk, _ := sntrup761.GenerateKey()
	for range 20 {
		ct := make([]byte, sntrup761.CiphertextSize)
		rand.Read(ct)
		ss, err := dk.Decapsulate(ct)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, rejectionKey(dk.Bytes(), ct)) {
			t.Fatal("random ciphertext: not the implicit-rejection key")
		}
	}
}

func TestConstantSizes(t *testing.T) {
	dk, _ := sntrup761.GenerateKey()
	_, ct := dk.EncapsulationKey().Encapsulate()
	if len(dk.Bytes()) != sntrup761.DecapsulationKeySize ||
		len(dk.EncapsulationKey().Bytes()) != sntrup761.EncapsulationKeySize ||
		len(ct) != sntrup761.CiphertextSize {
		t.Fatal("sizes differ from the exported constants")
	}
}

func TestBytesAreCopies(t *testing.T) {
	dk, _ := sntrup761.GenerateKey()
	b := dk.Bytes()
	b[0] ^= 0xff
	if bytes.Equal(b, dk.Bytes()) {
		t.Fatal("DecapsulationKey.Bytes aliases the key")
	}
	ek := dk.EncapsulationKey()
	e := ek.Bytes()
	e[0] ^= 0xff
	if bytes.Equal(e, ek.Bytes()) {
		t.Fatal("EncapsulationKey.Bytes aliases the key")
	}
}

func TestGenerateKeys(t *testing.T) {
	dks, err := sntrup761.GenerateKeys(4)
	if err != nil || len(dks) != 4 {
		t.Fatal(len(dks), err)
	}
	seen := map[string]bool{}
	for _, dk := range dks {
		if seen[string(dk.Bytes())] {
			t.Fatal("batch returned the same key twice")
		}
		seen[string(dk.Bytes())] = true
		ss, ct := dk.EncapsulationKey().Encapsulate()
		ss2, err := dk.Decapsulate(ct)
		if err != nil || !bytes.Equal(ss, ss2) {
			t.Fatal("batch key does not round-trip")
		}
	}
	if dks, err := sntrup761.GenerateKeys(0); err != nil || len(dks) != 0 {
		t.Fatal("GenerateKeys(0)")
	}
	if _, err := sntrup761.GenerateKeys(-1); err == nil {
		t.Fatal("GenerateKeys(-1) succeeded")
	}
}

// TestZeroKeys: every method of a zero or nil key panics with a message
// naming the mistake, not with a nil dereference (crypto/mlkem's zero
// keys panic too, with a nil dereference).
func TestZeroKeys(t *testing.T) {
	var nilDK *sntrup761.DecapsulationKey
	var nilEK *sntrup761.EncapsulationKey
	for name, f := range map[string]func(){
		"DecapsulationKey{}.Bytes":            func() { (&sntrup761.DecapsulationKey{}).Bytes() },
		"DecapsulationKey{}.EncapsulationKey": func() { (&sntrup761.DecapsulationKey{}).EncapsulationKey() },
		"DecapsulationKey{}.Encapsulator":     func() { (&sntrup761.DecapsulationKey{}).Encapsulator() },
		"DecapsulationKey{}.Decapsulate":      func() { (&sntrup761.DecapsulationKey{}).Decapsulate(make([]byte, sntrup761.CiphertextSize)) },
		"DecapsulationKey{}.Decapsulate(nil)": func() { (&sntrup761.DecapsulationKey{}).Decapsulate(nil) },
		"nil DecapsulationKey.Bytes":          func() { nilDK.Bytes() },
		"EncapsulationKey{}.Bytes":            func() { (&sntrup761.EncapsulationKey{}).Bytes() },
		"EncapsulationKey{}.Encapsulate":      func() { (&sntrup761.EncapsulationKey{}).Encapsulate() },
		"nil EncapsulationKey.Encapsulate":    func() { nilEK.Encapsulate() },
	} {
		func() {
			defer func() {
				p := recover()
				msg, ok := p.(string)
				if !ok || !strings.HasPrefix(msg, "sntrup761: ") || !strings.Contains(msg, " holds no key: create it with ") {
					t.Errorf("%s: panic %v (%T), want one saying the key holds none", name, p, p)
				}
			}()
			f()
		}()
	}
}
