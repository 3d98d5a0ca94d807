package ref

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFreezeQ(t *testing.T) {
	check := func(x int32) {
		got := FreezeQ(x)
		want := ((int64(x) % Q) + Q) % Q
		if want > Q12 {
			want -= Q
		}
		if int64(got) != want {
			t.Fatalf("FreezeQ(%d) = %d, want %d", x, got, want)
		}
	}
	for _, x := range []int32{0, 1, -1, Q, -Q, Q12, -Q12, Q12 + 1, -Q12 - 1, 1<<31 - 1, -1 << 31} {
		check(x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(int32(rng.Uint32()))
	}
}

func TestFreeze3(t *testing.T) {
	for x := int32(-1 << 20); x < 1<<20; x += 7 {
		want := ((x % 3) + 3) % 3
		if want == 2 {
			want = -1
		}
		if got := Freeze3(x); int32(got) != want {
			t.Fatalf("Freeze3(%d) = %d, want %d", x, got, want)
		}
	}
}

func randSmall(rng *rand.Rand) (f [P]int8) {
	for i := range f {
		f[i] = int8(rng.IntN(3)) - 1
	}
	return f
}

func randRq(rng *rand.Rand) (f [P]int16) {
	for i := range f {
		f[i] = int16(rng.IntN(Q)) - Q12
	}
	return f
}

func one[T int8 | int16]() (f [P]T) {
	f[0] = 1
	return f
}

func TestR3Recip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inv := 0
	for range 20 {
		g := randSmall(rng)
		v, ok := R3Recip(&g)
		if ok == 0 {
			inv++
			if R3Mult(&g, &v) != one[int8]() {
				t.Fatal("g * (1/g) != 1 in R/3")
			}
		}
	}
	if inv == 0 {
		t.Fatal("no random g was invertible")
	}
	var zero [P]int8
	if _, ok := R3Recip(&zero); ok != -1 {
		t.Fatal("0 reported invertible in R/3")
	}
	// x^p - x - 1 = (x - 1)(...) + ... : in R/3, the element 1 + x + ... + x^(p-1)
	// evaluated structure aside, g = x - 1 is invertible iff 1 is not a root
	// of x^p - x - 1 mod 3 (1 - 1 - 1 = -1 != 0), so it must invert.
	var xm1 [P]int8
	xm1[0], xm1[1] = -1, 1
	if v, ok := R3Recip(&xm1); ok != 0 || R3Mult(&xm1, &v) != one[int8]() {
		t.Fatal("x - 1 did not invert in R/3")
	}
}

func TestRqRecip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		f := randRq(rng)
		v, ok := RqRecip(&f)
		if ok != 0 || RqMult(&f, &v) != one[int16]() {
			t.Fatal("f * (1/f) != 1 in R/q")
		}
		s := randSmall(rng)
		w, ok := RqRecip3(&s)
		s3 := RqMult3(&w)
		if ok != 0 || RqMultSmall(&s3, &s) != one[int16]() {
			t.Fatal("3s * (1/(3s)) != 1 in R/q")
		}
	}
	var zero [P]int16
	if _, ok := RqRecip(&zero); ok != -1 {
		t.Fatal("0 reported invertible in R/q")
	}
}

func TestMultAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := randRq(rng)
	g := randSmall(rng)
	var g16 [P]int16
	for i := range g {
		g16[i] = int16(g[i])
	}
	if RqMultSmall(&f, &g) != RqMult(&f, &g16) {
		t.Fatal("RqMultSmall and RqMult disagree")
	}
	// x * x^(p-1) = x^p = x + 1
	var a, b [P]int8
	a[1], b[P-1] = 1, 1
	want := [P]int8{1, 1}
	if R3Mult(&a, &b) != want {
		t.Fatal("x * x^(p-1) != x + 1 in R/3")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		h := randRq(rng)
		enc := RqEncode(&h)
		if len(enc) != RqBytes || RqDecode(enc) != h {
			t.Fatal("Rq encode/decode round trip")
		}
		c := Round(&h)
		enc = RoundedEncode(&c)
		if len(enc) != RoundedBytes || RoundedDecode(enc) != c {
			t.Fatal("Rounded encode/decode round trip")
		}
		s := randSmall(rng)
		if SmallDecode(SmallEncode(&s)) != s {
			t.Fatal("Small encode/decode round trip")
		}
	}
	// Total decoding: out-of-range input decodes into range.
	junk := bytes.Repeat([]byte{0xff}, RqBytes)
	for _, c := range RqDecode(junk) {
		if c < -Q12 || c > Q12 {
			t.Fatal("RqDecode produced an out-of-range coefficient")
		}
	}
	junk = bytes.Repeat([]byte{0xff}, RoundedBytes)
	for _, c := range RoundedDecode(junk) {
		if c < -Q12 || c > Q12 || (c+Q12)%3 != 0 {
			t.Fatal("RoundedDecode produced an invalid coefficient")
		}
	}
}

func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 3, 5, 16, 17, 100, 761, 1024} {
		x := make([]uint32, n)
		for i := range x {
			x[i] = rng.Uint32()
			if i%5 == 0 {
				x[i] = x[i] >> 28 // plenty of duplicates
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		SortUint32(x)
		if !slices.Equal(x, want) {
			t.Fatalf("n=%d: not sorted", n)
		}
	}
}

func TestShortWeight(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 50 {
		var L [P]uint32
		for i := range L {
			L[i] = rng.Uint32()
		}
		r := ShortFromList(&L)
		if WeightMask(&r) != 0 {
			t.Fatal("ShortFromList did not produce weight W")
		}
		i := rng.IntN(P)
		if r[i] == 0 { // move the weight away from W by one
			r[i] = 1
		} else {
			r[i] = 0
		}
		w := 0
		for _, c := range r {
			if c != 0 {
				w++
			}
		}
		if (w == W) != (WeightMask(&r) == 0) {
			t.Fatal("WeightMask disagrees with a count")
		}
	}
}
