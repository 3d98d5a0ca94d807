package hybrid

import (
	"crypto/fips140"
	"testing"
)

func TestDefault(t *testing.T) {
	for _, p := range []Params{MLKEM768, MLKEM1024} {
		want := "circl"
		if fips140.Enabled() {
			want = "std"
		}
		if got := Default(p).Impl(); got != want {
			t.Errorf("Default(%s) = %s, want %s", Default(p).Name(), got, want)
		}
		if Std(p).Name() != Circl(p).Name() || Std(p).CiphertextSize() != Circl(p).CiphertextSize() ||
			Std(p).EncapsulationKeySize() != Circl(p).EncapsulationKeySize() {
			t.Errorf("%s: backends disagree on the parameters", Std(p).Name())
		}
		for _, k := range []KEM{Std(p), Circl(p)} {
			if _, err := k.NewDecapsulationKey(make([]byte, 63)); err == nil {
				t.Errorf("%s %s: 63-byte seed accepted", k.Impl(), k.Name())
			}
		}
	}
}

var sink []byte

// BenchmarkKEM measures each operation of each ML-KEM implementation as
// the methods call it (default randomness), the measurement behind
// Default:
//
//	go test ./internal/hybrid -run '^$' -bench KEM -count 6 > kem.txt
//	benchstat -col /impl kem.txt
func BenchmarkKEM(b *testing.B) {
	for _, p := range []Params{MLKEM768, MLKEM1024} {
		for _, op := range []string{"KeyGen", "Encapsulate", "Decapsulate"} {
			b.Run(Std(p).Name()+"/"+op, func(b *testing.B) {
				for _, k := range []KEM{Circl(p), Std(p)} {
					b.Run("impl="+k.Impl(), func(b *testing.B) { benchKEM(b, k, op) })
				}
			})
		}
	}
}

func benchKEM(b *testing.B, k KEM, op string) {
	dk, err := k.NewDecapsulationKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	ekb := make([]byte, k.EncapsulationKeySize())
	dk.EncapsulationKey(ekb)
	ct, key := make([]byte, k.CiphertextSize()), make([]byte, 32)
	for b.Loop() {
		switch op {
		case "KeyGen": // what NewClient does: generate, then write ek
			d, err := k.NewDecapsulationKey(nil)
			if err != nil {
				b.Fatal(err)
			}
			d.EncapsulationKey(ekb)
		case "Encapsulate": // what Respond does: check ek, encapsulate
			ek, err := k.ParseEncapsulationKey(ekb)
			if err != nil {
				b.Fatal(err)
			}
			if err := ek.Encapsulate(ct, key, nil); err != nil {
				b.Fatal(err)
			}
		case "Decapsulate":
			dk.Decapsulate(key, ct)
		}
	}
	sink = key
}
