package conformance

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"crypto/mlkem"
	"math/big"
	"testing"
)

// The bad values must be bad for the reason they claim, and only that:
// checked against crypto/ecdh and crypto/mlkem, which implement the checks.

func TestX25519LowOrder(t *testing.T) {
	priv, err := ecdh.X25519().GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(x25519LowOrder) != 14 {
		t.Fatalf("%d low-order values, want 14", len(x25519LowOrder))
	}
	for _, b := range x25519LowOrder {
		pub, err := ecdh.X25519().NewPublicKey(b.value)
		if err != nil {
			t.Fatalf("%s: %v", b.id, err)
		}
		if _, err := priv.ECDH(pub); err == nil {
			t.Errorf("%s: X25519 gives a non-zero shared secret", b.id)
		}
	}
}

func TestNISTBad(t *testing.T) {
	for _, c := range []struct {
		curve elliptic.Curve
		ecdh  ecdh.Curve
	}{{elliptic.P256(), ecdh.P256()}, {elliptic.P384(), ecdh.P384()}} {
		params := c.curve.Params()
		x, y := smallPoint(params) // on the curve: crypto/ecdh accepts it below
		if new(big.Int).Add(x, params.P).BitLen() > params.BitSize {
			t.Fatalf("%s: x + p does not fit", params.Name)
		}
		priv, err := c.ecdh.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range nistBad(c.curve, priv.PublicKey().Bytes()) {
			if _, err := c.ecdh.NewPublicKey(b.value); err == nil {
				t.Errorf("%s %s: crypto/ecdh accepts it", params.Name, b.id)
			}
		}
		// The same encoding with x itself is valid: x + p is the only fault.
		n := (params.BitSize + 7) / 8
		good := append(append([]byte{4}, x.FillBytes(make([]byte, n))...), y.FillBytes(make([]byte, n))...)
		if _, err := c.ecdh.NewPublicKey(good); err != nil {
			t.Errorf("%s: the small point itself is refused: %v", params.Name, err)
		}
	}
}

func TestModulusCases(t *testing.T) {
	dk, err := mlkem.GenerateKey768()
	if err != nil {
		t.Fatal(err)
	}
	dk1024, err := mlkem.GenerateKey1024()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range modulusCases {
		ek := dk.EncapsulationKey().Bytes()
		c.set(ek, 3)
		if _, err := mlkem.NewEncapsulationKey768(ek); err == nil {
			t.Errorf("%s: ML-KEM-768 accepts it", c.id)
		}
		ek = dk1024.EncapsulationKey().Bytes()
		c.set(ek, 4)
		if _, err := mlkem.NewEncapsulationKey1024(ek); err == nil {
			t.Errorf("%s: ML-KEM-1024 accepts it", c.id)
		}
	}
	// setCoefficient writes exactly one coefficient: setting it back to
	// what ByteDecode_12 read restores the key.
	ek := dk.EncapsulationKey().Bytes()
	orig := append([]byte(nil), ek...)
	for i := range 3 {
		for j := range 256 {
			b := orig[384*i+3*(j/2):]
			v := uint16(b[0]) | uint16(b[1]&0x0f)<<8
			if j%2 == 1 {
				v = uint16(b[1]>>4) | uint16(b[2])<<4
			}
			setCoefficient(ek, i, j, 0)
			setCoefficient(ek, i, j, v)
		}
	}
	if string(ek) != string(orig) {
		t.Fatal("setCoefficient changed more than one coefficient")
	}
}
