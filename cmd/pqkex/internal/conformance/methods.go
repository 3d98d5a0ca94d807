package conformance

import (
	"crypto"
	"crypto/mlkem"

	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// method is one hybrid key exchange as the checks see it: its name, hash
// and parts (the honest peer is written out from them in clienthalf.go
// and serverhalf.go).
type method struct {
	name   string
	hash   crypto.Hash
	kem    string // "ML-KEM-768", "ML-KEM-1024", "sntrup761"
	curve  string // "X25519", "P-256", "P-384"
	ekSize int    // the KEM's encapsulation key (first in C_INIT)
	ctSize int    // the KEM's ciphertext (first in S_REPLY)
	// mlkemK is ML-KEM's k (polynomials in the encapsulation key), 0 for
	// sntrup761.
	mlkemK int
}

func (m *method) pointSize() int {
	switch m.curve {
	case "P-256":
		return 65
	case "P-384":
		return 97
	}
	return 32
}

func (m *method) x25519() bool { return m.curve == "X25519" }

// Methods are the names pqkex check knows, in the order it checks them.
var methods = []*method{
	{name: mlkem768x25519.Name, hash: mlkem768x25519.Hash, kem: "ML-KEM-768", curve: "X25519",
		ekSize: mlkem.EncapsulationKeySize768, ctSize: mlkem.CiphertextSize768, mlkemK: 3},
	sntrupMethod(sntrup761x25519.Name),
	sntrupMethod(sntrup761x25519.AliasName),
	{name: mlkem768nistp256.Name, hash: mlkem768nistp256.Hash, kem: "ML-KEM-768", curve: "P-256",
		ekSize: mlkem.EncapsulationKeySize768, ctSize: mlkem.CiphertextSize768, mlkemK: 3},
	{name: mlkem1024nistp384.Name, hash: mlkem1024nistp384.Hash, kem: "ML-KEM-1024", curve: "P-384",
		ekSize: mlkem.EncapsulationKeySize1024, ctSize: mlkem.CiphertextSize1024, mlkemK: 4},
}

func sntrupMethod(name string) *method {
	return &method{name: name, hash: sntrup761x25519.Hash, kem: "sntrup761", curve: "X25519",
		ekSize: sntrup761.EncapsulationKeySize, ctSize: sntrup761.CiphertextSize}
}

// Methods returns the SSH names of the hybrid key exchanges pqkex check
// can check, in its order.
func Methods() []string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	return names
}

func lookupMethod(name string) *method {
	for _, m := range methods {
		if m.name == name {
			return m
		}
	}
	return nil
}
