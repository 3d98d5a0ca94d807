//go:build goexperiment.simd && amd64

package core

import "simd/archsimd"

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

// laneStage is one in-vector stage: lane l is compared with lane perm[l];
// the upper lanes (all ones in up) take the maximum.
func laneStage(x, perm, up archsimd.Uint32x8) archsimd.Uint32x8 {
	y := x.Permute(perm)
	lo, hi := x.Min(y), x.Max(y)
	return lo.Xor(lo.Xor(hi).And(up))
}

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
	for i := range out {
		out[i] = int8(x[i/8][i%8]&3) - 1
	}
	clear(x[:])
}

// sortFull is the number of vectors filled from a list of P keys; vector
// sortFull holds the last key.
const sortFull = P / 8

// sortKeys1024 sorts x (as 1024 keys, key 8*v+l in x[v][l]); it first
// fills x[sortFull][1:] and the vectors after it with the sentinel.
func sortKeys1024(x *[128][8]uint32) {
	sentinel := archsimd.BroadcastUint32x8(0xffffffff)
	last := x[sortFull][0]
	for v := sortFull; v < len(x); v++ {
		storeU32(sentinel, &x[v])
	}
	x[sortFull][0] = last
	s1, s2, s4 := loadU32(&laneSwap1), loadU32(&laneSwap2), loadU32(&laneSwap4)
	m3, rev := loadU32(&laneMirror3), loadU32(&laneReverse)
	u1, u2, u4 := loadU32(&upper1), loadU32(&upper2), loadU32(&upper4)

	// Phases 1 to 3 sort each vector.
	for v := range x {
		a := loadU32(&x[v])
		a = laneStage(a, s1, u1) // m = 1: mirror = l^1
		a = laneStage(a, m3, u2) // m = 2: mirror l^3, then distance 1
		a = laneStage(a, s1, u1)
		a = laneStage(a, rev, u4) // m = 3: mirror l^7, then 2 and 1
		a = laneStage(a, s2, u2)
		a = laneStage(a, s1, u1)
		storeU32(a, &x[v])
	}
	for m := 4; m <= 10; m++ {
		// Mirror stage: vector j of the lower half of each block of
		// bv = 2^(m-3) vectors against vector bv-1-j, lanes reversed.
		bv := 1 << (m - 3)
		for b := 0; b+bv <= len(x); b += bv {
			lo, hi := x[b:b+bv/2], x[b+bv/2:b+bv]
			hi = hi[:len(lo)]
			for j := range lo {
				p, q := &lo[j], &hi[len(hi)-1-j]
				a := loadU32(p)
				c := loadU32(q).Permute(rev)
				storeU32(a.Min(c), p)
				storeU32(a.Max(c).Permute(rev), q)
			}
		}
		// Half-cleaners at distances 2^(m-2) .. 16: e = distance/8 vectors.
		for e := bv / 4; e >= 2; e /= 2 {
			for b := 0; b+2*e <= len(x); b += 2 * e {
				lo, hi := x[b:b+e], x[b+e:b+2*e]
				hi = hi[:len(lo)]
				for j := range lo {
					p, q := &lo[j], &hi[j]
					a, c := loadU32(p), loadU32(q)
					storeU32(a.Min(c), p)
					storeU32(a.Max(c), q)
				}
			}
		}
		// Distance 8 (from m = 5 on) between the vectors of each pair,
		// then distances 4, 2, 1 in registers.
		for v := 0; v+1 < len(x); v += 2 {
			a, c := loadU32(&x[v]), loadU32(&x[v+1])
			if m >= 5 { // public
				a, c = a.Min(c), a.Max(c)
			}
			a = laneStage(laneStage(laneStage(a, s4, u4), s2, u2), s1, u1)
			c = laneStage(laneStage(laneStage(c, s4, u4), s2, u2), s1, u1)
			storeU32(a, &x[v])
			storeU32(c, &x[v+1])
		}
	}
	clearUpper()
}
