package core

import (
	"bytes"
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

// streamOf returns a reader of n fresh random bytes that can be replayed.
func randomStream(t testing.TB, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestKEMMatchesReference runs key generation, encapsulation and
// decapsulation through both implementations on the same random bytes.
func TestKEMMatchesReference(t *testing.T) {
	for i := range iterations(t, 30) {
		seed := randomStream(t, 2*randomBytes+smallBytes+randomBytes)
		if i == 0 { // g = 0 is not invertible: exercises the retry
			seed = append(make([]byte, randomBytes), seed...)
			for j := 0; j < randomBytes; j += 4 {
				seed[j+3] = 0x20 // every word 0x20000000 maps to 0
			}
		}
		wpk, wsk, err := ref.KeyGen(bytes.NewReader(seed))
		if err != nil {
			t.Fatal(err)
		}
		sk, err := GenerateKey(bytes.NewReader(seed))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sk.Bytes()[:], wsk) || !bytes.Equal(sk.PublicKey().Bytes()[:], wpk) {
			t.Fatalf("key %d differs from the reference", i)
		}
		encSeed := randomStream(t, randomBytes)
		wct, wk, _ := ref.Encap(wpk, bytes.NewReader(encSeed))
		var ct [CiphertextSize]byte
		var k [SharedKeySize]byte
		if err := NewPublicKey((*[PublicKeySize]byte)(wpk)).Encapsulate(bytes.NewReader(encSeed), &ct, &k); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ct[:], wct) || k != wk {
			t.Fatalf("encapsulation %d differs from the reference", i)
		}
		var k2 [SharedKeySize]byte
		sk.Decapsulate(&ct, &k2)
		if k2 != wk {
			t.Fatalf("decapsulation %d differs", i)
		}
		// a modified ciphertext: implicit rejection, same as the reference
		ct[mrand.IntN(CiphertextSize)] ^= 1 << mrand.IntN(8)
		sk.Decapsulate(&ct, &k2)
		if k2 != ref.Decap(ct[:], wsk) {
			t.Fatalf("rejection %d differs from the reference", i)
		}
	}
}
