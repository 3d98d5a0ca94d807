//go:build !purego

package core

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/cpudebug"
	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// The AVX2 assembly kernels against the scalar code they replace, on
// random inputs, in the same binary. (The fast-vs-reference tests of the
// other files run the assembly path whenever the CPU has AVX2, since they
// call the dispatching functions.)

// withoutAsm runs f with the assembly path off, then restores it. Tests
// that use it must not be parallel, so that no other test runs while the
// switch is off.
func withoutAsm(f func()) {
	defer UseVectorPath(UseVectorPath(false))
	f()
}

// asmIterations is iterations without t.Parallel (see withoutAsm).
func asmIterations(t *testing.T, n int) int {
	return tier.Size(t, max(1, n/10), n, 10000)
}

// needAsm stops a test that needs the assembly path on a CPU without
// AVX2: it fails in CI (CI=true; CI's machines have AVX2 and .ci/run
// checks) and skips elsewhere, so that go test passes on older machines.
// It skips in CI too where GODEBUG turns AVX2 off (.ci/run's run of the
// scalar code on the assembly build).
func needAsm(t *testing.T) {
	t.Helper()
	if cpudebug.Off("avx2") {
		t.Skip("GODEBUG turns AVX2 off: the assembly path cannot be tested in this run")
	}
	if !hasAVX2 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CPU without AVX2: the assembly path cannot be tested here")
		}
		t.Skip("CPU without AVX2: the assembly path cannot be tested here")
	}
	if !asmEnabled {
		t.Fatal("the assembly path is off on a CPU with AVX2")
	}
}

// TestAsmEnabled: on an AVX2 CPU the assembly path is on, and
// UseVectorPath switches it. (TestVecarithMirror checks what pqkex bench
// reports of it.)
func TestAsmEnabled(t *testing.T) {
	needAsm(t)
	if !UseVectorPath(false) || asmEnabled || UseVectorPath(true) || !asmEnabled {
		t.Fatal("UseVectorPath does not switch asmEnabled")
	}
}

func randomRqPoly(rng *rand.Rand, a *[P]int16) {
	for i := range a {
		a[i] = int16(rng.IntN(Q) - Q12)
	}
}

func randomSmallPoly(rng *rand.Rand, a *[P]int8) {
	for i := range a {
		a[i] = int8(rng.IntN(3) - 1)
	}
}

// TestShoupCompanion: recipRqStepsAVX2 computes the Shoup companion
// ((c+q)*2^16 + q/2)/q - 2^16 of every multiplier c in [-q12, q12] as a
// multiplication by ceil(2^42/q) and a shift; this checks that the two
// agree on every c (the kernel's recipRq tests check its results).
func TestShoupCompanion(t *testing.T) {
	const m = (1<<42 + Q - 1) / Q
	for c := int64(-Q12); c <= Q12; c++ {
		n := (c+Q)<<16 + Q/2
		if n*m>>42 != n/Q {
			t.Fatalf("c = %d: %d, want %d", c, n*m>>42, n/Q)
		}
	}
}

// TestRecipRqAsm: recipRq on the assembly path gives the scalar path's
// bytes, for random a, for a multiple of x^p-x-1 plus nothing (a = 0, not
// invertible) and for sparse a.
func TestRecipRqAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range asmIterations(t, 60) {
		var a [P]int16
		switch it % 3 {
		case 0:
			randomRqPoly(rng, &a)
		case 1:
			a[rng.IntN(P)] = int16(rng.IntN(Q) - Q12)
		}
		if it == 2 {
			clear(a[:])
		}
		scale := int16(rng.IntN(Q) - Q12)
		var got, want [P]int16
		gr := recipRq(&got, &a, scale)
		var wr int32
		withoutAsm(func() { wr = recipRq(&want, &a, scale) })
		if gr != wr || (wr == 0 && got != want) {
			t.Fatalf("iteration %d: assembly (%d) differs from scalar (%d)", it, gr, wr)
		}
	}
}

// TestR3RecipAsm: r3Recip on the assembly path gives the scalar path's
// result for random small a (invertible or not), sparse a and a = 0.
func TestR3RecipAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(5, 6))
	invertible := 0
	for it := range asmIterations(t, 100) {
		var a [P]int8
		switch it % 3 {
		case 0, 1:
			randomSmallPoly(rng, &a)
		case 2:
			a[rng.IntN(P)] = int8(1 - 2*rng.IntN(2))
		}
		if it == 5 {
			clear(a[:])
		}
		var got, want [P]int8
		gr := r3Recip(&got, &a)
		var wr int32
		withoutAsm(func() { wr = r3Recip(&want, &a) })
		if gr != wr || (wr == 0 && got != want) {
			t.Fatalf("iteration %d: assembly (%d) differs from scalar (%d)", it, gr, wr)
		}
		if wr == 0 {
			invertible++
		}
	}
	if invertible == 0 {
		t.Fatal("no invertible input: the comparison of results never ran")
	}
}

// TestSortAsm: sortShort, shortFromList and smallFromList on the assembly
// path give the
// scalar path's results for random lists, lists of few distinct values
// (ties) and sorted/reversed lists.
func TestSortAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for it := range asmIterations(t, 200) {
		var L [P]uint32
		for i := range L {
			switch it % 4 {
			case 0:
				L[i] = rng.Uint32() % 0xffffffff
			case 1:
				L[i] = uint32(rng.IntN(4)) << uint(rng.IntN(31))
			case 2:
				L[i] = uint32(i) * 5
			case 3:
				L[i] = 0xfffffffe - uint32(i)
			}
		}
		got, want := L, L
		sortShort(&got)
		withoutAsm(func() { sortShort(&want) })
		if got != want {
			t.Fatalf("iteration %d: sortShort differs", it)
		}
		var gs, ws [P]int8
		shortFromList(&gs, &L)
		withoutAsm(func() { shortFromList(&ws, &L) })
		if gs != ws {
			t.Fatalf("iteration %d: shortFromList differs", it)
		}
		smallFromList(&gs, &L)
		withoutAsm(func() { smallFromList(&ws, &L) })
		if gs != ws {
			t.Fatalf("iteration %d: smallFromList differs", it)
		}
	}
}

// TestFFTStagesAsm: the FFT passes in assembly compute the same float64
// values as the scalar passes, bit for bit (both round every operation
// once; the default GOAMD64 has no fused multiply-add), on random values
// of transform size: the forward pass after the radix-3 stage and the
// inverse passes down to it, of plan768, and the radix-16 passes alone
// (dif16; dit16Products with and without the sum of two products), the
// last inverse pass with its rounding (lastInverse768) and the forward
// transform from integer coefficients (forwardInt: twistRadix3AVX2).
func TestFFTStagesAsm(t *testing.T) {
	needAsm(t)
	if fmaBuild {
		t.Skip("GOAMD64=v3 or later: the compiler may fuse the scalar code's multiply-adds")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for it := range asmIterations(t, 50) {
		var x [768]complex128
		for i := range x {
			x[i] = complex(float64(rng.IntN(1<<20)-1<<19)*rng.Float64(), float64(rng.IntN(1<<20)-1<<19)*rng.Float64())
		}
		got, want := x, x
		plan768().difFrom(got[:], 1)
		withoutAsm(func() { plan768().difFrom(want[:], 1) })
		if got != want {
			t.Fatalf("iteration %d: difFrom differs", it)
		}
		got, want = x, x
		plan768().ditTo(got[:], 1)
		withoutAsm(func() { plan768().ditTo(want[:], 1) })
		if got != want {
			t.Fatalf("iteration %d: ditTo differs", it)
		}
		got, want = x, x
		dif16(got[:])
		withoutAsm(func() { dif16(want[:]) })
		if got != want {
			t.Fatalf("iteration %d: dif16 differs", it)
		}
		var gc, wc [1536]int64
		got = x
		plan768().lastInverse768(&got, &gc)
		withoutAsm(func() { plan768().lastInverse768(&got, &wc) })
		if gc != wc {
			t.Fatalf("iteration %d: lastInverse768 differs", it)
		}
		for _, n := range []int{761, 768, 700} { // public lengths up to m
			a := make([]int16, n)
			for i := range a {
				a[i] = int16(rng.IntN(Q) - Q12)
			}
			var gs, ws [768]complex128
			forwardInt(plan768(), gs[:], a)
			withoutAsm(func() { forwardInt(plan768(), ws[:], a) })
			if gs != ws {
				t.Fatalf("iteration %d: forwardInt (%d int16 coefficients) differs", it, n)
			}
			s := make([]int8, n)
			for i := range s {
				s[i] = int8(rng.IntN(3) - 1)
			}
			forwardInt(plan768(), gs[:], s)
			withoutAsm(func() { forwardInt(plan768(), ws[:], s) })
			if gs != ws {
				t.Fatalf("iteration %d: forwardInt (%d int8 coefficients) differs", it, n)
			}
		}
		var y, u, v [768]complex128
		for i := range y {
			y[i] = complex(rng.NormFloat64()*1e3, rng.NormFloat64()*1e3)
			u[i] = complex(rng.NormFloat64()*1e3, rng.NormFloat64()*1e3)
			v[i] = complex(rng.NormFloat64()*1e3, rng.NormFloat64()*1e3)
		}
		var gz, wz [768]complex128
		dit16Products(gz[:], x[:], y[:], nil, nil)
		withoutAsm(func() { dit16Products(wz[:], x[:], y[:], nil, nil) })
		if gz != wz {
			t.Fatalf("iteration %d: dit16Products (a*b) differs", it)
		}
		dit16Products(gz[:], x[:], y[:], u[:], v[:])
		withoutAsm(func() { dit16Products(wz[:], x[:], y[:], u[:], v[:]) })
		if gz != wz {
			t.Fatalf("iteration %d: dit16Products (a*b + c*d) differs", it)
		}
	}
}

// TestFoldsAsm: the folds after a product (mulRounded's digits, mulLift3,
// foldR3, foldRq) on the assembly path give the scalar code's bytes, for linear
// products c with coefficients of the sizes the products produce (Rq
// times small: |c_i| < 761*2295; small times small: |c_i| <= 761) and at
// those bounds.
func TestFoldsAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range asmIterations(t, 200) {
		var c [1536]int64
		bound := int64(761 * 2295)
		if it%2 == 1 {
			bound = 761
		}
		for i := range 2*P - 1 {
			c[i] = rng.Int64N(2*bound+1) - bound
			if it%7 == 0 {
				c[i] = bound * (1 - 2*int64(i&1))
			}
		}
		var gr, wr [P]uint32
		var ge, we, g3, w3 [P]int8
		var gq, wq [P]int16
		gc := c
		foldRound(&gr, &gc)
		foldLift3(&ge, &gc)
		foldR3(&g3, &gc)
		foldRq(&gq, &gc)
		withoutAsm(func() {
			wc := c
			foldRound(&wr, &wc)
			foldLift3(&we, &wc)
			foldR3(&w3, &wc)
			foldRq(&wq, &wc)
		})
		if gr != wr || ge != we || g3 != w3 || gq != wq {
			t.Fatalf("iteration %d: a fold differs (digits %v, lift3 %v, R3 %v, Rq %v)", it, gr == wr, ge == we, g3 == w3, gq == wq)
		}
	}
}

// TestFoldSplitAsm: mulSplit's split (foldSplit, k = 1 and 3) on the
// assembly path gives the scalar code's bytes, for linear products with
// coefficients of the sizes batch.go forms (|c_i| < 2^32, so that the
// folded ones stay below 2^34), at those bounds, and for products whose
// low part sits at the split's edges (centered residues near -2^23 and
// 2^23 - 1).
func TestFoldSplitAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for it := range asmIterations(t, 200) {
		var c [1536]int64
		const bound = int64(1) << 32
		for i := range 2*P - 1 {
			switch it % 4 {
			case 0:
				c[i] = rng.Int64N(2*bound+1) - bound
			case 1:
				c[i] = bound * (1 - 2*int64(i&1))
			case 2: // low parts near the edges of the centered residue
				c[i] = rng.Int64N(1<<10)<<24 + (1<<23 - 1 - rng.Int64N(3))
				if i%3 == 0 {
					c[i] = -c[i]
				}
			default:
				c[i] = rng.Int64N(2*761*2295+1) - 761*2295 + (rng.Int64N(1523)-761)<<24
			}
		}
		for _, k := range []int64{1, 3} {
			var gq, wq [P]int16
			var g3, w3 [P]int8
			gc := c
			foldSplit(&gq, &g3, k, &gc)
			withoutAsm(func() {
				wc := c
				foldSplit(&wq, &w3, k, &wc)
			})
			if gq != wq || g3 != w3 {
				t.Fatalf("iteration %d, k %d: the split differs (R/q %v, R/3 %v)", it, k, gq == wq, g3 == w3)
			}
		}
	}
}

// TestR3InvertibleAsm: the factor test on the assembly path
// (r3ResiduesAVX2, r3Rem682AVX2) agrees with the scalar one, on random g
// (almost all invertible), on multiples of each factor and of two of them
// (not invertible), on those plus one (mostly invertible), and on g = 0
// and g = ±1.
func TestR3InvertibleAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(15, 16))
	factors := [][]int8{factor19, factor60, r3Tables().factor682, mul3poly(factor19, factor60)}
	n := asmIterations(t, 100)
	var zeros, ones int
	for it := range n + 3 {
		var g [P]int8
		switch {
		case it == n:
		case it > n:
			g[0] = int8(2*(it-n) - 3) // ±1
		case it%3 == 0:
			randomSmallPoly(rng, &g)
		default:
			f := factors[it/3%len(factors)]
			s := make([]int8, P-len(f)+1)
			for i := range s {
				s[i] = int8(rng.IntN(3)) - 1
			}
			copy(g[:], mul3poly(f, s))
			if it%3 == 2 {
				g[0] = freeze3(int64(g[0]) + 1)
			}
		}
		got := r3Invertible(&g)
		var want uint64
		withoutAsm(func() { want = r3Invertible(&g) })
		if got != want {
			t.Fatalf("iteration %d: r3Invertible %d on the assembly path, %d scalar", it, got, want)
		}
		if got == 0 {
			zeros++
		} else {
			ones++
		}
	}
	if zeros < n/3 || ones < n/3 {
		t.Fatalf("inputs not varied: %d not invertible, %d invertible", zeros, ones)
	}
}

// TestSplitSpectrumAsm: scaleSplit and addSplit on the assembly path give
// the scalar code's values exactly, on spectra of random values of mixed
// magnitudes and signs.
func TestSplitSpectrumAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(17, 18))
	value := func() float64 {
		return (rng.Float64()*2 - 1) * float64(uint64(1)<<rng.IntN(40))
	}
	for it := range asmIterations(t, 50) {
		var lo, hi spectrum
		for j := range lo {
			lo[j] = complex(value(), value())
			hi[j] = complex(value(), value())
		}
		gs, gz := hi, spectrum{}
		gs.scaleSplit()
		gz.addSplit(&lo, &hi)
		ws, wz := hi, spectrum{}
		withoutAsm(func() {
			ws.scaleSplit()
			wz.addSplit(&lo, &hi)
		})
		if gs != ws || gz != wz {
			t.Fatalf("iteration %d: scaleSplit %v, addSplit %v", it, gs == ws, gz == wz)
		}
		if gs == hi {
			t.Fatalf("iteration %d: scaleSplit changed nothing", it)
		}
	}
}

// asmCodec is a mixed-radix codec with its modulus.
type asmCodec struct {
	codec *radixCodec
	m     uint32
}

// asmCodecs returns the codecs of public keys (R/q) and ciphertexts
// (rounded).
func asmCodecs() []asmCodec {
	return []asmCodec{{rqCodec(), Q}, {roundedCodec(), (Q + 2) / 3}}
}

// TestEncodeAsm: the mixed-radix encoders (public keys and ciphertexts)
// on the assembly path (encodeBulk1AVX2, encodeBulk2AVX2 for the bulk of
// each level) give the scalar code's bytes, for random values and for
// all values at their maximum.
func TestEncodeAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(19, 20))
	for it := range asmIterations(t, 100) {
		for _, c := range asmCodecs() {
			var R [P]uint32
			for i := range R {
				R[i] = rng.Uint32N(c.m)
				if it == 0 {
					R[i] = c.m - 1
				}
			}
			got := make([]byte, c.codec.size)
			want := make([]byte, c.codec.size)
			c.codec.encode(got, R[:])
			withoutAsm(func() { c.codec.encode(want, R[:]) })
			if !bytes.Equal(got, want) {
				t.Fatalf("iteration %d, modulus %d: the encodings differ", it, c.m)
			}
		}
	}
}

// TestDecodeListAsm: decodeList on the assembly path reads the same list
// as the scalar code, and clears the buffer.
func TestDecodeListAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(21, 22))
	for it := range asmIterations(t, 20) {
		var buf, b1, b2 [randomBytes]byte
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		var got, want [P]uint32
		b1, b2 = buf, buf
		decodeList(&got, &b1)
		withoutAsm(func() { decodeList(&want, &b2) })
		if got != want || b1 != [randomBytes]byte{} {
			t.Fatalf("iteration %d: decodeList differs or left the buffer", it)
		}
	}
}

// TestDecodeAsm: the mixed-radix decoders on the assembly path
// (decodeBulk1AVX2, decodeBulk2AVX2 for the bulk of each level) give the
// scalar code's values for random byte strings (which need not be valid
// encodings: decoding is total), all-ones and all-zero strings, and
// encodings of random values.
func TestDecodeAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(23, 24))
	for it := range asmIterations(t, 100) {
		for _, c := range asmCodecs() {
			s := make([]byte, c.codec.size)
			switch it % 4 {
			case 0:
				for i := range s {
					s[i] = 0xff
				}
			case 1:
				var R [P]uint32
				for i := range R {
					R[i] = rng.Uint32N(c.m)
				}
				withoutAsm(func() { c.codec.encode(s, R[:]) })
			case 2:
				for i := range s {
					s[i] = byte(rng.Uint32())
				}
			}
			var got, want [P]uint32
			c.codec.decode(got[:], s)
			withoutAsm(func() { c.codec.decode(want[:], s) })
			if got != want {
				t.Fatalf("iteration %d, modulus %d: the decodings differ", it, c.m)
			}
		}
	}
}

// TestSmallEncodeAsm: smallEncode on the assembly path gives the scalar
// code's bytes, for random small elements, for ones with coefficients 2
// (which decoded secret keys may carry), and for the constants -1 and 2.
func TestSmallEncodeAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(25, 26))
	for it := range asmIterations(t, 100) {
		var f [P]int8
		for i := range f {
			switch it % 4 {
			case 0, 1:
				f[i] = int8(rng.IntN(3)) - 1
			case 2:
				f[i] = int8(rng.IntN(4)) - 1
			default:
				f[i] = int8(3*(it/4%2) - 1) // all -1 or all 2
			}
		}
		got := make([]byte, smallBytes)
		want := make([]byte, smallBytes)
		smallEncode(got, &f)
		withoutAsm(func() { smallEncode(want, &f) })
		if !bytes.Equal(got, want) {
			t.Fatalf("iteration %d: smallEncode differs", it)
		}
	}
}

// TestDecryptAsm: decryption (decrypt, whose weight check and result run
// in decryptFinishAVX2 on the assembly path) gives the scalar code's r for
// valid ciphertexts (weight w) and for random ones (almost never weight
// w: the fixed Short is returned).
func TestDecryptAsm(t *testing.T) {
	needAsm(t)
	rng := rand.New(rand.NewPCG(27, 28))
	sk, err := GenerateKey(cryptoRandReader{rng})
	if err != nil {
		t.Fatal(err)
	}
	var valid, invalid int
	for it := range asmIterations(t, 60) {
		var c [P]int16
		if it%2 == 0 {
			var r [P]int8
			var L [P]uint32
			for i := range L {
				L[i] = rng.Uint32()
			}
			shortFromList(&r, &L)
			var R [P]uint32
			var sr spectrum
			sr.transformSmall(&r)
			mulRounded(&R, &sr, &sr, &sk.pk.sh)
			for i := range c {
				c[i] = int16(3*int32(R[i]) - Q12)
			}
		} else {
			for i := range c {
				c[i] = int16(3*rng.IntN(1531) - Q12)
			}
		}
		var got, want [P]int8
		sk.decrypt(&got, &c)
		withoutAsm(func() { sk.decrypt(&want, &c) })
		if got != want {
			t.Fatalf("iteration %d: decrypt differs", it)
		}
		if got[0] == 1 && got[W-1] == 1 && got[W] == 0 && got[P-1] == 0 {
			invalid++
		} else {
			valid++
		}
	}
	if valid == 0 || invalid == 0 {
		t.Fatalf("inputs not varied: %d valid, %d invalid", valid, invalid)
	}
}

// cryptoRandReader is an io.Reader of a math/rand source, for
// reproducible keys in tests.
type cryptoRandReader struct{ rng *rand.Rand }

func (r cryptoRandReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(r.rng.Uint32())
	}
	return len(b), nil
}
