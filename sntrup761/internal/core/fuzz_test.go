package core

import (
	"bytes"
	"sync"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

// FuzzDecapsulateVsReference decapsulates arbitrary (possibly malformed)
// secret keys and ciphertexts with the fast core and the reference: the
// decoders are total, so both must always agree.
func FuzzDecapsulateVsReference(f *testing.F) {
	sk, ct := decapsulateSeed()
	fuzzcorpus.Add(f, sk, ct)
	fuzzcorpus.Add(f, bytes.Repeat([]byte{0xff}, PrivateKeySize), bytes.Repeat([]byte{0xff}, CiphertextSize))
	f.Fuzz(func(t *testing.T, skb, ctb []byte) {
		if len(skb) < PrivateKeySize || len(ctb) < CiphertextSize {
			return
		}
		skb, ctb = skb[:PrivateKeySize], ctb[:CiphertextSize]
		var got [SharedKeySize]byte
		NewPrivateKey((*[PrivateKeySize]byte)(skb)).Decapsulate((*[CiphertextSize]byte)(ctb), &got)
		if want := ref.Decap(ctb, skb); got != want {
			t.Fatal("fast decapsulation differs from the reference")
		}
	})
}

// decapsulateSeed is a valid key and ciphertext, made once per process:
// a libFuzzer binary (see .clusterfuzzlite/build.sh) runs a target's
// setup for every input, and a key generation costs milliseconds.
var decapsulateSeed = sync.OnceValues(func() (sk, ct []byte) {
	key, _ := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x5a, 0xa5, 0x37, 0x11}, (2*randomBytes+smallBytes)/4+1)))
	var c [CiphertextSize]byte
	var k [SharedKeySize]byte
	key.PublicKey().Encapsulate(bytes.NewReader(bytes.Repeat([]byte{9, 8, 7, 6}, randomBytes/4)), &c, &k)
	return key.Bytes()[:], c[:]
})

// FuzzEncapsulateVsReference encapsulates to arbitrary public keys with
// arbitrary randomness in both implementations.
func FuzzEncapsulateVsReference(f *testing.F) {
	fuzzcorpus.Add(f, bytes.Repeat([]byte{1, 2, 3}, PublicKeySize/3), bytes.Repeat([]byte{0xfe}, randomBytes))
	f.Fuzz(func(t *testing.T, pkb, rnd []byte) {
		if len(pkb) < PublicKeySize || len(rnd) < randomBytes {
			return
		}
		pkb, rnd = pkb[:PublicKeySize], rnd[:randomBytes]
		var ct [CiphertextSize]byte
		var k [SharedKeySize]byte
		if err := NewPublicKey((*[PublicKeySize]byte)(pkb)).Encapsulate(bytes.NewReader(rnd), &ct, &k); err != nil {
			t.Fatal(err)
		}
		wct, wk, err := ref.Encap(pkb, bytes.NewReader(rnd))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ct[:], wct) || k != wk {
			t.Fatal("fast encapsulation differs from the reference")
		}
	})
}
