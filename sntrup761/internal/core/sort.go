package core

// Constant-time sorting of 761 uint32 for Short_fromlist.
//
// The network is Batcher's merge exchange (Knuth, TAOCP 5.2.2 Algorithm M),
// as in ../ref.SortUint32, unrolled by its loop structure: for every pass
// (p, d, r) the compared pairs (i, i+d) are those with i&p == r, which come
// in runs of p consecutive i. Which pairs are compared depends only on the
// length, and each compare-exchange is branch-free, so the time does not
// depend on the values. minmax32 is the only place where values are
// compared. (A CMOV-based min/max was measured no faster here: the mask
// version has more instructions but more parallelism.)

// sortUint32 sorts x in place.
func sortUint32(x []uint32) {
	n := len(x)
	if n < 2 {
		return
	}
	t := 1
	for 1<<t < n {
		t++
	}
	for p := 1 << (t - 1); p > 0; p >>= 1 {
		q, r, d := 1<<(t-1), 0, p
		for d > 0 {
			mergePass(x, p, d, r)
			d, q, r = q-p, q>>1, p
		}
	}
}

// mergePass compare-exchanges (i, i+d) for every i with i&p == r and
// i+d < len(x): runs of p consecutive i starting at multiples of 2p plus r.
// Short runs are unrolled so the per-run bookkeeping stays cheap; all
// choices depend only on the public p, d, r and len(x).
func mergePass(x []uint32, p, d, r int) {
	n := len(x)
	b := 0
	switch p {
	case 1:
		for i := r; i+d < n; i += 2 {
			x[i], x[i+d] = minmax32(x[i], x[i+d])
		}
		return
	case 2, 4, 8:
		// whole runs
		for ; b+r+p+d <= n; b += 2 * p {
			lo := b + r
			switch p {
			case 2:
				cmpExchange2((*[2]uint32)(x[lo:]), (*[2]uint32)(x[lo+d:]))
			case 4:
				cmpExchange4((*[4]uint32)(x[lo:]), (*[4]uint32)(x[lo+d:]))
			case 8:
				cmpExchange4((*[4]uint32)(x[lo:]), (*[4]uint32)(x[lo+d:]))
				cmpExchange4((*[4]uint32)(x[lo+4:]), (*[4]uint32)(x[lo+4+d:]))
			}
		}
	}
	for ; b+r+d < n; b += 2 * p {
		lo := b + r
		hi := min(lo+p, n-d)
		cmpExchange(x[lo:hi], x[lo+d:hi+d])
	}
}

func cmpExchange2(x, y *[2]uint32) {
	x[0], y[0] = minmax32(x[0], y[0])
	x[1], y[1] = minmax32(x[1], y[1])
}

func cmpExchange4(x, y *[4]uint32) {
	x[0], y[0] = minmax32(x[0], y[0])
	x[1], y[1] = minmax32(x[1], y[1])
	x[2], y[2] = minmax32(x[2], y[2])
	x[3], y[3] = minmax32(x[3], y[3])
}

// cmpExchange puts min(xs[i], ys[i]) in xs[i] and the max in ys[i].
//
//go:noinline // keeps the caller's loop from starving this one of registers
func cmpExchange(xs, ys []uint32) {
	ys = ys[:len(xs)]
	for i, a := range xs {
		xs[i], ys[i] = minmax32(a, ys[i])
	}
}

// minmax32 returns (min(a, c), max(a, c)) without branching: m is all ones
// iff c < a (the borrow of the 64-bit difference c - a).
func minmax32(a, c uint32) (uint32, uint32) {
	m := uint32(int64(uint64(c)-uint64(a)) >> 63)
	s := (a ^ c) & m
	return a ^ s, c ^ s
}
