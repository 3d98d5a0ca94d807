//go:build goexperiment.simd && amd64

package core

import (
	"io"
	"simd/archsimd"
	"sync"
)

// Batch key generation on the vector path: GenerateKeys (batch.go), step
// for step, with the transforms it keeps kept in the vector kernels' split
// layout (see fft_simd_amd64.go) instead of as complex128 spectra. The
// scalar batch converts every transform it computes to a spectrum and
// every product back from spectra, about 170 000 instructions of copying
// per key; here a transform stays in the layout the kernels work in, the
// pointwise products are formed by the inverse transform's first pass
// (dit16ProductsSIMD), and the products are folded and split on vectors
// (foldSplitVec). Only the transforms the key keeps (sf, sv and sh) are
// converted to spectra.
//
// Same values: every transform, product and sum is formed with the
// operations the scalar code uses, lane by lane (the multiplications by
// 2^splitShift too, which are exact), so the coefficients before rounding
// are the scalar ones, the error bounds of fftbound_test.go apply, and the
// keys are byte-identical (TestGenerateKeysSIMD compares them, spectra
// included, with the scalar batch). Randomness is read in the same order:
// slot k's forward step runs right after slot k's reads, which changes
// nothing the stream sees.
//
// Memory: the slots come from a pool and are cleared when the batch
// returns (they hold secrets), so a batch allocates only its keys.

// vecSlot is one key's state in the batch (see GenerateKeys' slot): sf,
// sg, sc = 2^splitShift times the transform of c_(k-1), and sd.
type vecSlot struct {
	f, g           [P]int8
	rho            [smallBytes]byte
	sf, sg, sc, sd splitSpectrum
}

// vecWork holds the working buffers of the vector products: a forward
// transform's input and scratch, the group buffer and the output of an
// inverse transform, and the folds' outputs.
type vecWork struct {
	in  [192][4]float64 // forward input, coefficient j at [j/4][j%4]
	s   splitSpectrum   // transform scratch
	t   [2][16][4]float64
	y   [1536]float64 // inverse output: exact integers
	i8  [800]int8     // zero-padded inputs
	i16 [768]int16
	rq  [776]int16 // fold outputs, index i for coefficient i
	r3  [784]int8
}

// clear clears w (it holds secret-derived values). clear on each array
// runs the runtime's vector memclr; assigning a zero struct compiles to
// REP STOSQ.
func (w *vecWork) clear() {
	clear(w.in[:])
	clearSplit(&w.s)
	clear(w.t[:])
	clear(w.y[:])
	clear(w.i8[:])
	clear(w.i16[:])
	clear(w.rq[:])
	clear(w.r3[:])
}

// clearSplit clears s.
func clearSplit(s *splitSpectrum) {
	clear(s.re[:])
	clear(s.im[:])
}

// vecBatch holds the batch's working buffers.
type vecBatch struct {
	vecWork
	st3, stq, sw splitSpectrum
}

var (
	vecSlotPool  = sync.Pool{New: func() any { return new(vecSlot) }}
	vecBatchPool = sync.Pool{New: func() any { return new(vecBatch) }}
)

// generateKeysSIMD is GenerateKeys on the vector path (n > 0).
func generateKeysSIMD(rand io.Reader, n int) ([]*PrivateKey, error) {
	b := vecBatchPool.Get().(*vecBatch)
	slots := make([]*vecSlot, n)
	for k := range slots {
		slots[k] = vecSlotPool.Get().(*vecSlot)
	}
	defer func() {
		// Everything in a slot and in b derives from secrets.
		for _, s := range slots {
			clear(s.f[:])
			clear(s.g[:])
			clear(s.rho[:])
			for _, x := range []*splitSpectrum{&s.sf, &s.sg, &s.sc, &s.sd} {
				clearSplit(x)
			}
			vecSlotPool.Put(s)
		}
		b.vecWork.clear()
		clearSplit(&b.st3)
		clearSplit(&b.stq)
		clearSplit(&b.sw)
		vecBatchPool.Put(b)
	}()

	// Forward: read slot k's randomness, transform f and g, and form c_k
	// and d_k as GenerateKeys does.
	var L [P]uint32
	var c3 [P]int8
	var dq [P]int16
	c3[0], dq[0] = 1, 1
	for _, s := range slots {
		if err := readBatchKey(rand, &L, &s.g, &s.f, &s.rho); err != nil {
			return nil, err
		}
		b.forwardSmall(&s.sf, &s.f, false)
		b.forwardSmall(&s.sg, &s.g, false)
		b.forwardSmall(&s.sc, &c3, true)
		b.forwardRq(&s.sd, &dq)
		b.mulSplit(&dq, &c3, true, &s.sd, &s.sf, &s.sc, &s.sg)
	}
	clear(L[:])

	var t3 [P]int8
	var tq [P]int16
	r3Recip(&t3, &c3)
	recipRq(&tq, &dq, 1)

	keys := make([]*PrivateKey, n)
	for k := n - 1; k >= 0; k-- {
		s := slots[k]
		b.forwardSmall(&b.st3, &t3, false)
		b.forwardRq(&b.stq, &tq)
		addScaledSplit(&b.sw, &b.stq, &b.st3) // sw = tq + 2^splitShift*t3
		var v [P]int8
		var w, h [P]int16
		b.mulSplit(&w, &t3, false, &s.sg, &b.sw, nil, nil)      // w = tq*g_k; t3 = 1/c_(k-1)
		b.mulSplit(&tq, &v, true, &b.stq, &s.sf, &b.st3, &s.sc) // tq = 1/d_(k-1); v = 1/g_k
		b.forwardRq(&b.sw, &w)
		b.mulRq(&h, &b.sw, &s.sd) // h = g_k/(3f_k)
		keys[k] = b.assemble(s, &v, &h)
		clear(v[:])
		clear(w[:])
	}
	clear(t3[:])
	clear(tq[:])
	clear(c3[:])
	clear(dq[:])
	return keys, nil
}

// assemble is PrivateKey.assemble for slot s, with the key's transforms
// computed in the split layout and converted: the key (allocated only now,
// so that it is in the cache while it is filled in) gets f and v = 1/g in
// R/3, the public h = g/(3f) and rho, encoded and hashed as assemble does.
func (b *vecBatch) assemble(s *vecSlot, v *[P]int8, h *[P]int16) *PrivateKey {
	sk := new(PrivateKey)
	// sk = Small_encode(f) || Small_encode(v) || pk || rho || Hash_4(pk)
	const pkOff = 2 * smallBytes
	smallEncode(sk.bytes[:smallBytes], &s.f)
	smallEncode(sk.bytes[smallBytes:pkOff], v)
	pk := (*[PublicKeySize]byte)(sk.bytes[pkOff : pkOff+rqBytes])
	rqEncode(pk[:], h)
	copy(sk.bytes[pkOff+rqBytes:], s.rho[:])
	cache := hashPrefix(prefixCache, pk[:])
	copy(sk.bytes[PrivateKeySize-32:], cache[:])

	sk.pk.bytes = *pk
	sk.pk.cache = cache
	fromSplit(&sk.sf, &s.sf)
	b.forwardRq(&b.sw, h)
	fromSplit(&sk.pk.sh, &b.sw)
	b.forwardSmall(&b.sw, v, false)
	fromSplit(&sk.sv, &b.sw)
	sk.initRhoHash()
	return sk
}

// forwardSmall sets dst to the transform of a small element a (times
// 2^splitShift if scaled: exact, the scaling of every intermediate value
// by a power of two commutes with rounding, so the values are those of
// the scalar code's scaled transform).
func (b *vecWork) forwardSmall(dst *splitSpectrum, a *[P]int8, scaled bool) {
	copy(b.i8[:], a[:])
	convertSmall(&b.in, &b.i8, scaled)
	forwardSplit(dst, &b.s, &b.in)
	clearUpper()
}

// forwardRq sets dst to the transform of a.
func (b *vecWork) forwardRq(dst *splitSpectrum, a *[P]int16) {
	copy(b.i16[:], a[:])
	convertRq(&b.in, &b.i16)
	forwardSplit(dst, &b.s, &b.in)
	clearUpper()
}

// mulSplit is mulSplit (rq.go) from split transforms: the linear product
// y = a*b + c*d (c, d nil: y = a*b), folded, split as lo + 2^splitShift*hi,
// rq = k*lo in R/q (k = 3 if k3, else 1) and r3 = hi in R/3.
func (b *vecWork) mulSplit(rq *[P]int16, r3 *[P]int8, k3 bool, x, y, c, d *splitSpectrum) {
	inverseProductsSplit(&b.y, &b.s, &b.t, x, y, c, d)
	foldSplitVec(&b.rq, &b.r3, &b.y, k3, true)
	clearUpper()
	copy(rq[1:P-1], b.rq[1:P-1])
	copy(r3[1:P-1], b.r3[1:P-1])
	k := int64(1)
	if k3 { // public
		k = 3
	}
	rq[0], r3[0] = splitCoeff(int64(b.y[0])+int64(b.y[P]), k)
	rq[P-1], r3[P-1] = splitCoeff(int64(b.y[P-1])+int64(b.y[2*P-2]), k)
}

// splitCoeff is mulSplit's split of one folded coefficient v.
func splitCoeff(v, k int64) (int16, int8) {
	const half = 1 << (splitShift - 1)
	l := (v+half)&(1<<splitShift-1) - half // centered residue
	return freezeQ(k * l), freeze3((v - l) >> splitShift)
}

// mulRq is mulRq from split transforms: out = x*y in R/q.
func (b *vecWork) mulRq(out *[P]int16, x, y *splitSpectrum) {
	inverseProductsSplit(&b.y, &b.s, &b.t, x, y, nil, nil)
	foldSplitVec(&b.rq, nil, &b.y, false, false)
	clearUpper()
	copy(out[1:P-1], b.rq[1:P-1])
	out[0] = freezeQ(int64(b.y[0]) + int64(b.y[P]))
	out[P-1] = freezeQ(int64(b.y[P-1]) + int64(b.y[2*P-2]))
}

// addScaledSplit sets dst = a + 2^splitShift*c, value by value, as
// GenerateKeys forms sw (the scaling is exact).
func addScaledSplit(dst, a, c *splitSpectrum) {
	sc := archsimd.BroadcastFloat64x4(1 << splitShift)
	for v := range dst.re {
		storeF(loadF(&a.re[v]).Add(loadF(&c.re[v]).Mul(sc)), &dst.re[v])
		storeF(loadF(&a.im[v]).Add(loadF(&c.im[v]).Mul(sc)), &dst.im[v])
	}
	clearUpper()
}

// lowBytes picks the low byte of each 16-bit lane into the low 8 bytes
// (VPSHUFB; -1 zeroes a byte).
var lowBytes = [16]int8{0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1}

// foldSplitVec folds the linear product y (exact integers as float64,
// |y_i| < 2^34) modulo x^p - x - 1, v_i = y_i + y_(p+i) + y_(p+i-1), for
// i = 1..768 (only 1..p-2 are meaningful; the caller sets 0 and p-1), and
// sets, if split, rq[i] = k*lo_i mod q and r3[i] = hi_i mod 3 for
// v_i = lo_i + 2^splitShift*hi_i with lo_i the centered residue (k = 3
// if k3, else 1); otherwise rq[i] = v_i mod q.
//
// All in float64, exactly: the sums are integers below 2^36. The split:
// hi = round(v*2^-24 + 2^-25) is floor((v + 2^23)/2^24), which is what
// the scalar shift and mask compute (v*2^-24 + 2^-25 is exact, and as an
// odd multiple of 2^-25 it is never halfway between integers; the rounding
// is the 1.5*2^52 addition), and lo = v - hi*2^24 is exact. The
// reductions r = x - round(x/m)*m are those of foldVec (exact: x is an
// integer and x/m is at least 1/(2m) away from a half-integer, while
// x*(1/m) is within 2^-28 of x/m), giving freezeQ's and freeze3's centered
// residues. Results go to int32 (VCVTTPD2DQ, exact on integers), int16
// (VPACKSSDW) and int8 (VPSHUFB of the low bytes). Constant time: the
// same operations on every lane; k3 and split are public.
func foldSplitVec(rq *[776]int16, r3 *[784]int8, y *[1536]float64, k3, split bool) {
	mag := archsimd.BroadcastFloat64x4(roundMagic)
	qinv, qf := archsimd.BroadcastFloat64x4(1.0/Q), archsimd.BroadcastFloat64x4(Q)
	third, three := archsimd.BroadcastFloat64x4(1.0/3), archsimd.BroadcastFloat64x4(3)
	down := archsimd.BroadcastFloat64x4(1.0 / (1 << splitShift))
	up := archsimd.BroadcastFloat64x4(1 << splitShift)
	bias := archsimd.BroadcastFloat64x4(1.0 / (1 << (splitShift + 1)))
	kv := archsimd.BroadcastFloat64x4(1)
	if k3 {
		kv = three
	}
	pick := loadI8x16(&lowBytes)
	fold := func(i int) f64x4 {
		return loadF((*[4]float64)(y[i : i+4])).Add(loadF((*[4]float64)(y[P+i : P+i+4]))).Add(loadF((*[4]float64)(y[P+i-1 : P+i+3])))
	}
	modQ := func(x f64x4) f64x4 { return x.Sub(x.Mul(qinv).Add(mag).Sub(mag).Mul(qf)) }
	mod3 := func(x f64x4) f64x4 { return x.Sub(x.Mul(third).Add(mag).Sub(mag).Mul(three)) }
	for j := range 96 {
		i := 1 + 8*j
		v0, v1 := fold(i), fold(i+4)
		if split { // public
			h0 := v0.Mul(down).Add(bias).Add(mag).Sub(mag)
			h1 := v1.Mul(down).Add(bias).Add(mag).Sub(mag)
			v0 = v0.Sub(h0.Mul(up)).Mul(kv)
			v1 = v1.Sub(h1.Mul(up)).Mul(kv)
			t := mod3(h0).ConvertToInt32().SaturateToInt16Concat(mod3(h1).ConvertToInt32())
			storeI8x16(t.AsInt8x16().PermuteOrZero(pick), (*[16]int8)(r3[i:i+16]))
		}
		storeI16x8(modQ(v0).ConvertToInt32().SaturateToInt16Concat(modQ(v1).ConvertToInt32()), (*[8]int16)(rq[i:i+8]))
	}
}

// r3InvertibleSIMD is r3Invertible (batch.go) on the vector path: g is
// invertible in R/3 iff it is divisible by none of the three irreducible
// factors of x^p - x - 1 mod 3. The same three tests as the scalar code:
//
//   - degrees 19 and 60: g mod phi = sum g_i (x^i mod phi), the table words
//     x^i mod phi summed in F_3 (add3) under masks from g_i, four
//     coefficients at a time in the four lanes (F_3 addition is associative
//     and commutative, so the lane sums add up to the scalar sum);
//   - degree 682: g reduced from the top coefficient down, 79 steps of
//     g -= g_i * x^(i-682) * phi on the 768-bit planes (three vectors
//     each), with the shifted divisors precomputed (r3Shifted682).
//
// g is bitsliced with VPMOVMSKB (nonzero and negative bytes). Constant
// time: masks from the coefficients, the same operations for every g; the
// lane and word positions used in the reduction depend only on the step.
func r3InvertibleSIMD(g *[P]int8) uint64 {
	var c, mnz, msg [800]int8 // g, zero-padded; the masks of each coefficient
	copy(c[:], g[:])
	var nzw, sgw [3][4]uint64 // g bitsliced: coefficient i at bit i%64 of word i/64
	var zero archsimd.Int8x32
	for k := range 24 {
		x := loadI8((*[32]int8)(c[32*k : 32*k+32]))
		nz := ^x.Equal(zero).ToBits()
		sg := x.Less(zero).ToBits()
		w := k / 2
		nzw[w/4][w%4] |= uint64(nz) << (32 * (k % 2))
		sgw[w/4][w%4] |= uint64(sg) << (32 * (k % 2))
		storeI8(zero.Sub(x.Abs()), (*[32]int8)(mnz[32*k:32*k+32])) // -1 if g_i = ±1
		storeI8(x.Min(zero), (*[32]int8)(msg[32*k:32*k+32]))       // -1 if g_i = -1
	}

	// Degrees 19 and 60.
	var a19n, a19s, a60n, a60s u64x4
	for j := range residueSteps {
		st := &residueSteps[j]
		mn := loadI8x16((*[16]int8)(mnz[4*j : 4*j+16])).ExtendLo4ToInt64().AsUint64x4()
		ms := loadI8x16((*[16]int8)(msg[4*j : 4*j+16])).ExtendLo4ToInt64().AsUint64x4()
		tn := loadU64(&st.nz19).And(mn)
		a19n, a19s = add3v(a19n, a19s, tn, loadU64(&st.sg19).Xor(ms).And(tn))
		tn = loadU64(&st.nz60).And(mn)
		a60n, a60s = add3v(a60n, a60s, tn, loadU64(&st.sg60).Xor(ms).And(tn))
	}
	var l19n, l19s, l60n, l60s [4]uint64
	storeU64(a19n, &l19n)
	storeU64(a19s, &l19s)
	storeU64(a60n, &l60n)
	storeU64(a60s, &l60s)

	// Degree 682: coefficients 760 .. 704 are in word 11 (lane 3 of
	// vector 2), 703 .. 682 in word 10 (lane 2).
	xn0, xn1, xn2 := loadU64(&nzw[0]), loadU64(&nzw[1]), loadU64(&nzw[2])
	xs0, xs1, xs2 := loadU64(&sgw[0]), loadU64(&sgw[1]), loadU64(&sgw[2])
	for i := P - 1; i >= 682; i-- {
		var wn, ws uint64
		if i >= 704 { // public
			wn, ws = xn2.GetHi().GetElem(1), xs2.GetHi().GetElem(1)
		} else {
			wn, ws = xn2.GetHi().GetElem(0), xs2.GetHi().GetElem(0)
		}
		// subtract c*phi*x^(i-682), c = g_i: add phi*x^(i-682) with its
		// sign flipped unless c = -1
		cnz := archsimd.BroadcastUint64x4(-((wn >> (i % 64)) & 1))
		ncsg := archsimd.BroadcastUint64x4(((ws >> (i % 64)) & 1) - 1) // ^csg
		d := &r3Shifted682[i-682]
		pn := loadU64(&d.nz[0]).And(cnz)
		xn0, xs0 = add3v(xn0, xs0, pn, loadU64(&d.sg[0]).Xor(ncsg).And(pn))
		pn = loadU64(&d.nz[1]).And(cnz)
		xn1, xs1 = add3v(xn1, xs1, pn, loadU64(&d.sg[1]).Xor(ncsg).And(pn))
		pn = loadU64(&d.nz[2]).And(cnz)
		xn2, xs2 = add3v(xn2, xs2, pn, loadU64(&d.sg[2]).Xor(ncsg).And(pn))
	}
	var rest [4]uint64
	storeU64(xn0.Or(xn1).Or(xn2), &rest)
	clearUpper()

	n19, s19 := l19n[0], l19s[0]
	n60, s60 := l60n[0], l60s[0]
	for l := 1; l < 4; l++ {
		n19, s19 = add3(n19, s19, l19n[l], l19s[l])
		n60, s60 = add3(n60, s60, l60n[l], l60s[l])
	}
	zero19 := ((n19 | -n19) >> 63) ^ 1
	zero60 := ((n60 | -n60) >> 63) ^ 1
	acc := rest[0] | rest[1] | rest[2] | rest[3]
	zero682 := ((acc | -acc) >> 63) ^ 1
	clear(c[:])
	clear(mnz[:])
	clear(msg[:])
	clear(nzw[:])
	clear(sgw[:])
	return (zero19 | zero60 | zero682) ^ 1
}

// residueStep holds the table words x^i mod phi of residues19 and
// residues60 for i = 4j..4j+3 (zero past p-1).
type residueStep struct{ nz19, sg19, nz60, sg60 [4]uint64 }

// r3Planes682 is phi*x^s for the degree-682 factor phi, in the 768-bit
// planes of the vector path.
type r3Planes682 struct{ nz, sg [3][4]uint64 }

var (
	residueSteps = newResidueSteps()
	r3Shifted682 = newShifted682()
)

func newResidueSteps() *[(P + 3) / 4]residueStep {
	t := new([(P + 3) / 4]residueStep)
	for i := range P {
		st := &t[i/4]
		st.nz19[i%4], st.sg19[i%4] = residues19.nz[i], residues19.sg[i]
		st.nz60[i%4], st.sg60[i%4] = residues60.nz[i], residues60.sg[i]
	}
	return t
}

func newShifted682() *[P - 682]r3Planes682 {
	if len(factor682) != 683 {
		panic("core: unexpected degree of the factor table")
	}
	t := new([P - 682]r3Planes682)
	for s := range t {
		var v r3vec
		for i, c := range factor682 {
			setCoeff(&v, i+s, c)
		}
		for w := range v.nz {
			t[s].nz[w/4][w%4], t[s].sg[w/4][w%4] = v.nz[w], v.sg[w]
		}
	}
	return t
}
