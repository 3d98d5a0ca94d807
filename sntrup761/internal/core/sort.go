package core

// Constant-time sorting of the 761 keys of Short_fromlist.
//
// The network is Batcher's merge exchange (Knuth, TAOCP 5.2.2 Algorithm M),
// the same as ../ref.SortUint32 uses, run for n = 762: a sentinel 0xffffffff,
// larger than every key Short_fromlist produces (they all have a low bit
// cleared), takes the last place. A pass (p, d, r) compare-exchanges the
// pairs (i, i+d) with i&p == r and i+d < n, which come in runs of p
// consecutive i starting at multiples of 2p plus r.
//
// With n even, every pass with p >= 2 compares even-aligned runs of even
// length at an even distance, so those passes work on two keys per uint64
// (swarMinmax). The final p = 1 passes compare odd keys with even ones;
// they run on the odd and the even keys packed into separate arrays (see
// sortKeys). Which pairs are compared depends only on n, and every
// compare-exchange is branch-free, so the running time does not depend on
// the keys.

import "math/bits"

const (
	sortN = P + 1     // 762 keys including the sentinel
	sortW = sortN / 2 // 381 words of two keys
	sortT = 10        // 1<<sortT >= sortN
)

// sortShort sorts L in place. L must not contain 0xffffffff.
func sortShort(L *[P]uint32) {
	if asmEnabled {
		sortShortAVX2(L)
		return
	}
	var w [sortW]uint64
	for i := range P / 2 {
		w[i] = uint64(L[2*i]) | uint64(L[2*i+1])<<32
	}
	w[sortW-1] = uint64(L[P-1]) | 0xffffffff<<32
	var x [sortW][2]uint32
	sortKeys(&x, &w)
	for k := range P / 2 {
		L[2*k], L[2*k+1] = x[k][0], x[k][1]
	}
	L[P-1] = x[P/2][0]
}

// sortKeys sorts the keys packed in w (key 2i in the low half of w[i], key
// 2i+1 in the high half) into x, key 2i+j in x[i][j]. w is destroyed.
func sortKeys(x *[sortW][2]uint32, w *[sortW]uint64) {
	for p := 1 << (sortT - 1); p > 1; p >>= 1 {
		q, r, d := 1<<(sortT-1), 0, p
		for d > 0 {
			swarPass(w, p/2, d/2, r/2)
			d, q, r = q-p, q>>1, p
		}
	}

	// p = 1: pairs (i, i+d) for i with i&1 == r: first d = 1, r = 0 (the
	// two keys of each pair), then r = 1 and odd d = q-1 for q = 2^(t-1),
	// ..., 2: odd key 2k+1 against even key 2(k+e) with e = (d+1)/2 = q/2.
	// With the odd keys A[k] = key 2k+1 and the even keys B[k] = key 2k
	// packed two to a word in separate arrays, these compare lane l of
	// wa[t] with lane l of wb[t+e/2] for even e, and for e = 1 with the
	// words of wb shifted by one key. The padding keys (381 in each array,
	// one real key fewer) are 0xffffffff at the top, so the extra pairs
	// that involve them leave every key in place.
	const nh = (sortW + 1) / 2
	var wa, wb [nh]uint64
	for t := range nh - 1 {
		w0, w1 := w[2*t], w[2*t+1]
		wb[t] = w0&0xffffffff | w1<<32
		wa[t] = w0>>32 | w1&^0xffffffff
	}
	wb[nh-1] = w[sortW-1]&0xffffffff | 0xffffffff<<32
	wa[nh-1] = w[sortW-1]>>32 | 0xffffffff<<32
	for t := range wb {
		wb[t], wa[t] = swarMinmax(wb[t], wa[t])
	}
	for e := 1 << (sortT - 2); e > 1; e >>= 1 {
		swarCmpExchange(wa[:nh-e/2], wb[e/2:])
	}
	for t := range nh - 1 { // e = 1: A[2t], A[2t+1] against B[2t+1], B[2t+2]
		y := wb[t]>>32 | wb[t+1]<<32
		wa[t], y = swarMinmax(wa[t], y)
		wb[t] = wb[t]&0xffffffff | y<<32
		wb[t+1] = wb[t+1]&^0xffffffff | y>>32
	}
	for t := range nh - 1 {
		x[2*t] = [2]uint32{uint32(wb[t]), uint32(wa[t])}
		x[2*t+1] = [2]uint32{uint32(wb[t] >> 32), uint32(wa[t] >> 32)}
	}
	x[sortW-1] = [2]uint32{uint32(wb[nh-1]), uint32(wa[nh-1])}
	clear(wa[:])
	clear(wb[:])
}

// swarPass runs one pass on the packed keys: runs of pw words starting at
// word r + multiples of 2*pw, each compared with the words dw further on.
// Short runs (pw <= 8) are walked as pw strided sequences, long ones run
// by run.
func swarPass(w *[sortW]uint64, pw, dw, r int) {
	const nw = sortW
	if pw <= 8 {
		for t := range pw {
			// words r+t + k*2pw against the words dw further on
			if r+t+dw >= nw {
				break
			}
			swarStrided(w[r+t:nw-dw], w[r+t+dw:], 2*pw)
		}
		return
	}
	for b := r; b+dw < nw; b += 2 * pw {
		hi := min(b+pw, nw-dw)
		swarCmpExchange(w[b:hi], w[b+dw:hi+dw])
	}
}

// swarStrided compare-exchanges the lanes of xs[i] and ys[i] for i =
// 0, stride, 2*stride, ...
//
//go:noinline // as swarCmpExchange
func swarStrided(xs, ys []uint64, stride int) {
	ys = ys[:len(xs)]
	i := 0
	for ; i+stride < len(xs); i += 2 * stride { // two per iteration
		j := i + stride
		xs[i], ys[i] = swarMinmax(xs[i], ys[i])
		xs[j], ys[j] = swarMinmax(xs[j], ys[j])
	}
	if i < len(xs) {
		xs[i], ys[i] = swarMinmax(xs[i], ys[i])
	}
}

// swarCmpExchange compare-exchanges the lanes of xs[i] and ys[i].
//
//go:noinline // keeps the caller's loop from starving this one of registers
func swarCmpExchange(xs, ys []uint64) {
	ys = ys[:len(xs)]
	for i, a := range xs {
		xs[i], ys[i] = swarMinmax(a, ys[i])
	}
}

// swarMinmax returns the lane-wise minimum and maximum of the two 32-bit
// lanes of a and b.
//
// The low lanes are compared by a 64-bit subtraction of the zero-extended
// lanes, whose sign is set iff b's lane is below a's. The high lanes are
// compared through the whole words: b < a as 64-bit numbers iff b's high
// lane is below a's, or the high lanes are equal, when exchanging them
// changes nothing. The two results become a mask that is all ones on the
// lanes to exchange. Constant time: bits.Sub64 is a subtraction with
// borrow, no branch.
func swarMinmax(a, b uint64) (uint64, uint64) {
	mlo := uint64(int64(uint64(uint32(b))-uint64(uint32(a))) >> 63)
	_, borrow := bits.Sub64(b, a, 0) // 1 iff b < a
	m := uint64(uint32(mlo)) | -borrow<<32
	t := (a ^ b) & m
	return a ^ t, b ^ t
}
