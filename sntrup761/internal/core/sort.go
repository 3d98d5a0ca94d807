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

// sortShort sorts the 761 keys of Short_fromlist. It runs the network of
// sortUint32 for n = 762 (a sentinel 0xffffffff, larger than every key of
// Short_fromlist, fills the last place): with n even, every pass with p >= 2
// compares even-aligned runs of even length at even distance, so those
// passes work on two keys per uint64 (swarMinmax). The final p = 1 passes
// compare neighbours across lanes and run on the unpacked keys.
func sortShort(L *[P]uint32) {
	const n = P + 1
	var w [n / 2]uint64
	for i := range P / 2 {
		w[i] = uint64(L[2*i]) | uint64(L[2*i+1])<<32
	}
	w[n/2-1] = uint64(L[P-1]) | 0xffffffff<<32
	const t = 10 // 1<<t >= n
	for p := 1 << (t - 1); p > 1; p >>= 1 {
		q, r, d := 1<<(t-1), 0, p
		for d > 0 {
			if p <= 8 {
				// runs of at most 4 words: a loop over the words of every
				// run, with the runs' own loop skipped word by word
				hw, dw := p/2, d/2
				for k := r / 2; k+dw < n/2; k++ {
					if (2*k)&p != r { // public: outside this pass's runs
						continue
					}
					w[k], w[k+dw] = swarMinmax(w[k], w[k+dw])
				}
				_ = hw
			} else {
				for b := 0; b+r+d < n; b += 2 * p {
					lo := b + r
					hi := min(lo+p, n-d)
					swarCmpExchange(w[lo/2:hi/2], w[(lo+d)/2:(hi+d)/2])
				}
			}
			d, q, r = q-p, q>>1, p
		}
	}
	var x [n]uint32
	for i := range w {
		x[2*i], x[2*i+1] = uint32(w[i]), uint32(w[i]>>32)
	}
	q, r, d := 1<<(t-1), 0, 1
	for d > 0 {
		mergePass(x[:], 1, d, r)
		d, q, r = q-1, q>>1, 1
	}
	copy(L[:], x[:P])
}

// swarCmpExchange compare-exchanges the 32-bit lanes of xs[i] and ys[i]:
// each lane of xs gets the smaller and the same lane of ys the larger key.
//
// For lanes a (of x) and b (of y), b < a iff the top bits are (1, 0), or
// they are equal and b's low 31 bits are below a's; d = (y | H) - (x &^ H)
// compares the low 31 bits of both lanes at once without a borrow crossing
// lanes (its lane top bit is set iff b_low >= a_low). The lane mask of the
// result is spread to all 32 bits by a multiplication. Constant time.
//
//go:noinline // keeps the caller's loop from starving this one of registers
func swarCmpExchange(xs, ys []uint64) {
	ys = ys[:len(xs)]
	for i, a := range xs {
		xs[i], ys[i] = swarMinmax(a, ys[i])
	}
}

// swarMinmax returns the lane-wise minimum and maximum of a and b.
func swarMinmax(a, b uint64) (uint64, uint64) {
	const H = 0x8000000080000000
	d := (b | H) - (a &^ H)
	x := a ^ b
	lt := ((a &^ b) | ^(x | d)) & H
	m := (lt >> 31) * 0xffffffff
	t := x & m
	return a ^ t, b ^ t
}
