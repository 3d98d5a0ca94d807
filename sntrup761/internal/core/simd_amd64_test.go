//go:build goexperiment.simd && amd64

package core

import (
	"bytes"
	crand "crypto/rand"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/pqkex/pqkex/internal/vecarith"
)

// The vector kernels against the scalar code they replace, on random
// inputs, in the same binary. (The fast-vs-reference tests of the other
// files run the vector path whenever the CPU has AVX2, since they call the
// dispatching functions.)

// scalarToo runs f with the vector path off, then restores it. The tests
// that use it must not be parallel (t.Parallel), so that no other test
// runs while the switch is off; top-level tests that are not parallel never
// overlap with any other test.
func scalarToo(f func()) {
	defer func(on bool) { simdEnabled = on }(simdEnabled)
	simdEnabled = false
	f()
}

// simdIterations is iterations without t.Parallel (see scalarToo).
func simdIterations(n int) int {
	if os.Getenv("PQKEX_LONG") == "1" {
		return 10000
	}
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}

func needAVX2(t *testing.T) {
	if !simdEnabled {
		t.Fatal("GOEXPERIMENT=simd build on a CPU without AVX2: the vector path cannot be tested here")
	}
}

// TestGenerateKeysClearsSlotsBothPaths is TestGenerateKeysClearsSlots for
// the scalar batch (vector path switched off) and the vector batch, whose
// slots and batch buffers come from pools of their own.
func TestGenerateKeysClearsSlotsBothPaths(t *testing.T) {
	needAVX2(t)
	scalarToo(func() { checkBatchPoolsCleared(t, batchPool{"batchSlotPool", &batchSlotPool, 3}) })
	checkBatchPoolsCleared(t, batchPool{"vecSlotPool", &vecSlotPool, 3}, batchPool{"vecBatchPool", &vecBatchPool, 1})
}

// TestRecipRqClearsArenaScalar is TestRecipRqClearsArena with the vector
// path off (recipRqSIMD uses no arena).
func TestRecipRqClearsArenaScalar(t *testing.T) {
	needAVX2(t)
	scalarToo(func() { checkArenaCleared(t) })
}

// TestKEMClearsVecOps: the working buffers of the vector encapsulation and
// decapsulation products (vecOpPool) hold r, f, v and the products with
// them, so every one the operations took must go back all zero.
func TestKEMClearsVecOps(t *testing.T) {
	needAVX2(t)
	sk, err := GenerateKey(crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var ct [CiphertextSize]byte
	var k1, k2 [SharedKeySize]byte
	made := watchPools(func() {
		if err = sk.PublicKey().Encapsulate(crand.Reader, &ct, &k1); err == nil {
			sk.Decapsulate(&ct, &k2)
		}
	}, &vecOpPool)
	if err != nil || k1 != k2 {
		t.Fatalf("round trip failed (%v)", err)
	}
	runtime.GC()
	runtime.GC()
	if len(made[0]) == 0 {
		t.Fatal("encapsulation and decapsulation took nothing from vecOpPool")
	}
	for i, x := range made[0] {
		if dirty := nonZeroFields(x); len(dirty) > 0 {
			t.Errorf("vecOpPool object %d returned with %v not cleared", i, dirty)
		}
	}
}

// TestSIMDEnabled: on an AVX2 CPU the vector path is on, as
// internal/vecarith (whose Label pqkex bench reports) says.
func TestSIMDEnabled(t *testing.T) {
	needAVX2(t)
	if !simdEnabled || !vecarith.AVX2 || vecarith.Label() != "avx2 (GOEXPERIMENT=simd)" {
		t.Fatalf("simdEnabled %v, vecarith.AVX2 %v, Label %q", simdEnabled, vecarith.AVX2, vecarith.Label())
	}
}

func TestRecipRqSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(21, 22))
	for k := range simdIterations(100) {
		a := randRq(rng)
		switch k % 4 {
		case 1: // small, as key generation inverts 3f
			s := randSmall(rng)
			for i := range a {
				a[i] = int16(s[i])
			}
		case 2: // extreme coefficients
			for i := range a {
				a[i] = Q12 - int16(rng.IntN(2))*(Q-1)
			}
		case 3: // sparse: long runs of zero g0, many steps without a swap
			a = [P]int16{}
			a[rng.IntN(P)] = int16(rng.IntN(Q)) - Q12
			a[rng.IntN(P)] = int16(rng.IntN(Q)) - Q12
		}
		scale := int16(rng.IntN(Q)) - Q12
		var got, want [P]int16
		ok := recipRqSIMD(&got, &a, scale)
		var wok int32
		scalarToo(func() { wok = recipRq(&want, &a, scale) })
		if ok != wok || got != want {
			t.Fatalf("input %d: vector inversion differs from the scalar one (ok %d vs %d)", k, ok, wok)
		}
	}
	var zero, out [P]int16
	if recipRqSIMD(&out, &zero, 1) != -1 {
		t.Fatal("0 reported invertible")
	}
}

func TestR3RecipSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(23, 24))
	for k := range simdIterations(200) {
		g := randSmall(rng)
		switch k % 4 {
		case 1: // not invertible: a multiple of a factor of x^p-x-1
			f := [][]int8{factor19, factor60, factor682}[k/4%3]
			s := make([]int8, P-len(f)+1)
			for j := range s {
				s[j] = int8(rng.IntN(3)) - 1
			}
			g = [P]int8{}
			copy(g[:], mul3poly(f, s))
		case 2: // sparse
			g = [P]int8{}
			g[rng.IntN(P)] = 1
			g[rng.IntN(P)] = -1
		}
		var got, want [P]int8
		ok := r3RecipSIMD(&got, &g)
		var wok int32
		scalarToo(func() { wok = r3Recip(&want, &g) })
		if ok != wok || (ok == 0 && got != want) {
			t.Fatalf("input %d: vector inversion differs from the scalar one (ok %d vs %d)", k, ok, wok)
		}
	}
}

func TestSortShortSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(25, 26))
	for k := range simdIterations(2000) {
		var L [P]uint32
		for i := range L {
			L[i] = rng.Uint32()
			switch (i + k) % 4 {
			case 0:
				L[i] >>= 29 // many equal keys
			case 1:
				L[i] |= 0xfffffff0 // near the sentinel
			}
			switch k % 8 {
			case 5: // descending
				L[i] = uint32(P-i) << 8
			case 6: // 0-1 keys
				L[i] = uint32(rng.IntN(2)) << 31
			case 7: // ascending
				L[i] = uint32(i) << 4
			}
			L[i] &^= 1
		}
		got, want := L, L
		sortShortSIMD(&got)
		scalarToo(func() { sortShort(&want) })
		if got != want {
			t.Fatalf("case %d: vector sort differs from the scalar one", k)
		}
	}
}

func TestShortFromListSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(27, 28))
	for k := range simdIterations(2000) {
		var L [P]uint32
		for i := range L {
			L[i] = rng.Uint32()
			if (i+k)%3 == 0 {
				L[i] >>= 28 // ties between keys
			}
		}
		in := L
		var got, want [P]int8
		shortFromListSIMD(&got, &L)
		if L != in {
			t.Fatal("shortFromListSIMD modified its input")
		}
		scalarToo(func() { shortFromList(&want, &L) })
		if got != want {
			t.Fatalf("case %d: vector Short_fromlist differs from the scalar one", k)
		}
	}
}

// sameValues reports whether two spectra hold the same numbers (== on
// each part, so the sign of a zero does not count; see fft_simd_amd64.go).
func sameValues(a, b *spectrum) bool {
	for j := range a {
		if real(a[j]) != real(b[j]) || imag(a[j]) != imag(b[j]) {
			return false
		}
	}
	return true
}

func TestFFTSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(29, 30))
	for k := range simdIterations(200) {
		a := randRq(rng)
		s := randSmall(rng)
		if k%5 == 4 { // extreme coefficients
			for i := range a {
				a[i] = Q12 - int16(rng.IntN(2))*(Q-1)
			}
		}
		// forward transforms of both input types
		var got, want, gs, ws spectrum
		forward768SIMD(&got, a[:])
		forward768SIMD(&gs, s[:])
		scalarToo(func() {
			want.transformRq(&a)
			ws.transformSmall(&s)
		})
		if !sameValues(&got, &want) || !sameValues(&gs, &ws) {
			t.Fatalf("input %d: vector forward transform differs from the scalar one", k)
		}
		// inverse of a product: the same integers
		var x, y spectrum
		mul(x[:], got[:], gs[:])
		y = x
		var c, d [1536]int64
		inverse768SIMD(&c, &x)
		scalarToo(func() { plan768.inverse(d[:], y[:]) })
		if c != d {
			t.Fatalf("input %d: vector inverse transform differs from the scalar one", k)
		}
		// inverse of products formed on the way in: a*b and a*b + c*d
		var z spectrum
		inverseProducts768SIMD(&c, got[:], gs[:], nil, nil)
		scalarToo(func() { plan768.inverseProducts(d[:], z[:], got[:], gs[:], nil, nil) })
		if c != d {
			t.Fatalf("input %d: vector inverse of a product differs from the scalar one", k)
		}
		inverseProducts768SIMD(&c, got[:], gs[:], ws[:], want[:])
		scalarToo(func() { plan768.inverseProducts(d[:], z[:], got[:], gs[:], ws[:], want[:]) })
		if c != d {
			t.Fatalf("input %d: vector inverse of a sum of products differs from the scalar one", k)
		}
	}
}

func BenchmarkForward768(b *testing.B) {
	rng := rand.New(rand.NewPCG(31, 32))
	a := randRq(rng)
	var x spectrum
	b.Run("simd", func(b *testing.B) {
		for b.Loop() {
			x.transformRq(&a)
		}
	})
	b.Run("scalar", func(b *testing.B) {
		scalarToo(func() {
			for b.Loop() {
				x.transformRq(&a)
			}
		})
	})
}

func BenchmarkInverseProducts768(b *testing.B) {
	rng := rand.New(rand.NewPCG(33, 34))
	a, s := randRq(rng), randSmall(rng)
	var x, y, z spectrum
	x.transformRq(&a)
	y.transformSmall(&s)
	var c [1536]int64
	b.Run("simd", func(b *testing.B) {
		for b.Loop() {
			plan768.inverseProducts(c[:], z[:], x[:], y[:], nil, nil)
		}
	})
	b.Run("scalar", func(b *testing.B) {
		scalarToo(func() {
			for b.Loop() {
				plan768.inverseProducts(c[:], z[:], x[:], y[:], nil, nil)
			}
		})
	})
}

func TestFoldSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(35, 36))
	// Coefficient bounds: a product of two R/q elements for k = 1; for
	// k = 3, the scalar code's limit (3 times the fold below 2^34).
	const maxRq = P * Q12 * Q12
	const max3 = (1 << 34) / 9
	for k := range simdIterations(500) {
		var c, c3, small [1536]int64
		for i := range c {
			c[i] = rng.Int64N(2*maxRq+1) - maxRq
			c3[i] = rng.Int64N(2*max3+1) - max3
			small[i] = rng.Int64N(2*P+1) - P
			if k%4 == 1 { // extremes
				sign := 1 - 2*int64(rng.IntN(2))
				c[i], c3[i], small[i] = maxRq*sign, max3*sign, P*sign
			}
		}
		for _, scale := range []int64{1, 3} {
			in := &c
			if scale == 3 {
				in = &c3
			}
			var got, want [P]int16
			foldRqSIMD(&got, in, scale)
			scalarToo(func() { foldRqScaled(&want, in, scale) })
			if got != want {
				t.Fatalf("case %d: vector R/q fold (k = %d) differs from the scalar one", k, scale)
			}
		}
		var got3, want3 [P]int8
		foldR3SIMD(&got3, &small)
		scalarToo(func() { foldR3(&want3, &small) })
		if got3 != want3 {
			t.Fatalf("case %d: vector R/3 fold differs from the scalar one", k)
		}
		// mulLift3's fold: 3*c mod q, then mod 3 (scalar: freeze3(freezeQ(3*v)))
		lift3SIMD(&got3, &c3)
		for i := range want3 {
			v := c3[i]
			if i < P-1 {
				v += c3[P+i]
			}
			if i > 0 {
				v += c3[P+i-1]
			}
			want3[i] = freeze3(int64(freezeQ(3 * v)))
		}
		if got3 != want3 {
			t.Fatalf("case %d: vector lift to R/3 differs from the scalar one", k)
		}
	}
}

// splitRef is the fold and split of mulSplit (rq.go) for one folded
// coefficient, written with the scalar primitives.
func splitRef(v, k int64) (int16, int8) {
	const half = 1 << (splitShift - 1)
	l := (v+half)&(1<<splitShift-1) - half
	return freezeQ(k * l), freeze3((v - l) >> splitShift)
}

func TestFoldSplitSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(37, 38))
	// |y_i| <= lim keeps the three-term folds below 2^34, freezeQ's limit
	// for the R/q-only fold; the split takes the same inputs.
	const lim = (1<<34 - 1) / 3
	for it := range simdIterations(400) {
		var y [1536]float64
		yi := make([]int64, 1536)
		for i := range 2*P - 1 { // a linear product: coefficients 2p-1.. are zero
			var v int64
			switch it % 4 {
			case 0:
				v = rng.Int64N(2*lim+1) - lim
			case 1: // extremes
				v = lim * (1 - 2*int64(rng.IntN(2)))
			case 2: // folds at the split's boundaries: only the low half set
				if i < P {
					hi := rng.Int64N(1<<10) - 1<<9
					lo := []int64{-1 << 23, 1<<23 - 1, 1 << 23, -1<<23 + 1, 0, -1, 1}[rng.IntN(7)]
					v = hi<<splitShift + lo
				}
			case 3: // small: R/3-times-small sized
				v = rng.Int64N(2*P+1) - P
			}
			yi[i], y[i] = v, float64(v)
		}
		fold := func(i int) int64 {
			v := yi[i] + yi[P+i]
			if i > 0 {
				v += yi[P+i-1]
			}
			return v
		}
		for _, k3 := range []bool{false, true} {
			k := int64(1)
			if k3 {
				k = 3
			}
			var rq [776]int16
			var r3 [784]int8
			foldSplitVec(&rq, &r3, &y, k3, true)
			clearUpper()
			for i := 1; i < P-1; i++ {
				wq, w3 := splitRef(fold(i), k)
				if rq[i] != wq || r3[i] != w3 {
					t.Fatalf("case %d, k = %d: coefficient %d split as (%d, %d), want (%d, %d)", it, k, i, rq[i], r3[i], wq, w3)
				}
			}
		}
		var rq [776]int16
		foldSplitVec(&rq, nil, &y, false, false)
		clearUpper()
		for i := 1; i < P-1; i++ {
			if want := freezeQ(fold(i)); rq[i] != want {
				t.Fatalf("case %d: coefficient %d reduces to %d, want %d", it, i, rq[i], want)
			}
		}
		// mulRounded's digits, mulR3's and mulLift3's reductions (the
		// latter two on inputs of their sizes: |3v| < 2^34 for the lift)
		var rd [776]uint32
		foldRoundVec(&rd, &y)
		clearUpper()
		for i := 1; i < P-1; i++ {
			if want := roundDigit(fold(i)); rd[i] != want {
				t.Fatalf("case %d: coefficient %d has digit %d, want %d", it, i, rd[i], want)
			}
		}
		var small [1536]float64
		for i := range small {
			small[i] = float64(yi[i] / 4)
		}
		var o3, l3 [784]int8
		foldSmallVec(&o3, &y, false)
		foldSmallVec(&l3, &small, true)
		clearUpper()
		for i := 1; i < P-1; i++ {
			v := fold(i)
			want := int8((v%3+4)%3 - 1) // centered residue (freeze3 takes |v| < 2^24 only)
			if o3[i] != want {
				t.Fatalf("case %d: coefficient %d is %d mod 3, want %d", it, i, o3[i], want)
			}
			vs := yi[i]/4 + yi[P+i]/4
			if i > 0 {
				vs += yi[P+i-1] / 4
			}
			if want := freeze3(int64(freezeQ(3 * vs))); l3[i] != want {
				t.Fatalf("case %d: coefficient %d lifts to %d, want %d", it, i, l3[i], want)
			}
		}
	}
}

// TestBatchKernelsSIMD compares the vector batch's transforms and products
// (split layout) with the scalar ones they replace, on the inputs of
// TestMulSplitMatchesReference (the first eight are the extremes).
func TestBatchKernelsSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(39, 40))
	b := new(vecBatch)
	var sa, sf, st, sc, sg, sw, sd vecSlot // only the splitSpectrum fields are used
	for i := range simdIterations(200) {
		a, d, f, tt, c, g := randRq(rng), randRq(rng), randSmall(rng), randSmall(rng), randSmall(rng), randSmall(rng)
		if i < 8 {
			for j := range a {
				a[j] = int16(Q12 * (1 - 2*(i&1)))
				d[j] = a[j]
				f[j], g[j] = int8(1-(i&2)), int8(1-(i&2))
				tt[j], c[j] = 1, int8(1-(i&4)/2)
			}
		}
		// scalar
		var xa, xf, xt, xc, xg, xw, xd, x spectrum
		var wq, wq2, wh [P]int16
		var w3, w32 [P]int8
		scalarToo(func() {
			xa.transformRq(&a)
			xd.transformRq(&d)
			xf.transformSmall(&f)
			xt.transformSmall(&tt)
			xc.transformSmall(&c)
			xg.transformSmall(&g)
			for j := range xc {
				xc[j] *= 1 << splitShift
				xw[j] = xa[j] + xt[j]*(1<<splitShift)
			}
			mulSplit(&wq, &w3, 3, &x, &xa, &xf, &xt, &xc)
			mulSplit(&wq2, &w32, 1, &x, &xg, &xw, nil, nil)
			mulRq(&wh, &x, &xa, &xd)
		})
		// vector
		b.forwardRq(&sa.sf, &a)
		b.forwardRq(&sd.sf, &d)
		b.forwardSmall(&sf.sf, &f, false)
		b.forwardSmall(&st.sf, &tt, false)
		b.forwardSmall(&sc.sf, &c, true)
		b.forwardSmall(&sg.sf, &g, false)
		addScaledSplit(&sw.sf, &sa.sf, &st.sf)
		for _, p := range []struct {
			name string
			got  *splitSpectrum
			want *spectrum
		}{{"a", &sa.sf, &xa}, {"f", &sf.sf, &xf}, {"2^24 c", &sc.sf, &xc}, {"g", &sg.sf, &xg}, {"a + 2^24 t", &sw.sf, &xw}} {
			var got spectrum
			fromSplit(&got, p.got)
			if !sameValues(&got, p.want) {
				t.Fatalf("input %d: split transform of %s differs from the scalar one", i, p.name)
			}
		}
		var rq, rq2, h [P]int16
		var r3, r32 [P]int8
		b.mulSplit(&rq, &r3, true, &sa.sf, &sf.sf, &st.sf, &sc.sf)
		b.mulSplit(&rq2, &r32, false, &sg.sf, &sw.sf, nil, nil)
		b.mulRq(&h, &sa.sf, &sd.sf)
		if rq != wq || r3 != w3 {
			t.Fatalf("input %d: vector 3*a*f + 2^24 t*c split differs from the scalar one", i)
		}
		if rq2 != wq2 || r32 != w32 {
			t.Fatalf("input %d: vector g*(a + 2^24 t) split differs from the scalar one", i)
		}
		if h != wh {
			t.Fatalf("input %d: vector a*d in R/q differs from the scalar one", i)
		}
	}
}

// TestGenerateKeysSIMD checks that the vector batch makes the keys of the
// scalar batch, transforms included, from the same stream (whose first g
// is not invertible).
func TestGenerateKeysSIMD(t *testing.T) {
	needAVX2(t)
	for _, n := range []int{1, 2, 7, 33} {
		stream := make([]byte, n*(2*randomBytes+smallBytes)+randomBytes)
		rng := rand.New(rand.NewPCG(41, uint64(n)))
		for j := range stream {
			stream[j] = byte(rng.Uint32())
		}
		for j := 0; j < randomBytes; j += 4 { // first g = 0
			stream[j], stream[j+1], stream[j+2], stream[j+3] = 0, 0, 0, 0x20
		}
		got, err := generateKeysSIMD(bytes.NewReader(stream), n)
		if err != nil {
			t.Fatal(err)
		}
		var want []*PrivateKey
		scalarToo(func() { want, err = GenerateKeys(bytes.NewReader(stream), n) })
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			g, w := got[k], want[k]
			if g.bytes != w.bytes || g.rhoHash != w.rhoHash || g.pk.bytes != w.pk.bytes || g.pk.cache != w.pk.cache ||
				!sameValues(&g.sf, &w.sf) || !sameValues(&g.sv, &w.sv) || !sameValues(&g.pk.sh, &w.pk.sh) {
				t.Fatalf("n=%d key %d: vector batch differs from the scalar batch", n, k)
			}
		}
		// a short stream fails as in the scalar batch
		if _, err := generateKeysSIMD(bytes.NewReader(stream[:len(stream)-randomBytes-1]), n); err == nil {
			t.Fatalf("n=%d: short stream accepted", n)
		}
	}
}

func TestR3InvertibleSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(43, 44))
	for k := range simdIterations(600) {
		g := randSmall(rng)
		switch k % 6 {
		case 1, 2, 3: // a multiple of one factor: not invertible
			f := [][]int8{factor19, factor60, factor682}[k%6-1]
			s := make([]int8, P-len(f)+1)
			for j := range s {
				s[j] = int8(rng.IntN(3)) - 1
			}
			g = [P]int8{}
			copy(g[:], mul3poly(f, s))
		case 4: // sparse, or zero
			g = [P]int8{}
			for range rng.IntN(3) {
				g[rng.IntN(P)] = int8(rng.IntN(3)) - 1
			}
		case 5: // constant
			c := int8(rng.IntN(3)) - 1
			for j := range g {
				g[j] = c
			}
		}
		got := r3InvertibleSIMD(&g)
		var want uint64
		scalarToo(func() { want = r3Invertible(&g) })
		if got != want {
			t.Fatalf("case %d: r3InvertibleSIMD = %d, scalar %d", k, got, want)
		}
	}
}

// TestHideDecryptSIMD compares the vector encryption and decryption with
// the scalar ones, on valid ciphertexts (weight W), random and extreme
// ones, and random, Short and extreme r.
func TestHideDecryptSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(45, 46))
	var sks []*PrivateKey
	for range 3 {
		var seed [2*randomBytes + smallBytes + randomBytes]byte
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		sk, err := GenerateKey(bytes.NewReader(seed[:]))
		if err != nil {
			t.Fatal(err)
		}
		sks = append(sks, sk)
	}
	for k := range simdIterations(300) {
		sk := sks[k%len(sks)]
		pk := sk.PublicKey()
		var r [P]int8
		switch k % 4 {
		case 0, 1: // Short
			var L [P]uint32
			for j := range L {
				L[j] = rng.Uint32()
			}
			shortFromList(&r, &L)
		case 2:
			r = randSmall(rng)
		case 3:
			for j := range r {
				r[j] = int8(1 - 2*(k/4%2))
			}
		}
		var ct, wct [CiphertextSize]byte
		h3 := pk.hide(&ct, &r) // the vector path (simdEnabled)
		var wh3 [32]byte
		scalarToo(func() { wh3 = pk.hide(&wct, &r) })
		if ct != wct || h3 != wh3 {
			t.Fatalf("case %d: vector encryption differs from the scalar one", k)
		}
		var c [P]int16
		switch k % 3 {
		case 0: // the ciphertext just made
			roundedDecode(&c, ct[:roundedBytes])
		case 1:
			c = randRq(rng)
		case 2:
			for j := range c {
				c[j] = Q12 - int16(rng.IntN(2))*(Q-1)
			}
		}
		var got, want [P]int8
		sk.decryptSIMD(&got, &c)
		scalarToo(func() { sk.decrypt(&want, &c) })
		if got != want {
			t.Fatalf("case %d: vector decryption differs from the scalar one", k)
		}
		if k%3 == 0 && k%4 < 2 && got != r {
			t.Fatalf("case %d: decryption does not recover r", k)
		}
	}
}

func TestListsSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(47, 48))
	for k := range simdIterations(300) {
		var buf, wbuf [randomBytes]byte
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		if k%3 == 1 { // words at the thresholds of Small_random
			for j := 0; j < randomBytes; j += 4 {
				w := []uint32{0, 1<<30 - 1, 1 << 30, 0x55555555, 0x2aaaaaaa, 0x2aaaaaab, 0x15555555, 0x15555556, ^uint32(0)}[rng.IntN(9)]
				buf[j], buf[j+1], buf[j+2], buf[j+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
			}
		}
		wbuf = buf
		var got, want [P]uint32
		decodeListSIMD(&got, &buf)
		scalarToo(func() { decodeList(&want, &wbuf) })
		if got != want || buf != ([randomBytes]byte{}) {
			t.Fatalf("case %d: vector list decoding differs from the scalar one (or left the buffer)", k)
		}
		var gs, ws [P]int8
		smallFromListSIMD(&gs, &got)
		scalarToo(func() { smallFromList(&ws, &want) })
		if gs != ws {
			t.Fatalf("case %d: vector Small_random differs from the scalar one", k)
		}
	}
}

// TestCodecSIMD compares the vector codec loops with the scalar ones:
// encoding random, zero and maximal values, and decoding those encodings
// and random bytes (decoding is total).
func TestCodecSIMD(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(49, 50))
	for k := range simdIterations(200) {
		for _, c := range []*radixCodec{rqCodec, roundedCodec} {
			m := c.levels[0].m[0]
			R := make([]uint32, P)
			for i := range R {
				switch k % 4 {
				case 0, 1:
					R[i] = rng.Uint32N(m)
				case 2:
					R[i] = m - 1
				}
			}
			got, want := make([]byte, c.size), make([]byte, c.size)
			c.encode(got, R)
			scalarToo(func() { c.encode(want, R) })
			if string(got) != string(want) {
				t.Fatalf("case %d: vector encoding (m = %d) differs from the scalar one", k, m)
			}
			if k%5 == 4 {
				for i := range got {
					got[i] = byte(rng.Uint32())
				}
			}
			gR, wR := make([]uint32, P), make([]uint32, P)
			c.decode(gR, got)
			scalarToo(func() { c.decode(wR, got) })
			for i := range gR {
				if gR[i] != wR[i] {
					t.Fatalf("case %d: vector decoding (m = %d) differs from the scalar one at %d", k, m, i)
				}
			}
		}
	}
}
