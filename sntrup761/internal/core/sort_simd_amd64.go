//go:build goexperiment.simd && amd64

package core

import (
	"math/bits"
	"simd/archsimd"
)

// Constant-time sorting on 8-lane vectors: a bitonic sorting network on
// 1024 keys (the 761 keys of Short_fromlist followed by 263 sentinels
// 0xffffffff, which no key equals; see sortShort), in its all-ascending
// form: merge phase m (m = 1..10, blocks of 2^m keys) first compares key i
// of each block with key 2^m-1-i (the "mirror" stage), then runs the
// half-cleaners of distances 2^(m-2), ..., 1, every comparator putting
// the minimum at the lower index. Any sorting network gives the same sorted
// output, so the keys come out exactly as from sortShort.
//
// Layout: key 8*v + l is lane l of vector v. A comparator at distance
// d >= 8 pairs lane l of two vectors (vertical min/max); the mirror stages
// for m >= 4 pair lane l with lane 7-l of the partner vector, which one
// lane reversal on each side handles; comparators at distance 1, 2 and 4
// pair lanes of one vector and run in registers (a lane permutation, min,
// max and a constant blend).
//
// Constant time: the comparators are fixed by n = 1024 alone, and min, max,
// permutations and blends take the same time for every key value.

// Lane permutations and blend masks of the in-vector stages.
var (
	laneSwap1   = [8]uint32{1, 0, 3, 2, 5, 4, 7, 6}                                     // l ^ 1
	laneSwap2   = [8]uint32{2, 3, 0, 1, 6, 7, 4, 5}                                     // l ^ 2
	laneSwap4   = [8]uint32{4, 5, 6, 7, 0, 1, 2, 3}                                     // l ^ 4
	laneMirror3 = [8]uint32{3, 2, 1, 0, 7, 6, 5, 4}                                     // l ^ 3
	laneReverse = [8]uint32{7, 6, 5, 4, 3, 2, 1, 0}                                     // l ^ 7
	upper1      = [8]uint32{0, ^uint32(0), 0, ^uint32(0), 0, ^uint32(0), 0, ^uint32(0)} // l & 1
	upper2      = [8]uint32{0, 0, ^uint32(0), ^uint32(0), 0, 0, ^uint32(0), ^uint32(0)} // l & 2
	upper4      = [8]uint32{0, 0, 0, 0, ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)} // l & 4
)

type (
	u32x8  = archsimd.Uint32x8
	mask32 = archsimd.Mask32x8
)

// laneStage is one in-vector stage: lane l is compared with lane perm[l];
// the upper lanes (set in up) take the maximum (VPBLENDVB).
func laneStage(x, perm u32x8, up mask32) u32x8 {
	y := x.Permute(perm)
	return x.Max(y).Merge(x.Min(y), up)
}

// laneConsts returns the permutations and masks of the in-vector stages
// at distances 1, 2 and 4. (They are loaded in each function that uses
// them: a struct of vectors would be copied with legacy-SSE moves.)
func laneConsts() (s1, s2, s4 u32x8, u1, u2, u4 mask32) {
	ones := archsimd.BroadcastUint32x8(^uint32(0))
	return loadU32(&laneSwap1), loadU32(&laneSwap2), loadU32(&laneSwap4),
		loadU32(&upper1).Equal(ones), loadU32(&upper2).Equal(ones), loadU32(&upper4).Equal(ones)
}

// lanes3 runs the half-cleaners at distances 4, 2 and 1 inside a vector.
func lanes3(x, s1, s2, s4 u32x8, u1, u2, u4 mask32) u32x8 {
	return laneStage(laneStage(laneStage(x, s4, u4), s2, u2), s1, u1)
}

// cmpx is a comparator between two vectors, lane by lane: the minimum
// goes to the first.
func cmpx(a, b u32x8) (u32x8, u32x8) { return a.Min(b), a.Max(b) }

// sortShortSIMD is sortShort on the vector path.
func sortShortSIMD(L *[P]uint32) {
	var x [128][8]uint32
	for v := range sortFull {
		storeU32(loadU32s(L[8*v:]), &x[v])
	}
	x[sortFull][0] = L[P-1]
	sortKeys1024(&x)
	for v := range sortFull {
		storeU32s(loadU32(&x[v]), L[8*v:])
	}
	L[P-1] = x[sortFull][0]
	clear(x[:])
}

// shortFromListSIMD is shortFromList on the vector path: the keys are
// L[i] with bit 0 cleared for i < W, and with bits 0, 1 set to 01 for the
// others; sorted, their low two bits minus one are the coefficients.
func shortFromListSIMD(out *[P]int8, L *[P]uint32) {
	var x [128][8]uint32
	clear1 := archsimd.BroadcastUint32x8(^uint32(1))
	clear3, set1 := archsimd.BroadcastUint32x8(^uint32(3)), archsimd.BroadcastUint32x8(1)
	for v := range sortFull {
		k := loadU32s(L[8*v:])
		switch { // public: vector v's position against W
		case 8*v+8 <= W:
			k = k.And(clear1)
		case 8*v >= W:
			k = k.And(clear3).Or(set1)
		default:
			for l := range 8 {
				if i := 8*v + l; i < W { // public index
					x[v][l] = L[i] &^ 1
				} else {
					x[v][l] = L[i]&^3 | 1
				}
			}
			continue
		}
		storeU32(k, &x[v])
	}
	x[sortFull][0] = L[P-1]&^3 | 1
	sortKeys1024(&x)
	// out_i = (key_i & 3) - 1, eight at a time: to int16 (VPACKSSDW),
	// then the low bytes (VPSHUFB), stored 8 bytes apart (each store's
	// upper 8 bytes are overwritten by the next).
	var o [P + 15]int8
	three, one := archsimd.BroadcastUint32x8(3), archsimd.BroadcastUint32x8(1)
	pick := loadI8x16(&lowBytes)
	for v := range (P + 7) / 8 {
		w := loadU32(&x[v]).And(three).Sub(one).AsInt32x8()
		b := w.GetLo().SaturateToInt16Concat(w.GetHi()).AsInt8x16().PermuteOrZero(pick)
		storeI8x16(b, (*[16]int8)(o[8*v:8*v+16]))
	}
	clearUpper()
	copy(out[:], o[:P])
	clear(o[:])
	clear(x[:])
}

// sortFull is the number of vectors filled from a list of P keys; vector
// sortFull holds the last key.
const sortFull = P / 8

// sortKeys1024 sorts x (as 1024 keys, key 8*v+l in x[v][l]); it first
// fills x[sortFull][1:] and the vectors after it with the sentinel.
//
// The network is the one described above; its stages are grouped so that
// each pass over x runs several of them on vectors held in registers (13
// passes for the 55 stages): phases 1 to 3 in one pass, and in phase m
// (blocks of bv = 2^(m-3) vectors) the mirror stage with the next two
// vector-distance half-cleaners (mirrorPass), then the remaining ones three
// at a time (levelsPass), the last pass also running the three in-vector
// stages. Grouping changes only the order in which independent
// comparators run, not the network.
func sortKeys1024(x *[128][8]uint32) {
	sentinel := archsimd.BroadcastUint32x8(0xffffffff)
	last := x[sortFull][0]
	for v := sortFull; v < len(x); v++ {
		storeU32(sentinel, &x[v])
	}
	x[sortFull][0] = last
	s1, s2, _, m1, m2, m4 := laneConsts()
	m3, rev := loadU32(&laneMirror3), loadU32(&laneReverse)

	// Phases 1 to 3 sort each vector.
	for v := range x {
		a := loadU32(&x[v])
		a = laneStage(a, s1, m1) // m = 1: mirror = l^1
		a = laneStage(a, m3, m2) // m = 2: mirror l^3, then distance 1
		a = laneStage(a, s1, m1)
		a = laneStage(a, rev, m4) // m = 3: mirror l^7, then 2 and 1
		a = laneStage(a, s2, m2)
		a = laneStage(a, s1, m1)
		storeU32(a, &x[v])
	}
	for m := 4; m <= 10; m++ {
		// Half-cleaners after the mirror stage at vector distances
		// bv/4, ..., 1: nl of them.
		bv := 1 << (m - 3)
		nl := m - 4
		mirrorPass(x, bv, min(nl, 2), nl <= 2)
		for e := bv / 16; e >= 1; { // public
			k := min(3, bits.Len(uint(e))) // levels e, e/2, ... in this pass
			levelsPass(x, e, k, e>>k == 0)
			e >>= k
		}
	}
	clearUpper()
}

// mirrorPass runs the mirror stage of a phase with blocks of bv vectors,
// followed by the half-cleaners at vector distances bv/4 and bv/8 (k of
// them, k <= 2) and, if lanes is set, by the in-vector stages. A group is
// vector j + t*q (t = 0..3, q = bv/8) of the lower half of a block and
// their mirror images bv-1-j-t*q: the mirror stage pairs lower t with upper
// t (lanes reversed), the stage at distance 2q pairs t with t+2 in each
// half and the stage at distance q pairs t with t+1 (in the upper half the
// vector further down the block is the one with the larger t).
func mirrorPass(x *[128][8]uint32, bv, k int, lanes bool) {
	s1, s2, s4, m1, m2, m4 := laneConsts()
	rev := loadU32(&laneReverse)
	lane3 := func(x u32x8) u32x8 { return lanes3(x, s1, s2, s4, m1, m2, m4) }
	switch k { // public
	case 0: // bv = 2
		for b := 0; b < len(x); b += 2 {
			a0, u0 := cmpx(loadU32(&x[b]), loadU32(&x[b+1]).Permute(rev))
			storeU32(lane3(a0), &x[b])
			storeU32(lane3(u0.Permute(rev)), &x[b+1])
		}
	case 1: // bv = 4
		for b := 0; b < len(x); b += 4 {
			a0, u0 := cmpx(loadU32(&x[b]), loadU32(&x[b+3]).Permute(rev))
			a1, u1 := cmpx(loadU32(&x[b+1]), loadU32(&x[b+2]).Permute(rev))
			u0, u1 = u0.Permute(rev), u1.Permute(rev) // at b+3, b+2
			a0, a1 = cmpx(a0, a1)
			u1, u0 = cmpx(u1, u0)
			if lanes { // public
				a0, a1, u1, u0 = lane3(a0), lane3(a1), lane3(u1), lane3(u0)
			}
			storeU32(a0, &x[b])
			storeU32(a1, &x[b+1])
			storeU32(u1, &x[b+2])
			storeU32(u0, &x[b+3])
		}
	default: // bv >= 8
		q := bv / 8
		for b := 0; b < len(x); b += bv {
			for j := range q {
				l0, l1, l2, l3 := &x[b+j], &x[b+j+q], &x[b+j+2*q], &x[b+j+3*q]
				h0, h1, h2, h3 := &x[b+bv-1-j], &x[b+bv-1-j-q], &x[b+bv-1-j-2*q], &x[b+bv-1-j-3*q]
				a0, u0 := cmpx(loadU32(l0), loadU32(h0).Permute(rev))
				a1, u1 := cmpx(loadU32(l1), loadU32(h1).Permute(rev))
				a2, u2 := cmpx(loadU32(l2), loadU32(h2).Permute(rev))
				a3, u3 := cmpx(loadU32(l3), loadU32(h3).Permute(rev))
				u0, u1, u2, u3 = u0.Permute(rev), u1.Permute(rev), u2.Permute(rev), u3.Permute(rev)
				// distance 2q
				a0, a2 = cmpx(a0, a2)
				a1, a3 = cmpx(a1, a3)
				u2, u0 = cmpx(u2, u0)
				u3, u1 = cmpx(u3, u1)
				// distance q
				a0, a1 = cmpx(a0, a1)
				a2, a3 = cmpx(a2, a3)
				u1, u0 = cmpx(u1, u0)
				u3, u2 = cmpx(u3, u2)
				if lanes { // public
					a0, a1, a2, a3 = lane3(a0), lane3(a1), lane3(a2), lane3(a3)
					u0, u1, u2, u3 = lane3(u0), lane3(u1), lane3(u2), lane3(u3)
				}
				storeU32(a0, l0)
				storeU32(a1, l1)
				storeU32(a2, l2)
				storeU32(a3, l3)
				storeU32(u0, h0)
				storeU32(u1, h1)
				storeU32(u2, h2)
				storeU32(u3, h3)
			}
		}
	}
}

// levelsPass runs the half-cleaners at vector distances e, e/2, ... (k of
// them, k <= 3, e >= 2^(k-1)) and, if lanes is set, the in-vector stages
// after them. A group is the 2^k vectors r + t*(e/2^(k-1)) of a block of 2e
// vectors (r below the stride): the stage at distance e pairs t with
// t + 2^(k-1), and so on down.
func levelsPass(x *[128][8]uint32, e, k int, lanes bool) {
	s1, s2, s4, m1, m2, m4 := laneConsts()
	lane3 := func(x u32x8) u32x8 { return lanes3(x, s1, s2, s4, m1, m2, m4) }
	switch k { // public
	case 1:
		for b := 0; b < len(x); b += 2 * e {
			for r := range e {
				p, q := &x[b+r], &x[b+r+e]
				a, c := cmpx(loadU32(p), loadU32(q))
				if lanes { // public
					a, c = lane3(a), lane3(c)
				}
				storeU32(a, p)
				storeU32(c, q)
			}
		}
	case 2:
		d := e / 2
		for b := 0; b < len(x); b += 2 * e {
			for r := range d {
				p0, p1, p2, p3 := &x[b+r], &x[b+r+d], &x[b+r+2*d], &x[b+r+3*d]
				v0, v1, v2, v3 := loadU32(p0), loadU32(p1), loadU32(p2), loadU32(p3)
				v0, v2 = cmpx(v0, v2)
				v1, v3 = cmpx(v1, v3)
				v0, v1 = cmpx(v0, v1)
				v2, v3 = cmpx(v2, v3)
				if lanes { // public
					v0, v1, v2, v3 = lane3(v0), lane3(v1), lane3(v2), lane3(v3)
				}
				storeU32(v0, p0)
				storeU32(v1, p1)
				storeU32(v2, p2)
				storeU32(v3, p3)
			}
		}
	default:
		d := e / 4
		for b := 0; b < len(x); b += 2 * e {
			for r := range d {
				p0, p1, p2, p3 := &x[b+r], &x[b+r+d], &x[b+r+2*d], &x[b+r+3*d]
				p4, p5, p6, p7 := &x[b+r+4*d], &x[b+r+5*d], &x[b+r+6*d], &x[b+r+7*d]
				v0, v1, v2, v3 := loadU32(p0), loadU32(p1), loadU32(p2), loadU32(p3)
				v4, v5, v6, v7 := loadU32(p4), loadU32(p5), loadU32(p6), loadU32(p7)
				v0, v4 = cmpx(v0, v4)
				v1, v5 = cmpx(v1, v5)
				v2, v6 = cmpx(v2, v6)
				v3, v7 = cmpx(v3, v7)
				v0, v2 = cmpx(v0, v2)
				v1, v3 = cmpx(v1, v3)
				v4, v6 = cmpx(v4, v6)
				v5, v7 = cmpx(v5, v7)
				v0, v1 = cmpx(v0, v1)
				v2, v3 = cmpx(v2, v3)
				v4, v5 = cmpx(v4, v5)
				v6, v7 = cmpx(v6, v7)
				if lanes { // public
					v0, v1, v2, v3 = lane3(v0), lane3(v1), lane3(v2), lane3(v3)
					v4, v5, v6, v7 = lane3(v4), lane3(v5), lane3(v6), lane3(v7)
				}
				storeU32(v0, p0)
				storeU32(v1, p1)
				storeU32(v2, p2)
				storeU32(v3, p3)
				storeU32(v4, p4)
				storeU32(v5, p5)
				storeU32(v6, p6)
				storeU32(v7, p7)
			}
		}
	}
}
