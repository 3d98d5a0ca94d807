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
	// Receiver: a fresh key pair; dk stays secret.
	dk, err := sntrup761.GenerateKey()
	if err != nil {
		panic(err)
	}
	ekBytes := dk.EncapsulationKey().Bytes() // sent to the sender

	// Sender: parse the key (only its length is checked) and encapsulate.
	ek, err := sntrup761.NewEncapsulationKey(ekBytes)
	if err != nil {
		panic(err)
	}
	senderKey, ciphertext := ek.Encapsulate() // ciphertext goes back

	// Receiver: decapsulate. A wrong ciphertext of the right length is not
	// an error: it yields an unrelated key (implicit rejection).
	receiverKey, err := dk.Decapsulate(ciphertext)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(ekBytes), len(ciphertext), bytes.Equal(senderKey, receiverKey))
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
