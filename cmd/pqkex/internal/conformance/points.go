package conformance

// The classical halves that the specifications require a peer to refuse,
// as data: X25519 public keys whose shared secret is all zero, and
// P-256 / P-384 encodings that are not a valid uncompressed point.

import (
	"crypto/elliptic"

	"github.com/pqkex/pqkex/internal/tool/badkeys"
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

// x25519LowOrder are badkeys.X25519LowOrder: the X25519 u-coordinates of
// small order, canonical and not, each also with bit 255 set; every one
// gives the all-zero shared secret that RFC 8731 §3 requires a peer to
// refuse.
var x25519LowOrder = func() []badValue {
	var out []badValue
	for _, k := range badkeys.X25519LowOrder {
		out = append(out, badValue{id: k.ID, what: k.What, value: k.Value, lenient: zeroSecret})
	}
	return out
}()

// nistBad returns badkeys.NIST's invalid encodings for curve, most of
// them re-encoding the valid uncompressed point (a peer that accepts them
// computes that point's shared secret), and x + p for a point with a
// small x.
func nistBad(curve elliptic.Curve, point []byte) []badValue {
	var out []badValue
	for _, k := range badkeys.NIST(curve, point) {
		lenient := unknownSecret
		if k.Reencodes {
			lenient = honestSecret
		}
		b := badValue{id: k.ID, what: k.What, value: k.Value, lenient: lenient}
		if k.ID == "point-compressed" {
			// RFC 10042 §2.3.1-2.3.2: "point compression may be used".
			b.expect, b.clause = ExpectEither, "RFC 10042 §2.3.1-2.3.2 (point compression may be used)"
		}
		out = append(out, b)
	}
	return out
}

// smallPoint is badkeys.SmallPoint: the point with the smallest positive
// x (y even).
var smallPoint = badkeys.SmallPoint

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
