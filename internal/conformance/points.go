package conformance

// The classical halves that the specifications require a peer to refuse,
// as data: X25519 public keys whose shared secret is all zero, and
// P-256 / P-384 encodings that are not a valid uncompressed point.

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"math/big"
)

// badValue is one invalid classical public key and what makes it so.
type badValue struct {
	id    string // the case's name
	what  string // for people
	value []byte
	// lenient is the classical shared secret of a peer that skips the
	// check this value fails, when it can be known: signing with the K of
	// that secret makes such a client accept instead of failing on the
	// signature.
	lenient lenientSecret
	// expect and clause, if set, replace the abort a bad value requires
	// and the curve's clause: for what the specification allows.
	expect Expectation
	clause string
}

type lenientSecret int

const (
	unknownSecret lenientSecret = iota // such a peer computes something else, or fails anyway
	zeroSecret                         // all zero: X25519 with a low-order point
	honestSecret                       // the secret of the valid point the value re-encodes
)

// x25519LowOrder are the X25519 u-coordinates of small order (RFC 7748
// §7), canonical and not (p, p+1), each also with bit 255 set, which RFC
// 7748 §5 says to ignore: every one gives the all-zero shared secret that
// RFC 8731 §3 requires a peer to refuse.
var x25519LowOrder = func() []badValue {
	base := []struct{ id, what, hex string }{
		{"0", "u = 0", "0000000000000000000000000000000000000000000000000000000000000000"},
		{"1", "u = 1", "0100000000000000000000000000000000000000000000000000000000000000"},
		{"order8a", "a point of order 8", "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"},
		{"order8b", "the other point of order 8", "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"},
		{"p-1", "u = p-1 (order 2)", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
		{"p", "u = p, the non-canonical 0", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
		{"p+1", "u = p+1, the non-canonical 1", "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
	}
	var out []badValue
	for _, b := range base {
		u, err := hex.DecodeString(b.hex)
		if err != nil {
			panic(err)
		}
		high := bytes.Clone(u)
		high[31] |= 0x80
		out = append(out,
			badValue{id: "x25519-" + b.id, what: b.what, value: u, lenient: zeroSecret},
			badValue{id: "x25519-" + b.id + "-bit255", what: b.what + ", with bit 255 set", value: high, lenient: zeroSecret})
	}
	return out
}()

// nistBad returns invalid encodings for curve, most of them re-encoding
// the valid uncompressed point (a peer that accepts them computes that
// point's shared secret), and x + p for a point with a small x (so that
// x + p still fits the field size).
func nistBad(curve elliptic.Curve, point []byte) []badValue {
	params := curve.Params()
	n := (params.BitSize + 7) / 8
	x, y := point[1:1+n], point[1+n:]
	compressed := append([]byte{2 + y[n-1]&1}, x...)
	offCurve := bytes.Clone(point)
	offCurve[len(offCurve)-1] ^= 1
	sx, sy := smallPoint(params)
	xPlusP := new(big.Int).Add(sx, params.P).FillBytes(make([]byte, n))
	// The point itself with each coordinate one byte longer, and with x + p
	// as its x-coordinate (which fits then): what a decoder that takes any
	// even length and reduces mod p reads as the point.
	padded := append(append([]byte{4, 0}, x...), append([]byte{0}, y...)...)
	longXPlusP := new(big.Int).Add(new(big.Int).SetBytes(x), params.P).FillBytes(make([]byte, n+1))
	return []badValue{
		{id: "point-not-on-curve", what: "a point not on the curve (y changed)", value: offCurve},
		{id: "point-infinity", what: "the point at infinity as 04 followed by zeros", value: append([]byte{4}, make([]byte, 2*n)...)},
		{id: "point-infinity-sec1", what: "the point at infinity in SEC1 form, the single byte 00", value: []byte{0}},
		{id: "point-compressed", what: "a compressed point (SEC1 02/03), shorter than an uncompressed one", value: compressed, lenient: honestSecret,
			// RFC 10042 §2.3.1-2.3.2: "point compression may be used".
			expect: ExpectEither, clause: "RFC 10042 §2.3.1-2.3.2 (point compression may be used)"},
		{id: "point-compressed-padded", what: "a compressed point zero-padded to the uncompressed length", value: append(bytes.Clone(compressed), make([]byte, n)...), lenient: honestSecret},
		{id: "point-hybrid", what: "a point in SEC1's hybrid form (06/07)", value: append([]byte{6 + y[n-1]&1}, point[1:]...), lenient: honestSecret},
		{id: "point-padded", what: "an uncompressed point with each coordinate zero-padded by one byte", value: padded, lenient: honestSecret},
		{id: "point-x-plus-p", what: "a point whose x-coordinate is given as x + p (not below p)", value: append(append([]byte{4}, xPlusP...), sy.FillBytes(make([]byte, n))...)},
		{id: "point-x-plus-p-padded", what: "a point whose x-coordinate is given as x + p in one byte more, y zero-padded by one byte",
			value: append(append([]byte{4}, longXPlusP...), append([]byte{0}, y...)...), lenient: honestSecret},
	}
}

// smallPoint returns the point of the curve with the smallest positive x
// (y even), for which x + p < 2^BitSize on P-256 and P-384.
func smallPoint(params *elliptic.CurveParams) (x, y *big.Int) {
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

// setCoefficient sets coefficient j of polynomial i of an ML-KEM
// encapsulation key ek (FIPS 203 Algorithm 5, ByteEncode_12: two 12-bit
// coefficients in three bytes, little-endian) to v.
func setCoefficient(ek []byte, i, j int, v uint16) {
	b := ek[384*i+3*(j/2):]
	if j%2 == 0 {
		b[0] = byte(v)
		b[1] = b[1]&0xf0 | byte(v>>8)&0x0f
	} else {
		b[1] = b[1]&0x0f | byte(v<<4)
		b[2] = byte(v >> 4)
	}
}

// modulusCase is an ML-KEM encapsulation key failing the modulus check of
// FIPS 203 §7.2 in one place: a coefficient at or above q = 3329.
type modulusCase struct {
	id, what string
	set      func(ek []byte, k int)
}

const mlkemQ = 3329

var modulusCases = []modulusCase{
	{"ek-modulus-first", "coefficient 0 of polynomial 0 (an even position) equal to q",
		func(ek []byte, k int) { setCoefficient(ek, 0, 0, mlkemQ) }},
	{"ek-modulus-odd", "coefficient 1 of polynomial 0 (an odd position) equal to q",
		func(ek []byte, k int) { setCoefficient(ek, 0, 1, mlkemQ) }},
	{"ek-modulus-last", "the last coefficient of the last polynomial equal to q",
		func(ek []byte, k int) { setCoefficient(ek, k-1, 255, mlkemQ) }},
	{"ek-modulus-max", "coefficient 128 of polynomial 1 equal to 4095, the largest 12-bit value",
		func(ek []byte, k int) { setCoefficient(ek, 1, 128, 4095) }},
}
