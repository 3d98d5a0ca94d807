package hybrid

import (
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

var shaInput = make([]byte, 3500) // about the size of an exchange hash's input

// BenchmarkSHA256AfterMLKEM shows why ResetUpperState exists: without it,
// SHA-256 right after circl's ML-KEM encapsulation is two orders of
// magnitude slower on amd64 CPUs with AVX2 (compare the sub-benchmarks).
func BenchmarkSHA256AfterMLKEM(b *testing.B) {
	pk, _, _ := mlkem768.GenerateKeyPair(rand.Reader)
	ct := make([]byte, mlkem768.CiphertextSize)
	ss := make([]byte, mlkem768.SharedKeySize)
	b.Run("encapsulate", func(b *testing.B) {
		for b.Loop() {
			pk.EncapsulateTo(ct, ss, nil)
		}
	})
	b.Run("encapsulate+sha256", func(b *testing.B) {
		for b.Loop() {
			pk.EncapsulateTo(ct, ss, nil)
			sha256.Sum256(shaInput)
		}
	})
	b.Run("encapsulate+reset+sha256", func(b *testing.B) {
		for b.Loop() {
			pk.EncapsulateTo(ct, ss, nil)
			ResetUpperState()
			sha256.Sum256(shaInput)
		}
	})
}

func TestSharedSecret(t *testing.T) {
	kPQ, kCL := make([]byte, 32), make([]byte, 32)
	kPQ[0], kCL[31] = 1, 2
	in := append(append([]byte{}, kPQ...), kCL...)
	s256 := sha256.Sum256(in)
	s512 := sha512.Sum512(in)
	kCL48 := make([]byte, 48)
	kCL48[0], kCL48[47] = 0, 3 // a leading zero byte stays
	s384 := sha512.Sum384(append(append([]byte{}, kPQ...), kCL48...))
	for _, c := range []struct {
		h    crypto.Hash
		want []byte
	}{
		{crypto.SHA256, append([]byte{0, 0, 0, 32}, s256[:]...)},
		{crypto.SHA512, append([]byte{0, 0, 0, 64}, s512[:]...)},
		{crypto.SHA384, append([]byte{0, 0, 0, 48}, s384[:]...)},
	} {
		cl := kCL
		if c.h == crypto.SHA384 {
			cl = kCL48
		}
		if k := SharedSecret(c.h, kPQ, cl); string(k) != string(c.want) {
			t.Errorf("%v: K = %x, want %x", c.h, k, c.want)
		}
	}
}
