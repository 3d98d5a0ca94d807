package sntrup761_test

import (
	"bytes"
	"fmt"

	"github.com/pqkex/pqkex/sntrup761"
)

// Example shows a key encapsulation between two parties: the receiver
// sends its encapsulation key, the sender encapsulates to it, and the
// receiver decapsulates the ciphertext to the same shared key.
func Example() {
	dk, err := sntrup761.GenerateKey() // receiver; dk is secret
	if err != nil {
		panic(err)
	}
	ekBytes := dk.EncapsulationKey().Bytes() // 1158 bytes, to the sender

	ek, err := sntrup761.NewEncapsulationKey(ekBytes) // sender: checks the length only
	if err != nil {
		panic(err)
	}
	sharedKey, ciphertext := ek.Encapsulate() // 32 bytes; 1039 bytes back

	sharedKey2, err := dk.Decapsulate(ciphertext) // receiver: equal to sharedKey
	if err != nil {
		// Only a ciphertext of the wrong length is an error. A wrong
		// ciphertext of the right length yields an unrelated key
		// (implicit rejection).
		panic(err)
	}
	fmt.Println(len(ekBytes), len(ciphertext), bytes.Equal(sharedKey, sharedKey2))
	// Output: 1158 1039 true
}

// ExampleKeyPool shows batch key generation for a program that needs many
// single-use keys, such as an SSH client opening many connections. The
// pool generates keys in a goroutine ahead of demand; Close stops it and
// overwrites the keys not handed out.
func ExampleKeyPool() {
	var pool sntrup761.KeyPool // ready to use: 32 keys per batch inversion
	defer pool.Close()
	for range 3 {
		dk, err := pool.Get() // a fresh key, never handed out again
		if err != nil {
			panic(err)
		}
		ek := dk.EncapsulationKey()
		k1, ct := ek.Encapsulate()
		k2, _ := dk.Decapsulate(ct)
		fmt.Println(bytes.Equal(k1, k2))
	}
	// Output:
	// true
	// true
	// true
}
