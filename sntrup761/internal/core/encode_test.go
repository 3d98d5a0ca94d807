package core

import (
	"bytes"
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func TestCodecSizes(t *testing.T) {
	if rqCodec().size != rqBytes || roundedCodec().size != roundedBytes {
		t.Fatalf("sizes %d, %d", rqCodec().size, roundedCodec().size)
	}
}

func TestEncodeMatchesReference(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(8, 9))
	for range iterations(t, 200) {
		h := randRq(rng)
		var enc [rqBytes]byte
		rqEncode(enc[:], &h)
		if !bytes.Equal(enc[:], ref.RqEncode((*[ref.P]int16)(&h))) {
			t.Fatal("rqEncode differs from the reference")
		}
		var back [P]int16
		rqDecode(&back, enc[:])
		if back != h {
			t.Fatal("rqDecode does not invert rqEncode")
		}

		c := [P]int16(ref.Round((*[ref.P]int16)(&h)))
		var renc [roundedBytes]byte
		roundedEncode(renc[:], &c)
		if !bytes.Equal(renc[:], ref.RoundedEncode((*[ref.P]int16)(&c))) {
			t.Fatal("roundedEncode differs from the reference")
		}
		roundedDecode(&back, renc[:])
		if back != c {
			t.Fatal("roundedDecode does not invert roundedEncode")
		}

		s := randSmall(rng)
		var senc [smallBytes]byte
		smallEncode(senc[:], &s)
		if !bytes.Equal(senc[:], ref.SmallEncode((*[ref.P]int8)(&s))) {
			t.Fatal("smallEncode differs from the reference")
		}
	}
}

// TestDecodeArbitrary decodes random byte strings (mostly non-canonical)
// and compares with the reference's total decoders.
func TestDecodeArbitrary(t *testing.T) {
	for range 10000 {
		var s [rqBytes]byte
		rand.Read(s[:])
		if testing.Short() && s[0] > 16 {
			continue
		}
		var h, c [P]int16
		rqDecode(&h, s[:])
		if h != [P]int16(ref.RqDecode(s[:])) {
			t.Fatal("rqDecode differs from the reference")
		}
		roundedDecode(&c, s[:roundedBytes])
		if c != [P]int16(ref.RoundedDecode(s[:roundedBytes])) {
			t.Fatal("roundedDecode differs from the reference")
		}
		var f [P]int8
		smallDecode(&f, s[:smallBytes])
		if f != [P]int8(ref.SmallDecode(s[:smallBytes])) {
			t.Fatal("smallDecode differs from the reference")
		}
	}
	// all-ones bytes: every value at its maximum
	s := bytes.Repeat([]byte{0xff}, rqBytes)
	var h [P]int16
	rqDecode(&h, s)
	if h != [P]int16(ref.RqDecode(s)) {
		t.Fatal("rqDecode(ff...) differs from the reference")
	}
}

func BenchmarkRqDecode(b *testing.B) {
	var s [rqBytes]byte
	rand.Read(s[:])
	var h [P]int16
	for b.Loop() {
		rqDecode(&h, s[:])
	}
}

func BenchmarkRqEncode(b *testing.B) {
	rng := mrand.New(mrand.NewPCG(8, 9))
	h := randRq(rng)
	var s [rqBytes]byte
	for b.Loop() {
		rqEncode(s[:], &h)
	}
}
