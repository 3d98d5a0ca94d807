//go:build goexperiment.simd && amd64

package core

import "simd/archsimd"

// Inversion in R/3 on 256-bit vectors: the bitsliced divsteps of r3Recip
// (two bit-planes, "nonzero" and "sign", see r3.go), 256 coefficients per
// vector and three vectors per polynomial (p+1 = 762 <= 768 coefficients).
// Coefficient i is bit i%64 of word i/64, word w being lane w%4 of vector
// w/4. Dividing g by x and multiplying v by x shift the 768-bit planes by
// one bit; the bit crossing a 64-bit lane boundary comes from the
// neighbouring lane, brought in by two shuffles (nextWords, prevWords).
//
// Every step processes all three vectors of f, g, v and r: f and g have no
// coefficients above index p (the updates only move them down), and those
// of v and r above index p only ever move up, where the reference
// truncates and nothing reads them.
//
// Constant time: boolean operations, shifts by constants and fixed lane
// shuffles on every word, the swap as a broadcast mask; no branch or index
// depends on the coefficients.

type u64x4 = archsimd.Uint64x4

// r3Planes is an R/3 vector on the vector path: 768 coefficients.
type r3Planes struct{ nz, sg [3][4]uint64 }

func (x *r3Planes) set(v *r3vec) {
	for w := range v.nz {
		x.nz[w/4][w%4], x.sg[w/4][w%4] = v.nz[w], v.sg[w]
	}
}

// add3v is add3 on four words.
func add3v(anz, asg, bnz, bsg u64x4) (u64x4, u64x4) {
	return anz.Xor(bnz).Or(anz.AndNot(asg.Xor(bsg))), asg.Or(bsg).Xor(anz.And(bnz))
}

// nextWords returns (x1, x2, x3, y0): the words following those of x.
func nextWords(x, y u64x4) u64x4 {
	return alignBytes8(halvesMidU(x, y), x) // halvesMidU: x2 x3 y0 y1
}

// prevWords returns (x3, y0, y1, y2): the words preceding those of y.
func prevWords(x, y u64x4) u64x4 {
	return alignBytes8(y, halvesMidU(x, y))
}

// shiftDown returns the 256 bits of x shifted down one bit, with bit 0 of
// the next vector y coming in at the top. one holds 1 in every lane: right
// shifts take their counts from a vector (VPSRLVQ), because with a scalar
// count the compiler moves it into an XMM register with a legacy-SSE MOVQ,
// which would pay the AVX-SSE transition penalty in every step.
func shiftDown(x, y, one u64x4) u64x4 {
	return x.ShiftRight(one).Or(nextWords(x, y).ShiftAllLeft(63))
}

// shiftUp returns the 256 bits of y shifted up one bit, with the top bit
// of the previous vector x coming in at the bottom (s63 holds 63 in every
// lane; see shiftDown).
func shiftUp(x, y, s63 u64x4) u64x4 {
	return y.ShiftAllLeft(1).Or(prevWords(x, y).ShiftRight(s63))
}

// swapAddWord swaps vector i of f and g by sw, stores f and returns g + c*f
// (c given by its planes cnz, csg), not yet divided by x.
func swapAddWord(f, g *r3Planes, i int, sw, cnz, csg u64x4) (u64x4, u64x4) {
	fn, fsg, gn, gsg := loadU64(&f.nz[i]), loadU64(&f.sg[i]), loadU64(&g.nz[i]), loadU64(&g.sg[i])
	t := sw.And(fn.Xor(gn))
	fn, gn = fn.Xor(t), gn.Xor(t)
	t = sw.And(fsg.Xor(gsg))
	fsg, gsg = fsg.Xor(t), gsg.Xor(t)
	storeU64(fn, &f.nz[i])
	storeU64(fsg, &f.sg[i])
	pn := fn.And(cnz)
	return add3v(gn, gsg, pn, fsg.Xor(csg).And(pn))
}

// r3RecipSIMD is r3Recip on the vector path: out = 1/a in R/3 and 0, or
// -1 (and garbage) if a is not invertible.
func r3RecipSIMD(out *[P]int8, a *[P]int8) int32 {
	var fs, gs r3vec
	setCoeff(&fs, 0, 1)
	setCoeff(&fs, P-1, -1)
	setCoeff(&fs, P, -1)
	for i := range P {
		setCoeff(&gs, P-1-i, a[i])
	}
	var f, g, v, r r3Planes
	f.set(&fs)
	g.set(&gs)
	r.nz[0][0] = 1
	zero := archsimd.BroadcastUint64x4(0)
	one, s63 := archsimd.BroadcastUint64x4(1), archsimd.BroadcastUint64x4(63)
	delta := int32(1)
	for range 2*P - 1 {
		f0sg := f.sg[0][0] & 1 // f0 is never zero
		g0nz, g0sg := g.nz[0][0]&1, g.sg[0][0]&1
		swap := negMask(-delta) & -int32(g0nz)
		delta ^= swap & (delta ^ -delta)
		delta++
		sw := archsimd.BroadcastUint64x4(uint64(int64(swap)))
		// c = -g0/f0 = -g0*f0: zero if g0 = 0, else a sign.
		cnz := archsimd.BroadcastUint64x4(-g0nz)
		csg := archsimd.BroadcastUint64x4(-((g0sg ^ f0sg ^ 1) & g0nz))

		// f, g <- swapped; g <- (g + c*f)/x.
		sn0, ss0 := swapAddWord(&f, &g, 0, sw, cnz, csg)
		sn1, ss1 := swapAddWord(&f, &g, 1, sw, cnz, csg)
		sn2, ss2 := swapAddWord(&f, &g, 2, sw, cnz, csg)
		storeU64(shiftDown(sn0, sn1, one), &g.nz[0])
		storeU64(shiftDown(ss0, ss1, one), &g.sg[0])
		storeU64(shiftDown(sn1, sn2, one), &g.nz[1])
		storeU64(shiftDown(ss1, ss2, one), &g.sg[1])
		storeU64(shiftDown(sn2, zero, one), &g.nz[2])
		storeU64(shiftDown(ss2, zero, one), &g.sg[2])

		// v <- x*v; v, r <- swapped; r <- r + c*v.
		prevN, prevS := zero, zero
		for i := range 3 {
			on, os := loadU64(&v.nz[i]), loadU64(&v.sg[i])
			vn, vs := shiftUp(prevN, on, s63), shiftUp(prevS, os, s63)
			prevN, prevS = on, os
			rn, rs := loadU64(&r.nz[i]), loadU64(&r.sg[i])
			t := sw.And(vn.Xor(rn))
			vn, rn = vn.Xor(t), rn.Xor(t)
			t = sw.And(vs.Xor(rs))
			vs, rs = vs.Xor(t), rs.Xor(t)
			pn := vn.And(cnz)
			rn, rs = add3v(rn, rs, pn, vs.Xor(csg).And(pn))
			storeU64(vn, &v.nz[i])
			storeU64(vs, &v.sg[i])
			storeU64(rn, &r.nz[i])
			storeU64(rs, &r.sg[i])
		}
	}
	clearUpper()

	// out = v / f_0, reversed: out_i = f0 * v_(p-1-i) since f0 = ±1.
	fsg := -(f.sg[0][0] & 1)
	for i := range P {
		j := P - 1 - i
		w, b := j/64, j%64
		nz := (v.nz[w/4][w%4] >> b) & 1
		sg := ((v.sg[w/4][w%4] ^ fsg) >> b) & 1
		out[i] = int8(nz) - 2*int8(sg&nz)
	}
	clear(fs.nz[:])
	clear(fs.sg[:])
	clear(gs.nz[:])
	clear(gs.sg[:])
	for _, x := range [...]*r3Planes{&f, &g, &v, &r} {
		clear(x.nz[:])
		clear(x.sg[:])
	}
	return nzMask(delta)
}
