// Package badkeys holds the classical public keys that the specifications
// require a peer to refuse, as data, once for the conformance checker and
// the tests: X25519 public keys whose shared secret is all zero, and
// P-256 / P-384 encodings that are not a valid uncompressed point. Nothing
// here is secret.
package badkeys

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"math/big"
)

// Key is one invalid classical public key and what makes it so.
type Key struct {
	ID    string // a short name: "x25519-p-bit255", "point-hybrid", ...
	What  string // for people
	Value []byte
	// Reencodes says that Value is another encoding of the valid point it
	// was made from: a peer that accepts it computes that point's shared
	// secret. (Every X25519 value gives the all-zero secret.)
	Reencodes bool
}

// X25519LowOrder are the X25519 u-coordinates of small order (RFC 7748
// §7), canonical and not (p, p+1), each also with bit 255 set, which RFC
// 7748 §5 says to ignore: every one gives the all-zero shared secret that
// RFC 8731 §3 requires a peer to refuse. 14 values; the caller may keep
// but not change them.
var X25519LowOrder = func() []Key {
	base := []struct{ id, what, hex string }{
		{"0", "u = 0", "0000000000000000000000000000000000000000000000000000000000000000"},
		{"1", "u = 1", "0100000000000000000000000000000000000000000000000000000000000000"},
		{"order8a", "a point of order 8", "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"},
		{"order8b", "the other point of order 8", "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"},
		{"p-1", "u = p-1 (order 2)", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
		{"p", "u = p, the non-canonical 0", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
		{"p+1", "u = p+1, the non-canonical 1", "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	}
	var out []Key
	for _, b := range base {
		u, err := hex.DecodeString(b.hex)
		if err != nil {
			panic(err)
		}
		high := bytes.Clone(u)
		high[31] |= 0x80
		out = append(out,
			Key{"x25519-" + b.id, b.what, u, false},
			Key{"x25519-" + b.id + "-bit255", b.what + ", with bit 255 set", high, false})
	}
	return out
}()

// NIST returns invalid encodings for curve (P-256 or P-384), most of them
// re-encoding point, a valid uncompressed point of the curve (a peer that
// accepts them computes that point's shared secret), and x + p for a
// point with a small x (so that x + p still fits the field size): not on
// the curve, the point at infinity in two forms, compressed (short and
// zero-padded to the uncompressed length), hybrid, coordinates padded by
// a byte, and x + p (also padded, for the point itself).
func NIST(curve elliptic.Curve, point []byte) []Key {
	params := curve.Params()
	n := (params.BitSize + 7) / 8
	x, y := point[1:1+n], point[1+n:]
	compressed := append([]byte{2 + y[n-1]&1}, x...)
	offCurve := bytes.Clone(point)
	offCurve[len(offCurve)-1] ^= 1
	sx, sy := SmallPoint(params)
	xPlusP := new(big.Int).Add(sx, params.P).FillBytes(make([]byte, n))
	// The point itself with each coordinate one byte longer, and with x + p
	// as its x-coordinate (which fits then): what a decoder that takes any
	// even length and reduces mod p reads as the point.
	padded := append(append([]byte{4, 0}, x...), append([]byte{0}, y...)...)
	longXPlusP := new(big.Int).Add(new(big.Int).SetBytes(x), params.P).FillBytes(make([]byte, n+1))
	return []Key{
		{"point-not-on-curve", "a point not on the curve (y changed)", offCurve, false},
		{"point-infinity", "the point at infinity as 04 followed by zeros", append([]byte{4}, make([]byte, 2*n)...), false},
		{"point-infinity-sec1", "the point at infinity in SEC1 form, the single byte 00", []byte{0}, false},
		{"point-compressed", "a compressed point (SEC1 02/03), shorter than an uncompressed one", compressed, true},
		{"point-compressed-padded", "a compressed point zero-padded to the uncompressed length", append(bytes.Clone(compressed), make([]byte, n)...), true},
		{"point-hybrid", "a point in SEC1's hybrid form (06/07)", append([]byte{6 + y[n-1]&1}, point[1:]...), true},
		{"point-padded", "an uncompressed point with each coordinate zero-padded by one byte", padded, true},
		{"point-x-plus-p", "a point whose x-coordinate is given as x + p (not below p)", append(append([]byte{4}, xPlusP...), sy.FillBytes(make([]byte, n))...), false},
		{"point-x-plus-p-padded", "a point whose x-coordinate is given as x + p in one byte more, y zero-padded by one byte",
			append(append([]byte{4}, longXPlusP...), append([]byte{0}, y...)...), true},
	}
}

// SmallPoint returns the point of the curve with the smallest positive x
// (y even), for which x + p < 2^BitSize on P-256 and P-384.
func SmallPoint(params *elliptic.CurveParams) (x, y *big.Int) {
	p := params.P
	three := big.NewInt(3)
	for i := int64(1); ; i++ {
		x = big.NewInt(i)
		// y² = x³ − 3x + b
		rhs := new(big.Int).Exp(x, three, p)
		rhs.Sub(rhs, new(big.Int).Mul(three, x))
		rhs.Add(rhs, params.B)
		rhs.Mod(rhs, p)
		if y = new(big.Int).ModSqrt(rhs, p); y != nil {
			if y.Bit(0) == 1 {
				y.Sub(p, y)
			}
			return x, y
		}
	}
}
