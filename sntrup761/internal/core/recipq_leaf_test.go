package core

import (
	"math/rand/v2"
	"testing"
)

// jumpPlainRef is the straightforward leaf: n divsteps one at a time, each
// updating every remaining coefficient of f and g and every coefficient of
// the matrix (jumpPlain as of commit 7c9261d, with a plain % reduction).
// The matrix rows are packed two entries to a word, uv[i] = u_i | v_i<<32
// and qr[i] = q_i | r_i<<32, with lanes in [0, q), reduced every step.
func jumpPlainRef(n int, delta int32, f0s, g0s []int32) (int32, [4][]int32) {
	var f, g [jumpBase]int32
	var uv, qr [jumpBase + 1]uint64
	copy(f[:n], f0s[:n])
	copy(g[:n], g0s[:n])
	uv[0], qr[0] = 1, 1<<32 // u = 1, r = 1
	for k := range n {
		swap := negMask(-delta) & nzMask(g[0])
		delta ^= swap & (delta ^ -delta)
		delta++
		f0, g0 := f[0], g[0]
		a := (f0 ^ swap) - swap
		b := (g0 ^ swap) - swap
		l := n - k
		for i := 1; i < l; i++ {
			fi, gi := f[i], g[i]
			g[i-1] = freezeQ26(a*gi - b*fi)
			f[i] = fi ^ (swap & (fi ^ gi))
		}
		f[0] = f0 ^ (swap & (f0 ^ g0))
		ap := uint64(a + Q&negMask(a))
		nb := -b
		nbp := uint64(nb + Q&negMask(nb))
		sw := uint64(int64(swap))
		for i := k; i >= 0; i-- {
			uvi, qri := uv[i], qr[i]
			qr[i] = reduceLanesRef(ap*qri + nbp*uvi)
			uv[i+1] = uvi ^ (sw & (uvi ^ qri))
		}
		uv[0] = 0
	}
	var M [4][]int32
	for e := range M {
		M[e] = make([]int32, n+1)
	}
	for i := range n + 1 {
		M[0][i] = freezeQ26(int32(uint32(uv[i])))
		M[1][i] = freezeQ26(int32(uv[i] >> 32))
		M[2][i] = freezeQ26(int32(uint32(qr[i])))
		M[3][i] = freezeQ26(int32(qr[i] >> 32))
	}
	return delta, M
}

// reduceLanesRef reduces both 32-bit lanes of x modulo q, with %.
func reduceLanesRef(x uint64) uint64 {
	return (x&0xffffffff)%Q | (x>>32)%Q<<32
}

// checkJumpPlain compares jumpPlain with jumpPlainRef on one input.
func checkJumpPlain(t *testing.T, n int, delta int32, f, g []int32) {
	t.Helper()
	ar := getRecipArena()
	defer putRecipArena(ar)
	wd, wm := jumpPlainRef(n, delta, f, g)
	gd, gm := jumpPlain(ar, n, delta, f, g)
	if gd != wd {
		t.Fatalf("n=%d δ=%d: δ %d, want %d\nf=%v\ng=%v", n, delta, gd, wd, f[:n], g[:n])
	}
	for e, got := range [4][]int32{gm.u, gm.v, gm.q, gm.r} {
		if len(got) != n+1 {
			t.Fatalf("n=%d: matrix entry %d has %d coefficients", n, e, len(got))
		}
		for i := range got {
			if got[i] != wm[e][i] {
				t.Fatalf("n=%d δ=%d: entry %c coefficient %d is %d, want %d\nf=%v\ng=%v",
					n, delta, "uvqr"[e], i, got[i], wm[e][i], f[:n], g[:n])
			}
		}
	}
}

// randDelta returns a random δ: mostly small (as in the inversion, where
// |δ| stays near 1), sometimes large of either sign.
func randDelta(rng *rand.Rand) int32 {
	switch rng.IntN(4) {
	case 0:
		return rng.Int32N(1<<20) - 1<<19
	case 1:
		return rng.Int32N(2*jumpBase+3) - jumpBase - 1
	default:
		return rng.Int32N(9) - 4
	}
}

// TestJumpPlainMatchesRef compares the blocked leaf with the one-step-at-
// a-time one for every n up to jumpBase: random inputs (uniform, or with
// many zeros so that divsteps with g0 = 0 are frequent), extreme inputs
// (all coefficients ±Q12, which maximise every intermediate sum) and δ
// from -2^19 to 2^19.
func TestJumpPlainMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	f := make([]int32, jumpBase)
	g := make([]int32, jumpBase)
	iters := iterations(t, 300)
	for n := 1; n <= jumpBase; n++ {
		for it := range iters {
			for i := range f {
				switch {
				case it%5 == 1: // extremes: ±Q12, and -1 (q-1 in [0, q))
					f[i] = [3]int32{Q12, -Q12, -1}[rng.IntN(3)]
					g[i] = [3]int32{Q12, -Q12, -1}[rng.IntN(3)]
				case it%5 == 2: // sparse: many zero g0
					f[i] = (rng.Int32N(3) - 1) * rng.Int32N(Q12+1)
					g[i] = (rng.Int32N(3) - 1) * rng.Int32N(Q12+1) * rng.Int32N(2)
				default:
					f[i] = rng.Int32N(Q) - Q12
					g[i] = rng.Int32N(Q) - Q12
				}
			}
			if it%5 == 1 && it%2 == 1 { // all equal extremes
				for i := range f {
					f[i], g[i] = Q12, -Q12
				}
			}
			checkJumpPlain(t, n, randDelta(rng), f, g)
		}
		for _, c := range [][2]int32{{Q12, Q12}, {-Q12, -Q12}, {Q12, -Q12}, {-Q12, Q12}, {0, Q12}, {Q12, 0}, {0, 0}, {-1, -1}, {1, -1}, {-1, 1}} {
			for i := range f {
				f[i], g[i] = c[0], c[1]
			}
			for _, d := range []int32{1, 0, -1, 1 << 19, -1 << 19} {
				checkJumpPlain(t, n, d, f, g)
			}
		}
	}
}

// TestLeafProducts compares the Karatsuba products and middle products of
// leafSplit with schoolbook ones. Their arithmetic is exact modulo 2^64
// for any inputs, so the inputs are arbitrary 64-bit words (besides a few
// structured ones), which exercises every wrap-around.
func TestLeafProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(96, 97))
	word := func(kind int) uint64 {
		switch kind {
		case 0:
			return rng.Uint64()
		case 1:
			return ^uint64(0)
		case 2:
			return uint64(rng.IntN(Q)) | uint64(rng.IntN(Q))<<32
		default:
			return Q - 1 | (Q-1)<<32
		}
	}
	for it := range iterations(t, 200) {
		kind := it % 4
		var u, q, b, h1, h2 [48]uint64
		var x, y [96]uint64
		for i := range 48 {
			u[i], q[i], b[i], h1[i], h2[i] = word(kind), word(kind), word(kind), word(kind), word(kind)
		}
		for i := range 96 {
			x[i], y[i] = word(kind), word(kind)
		}
		var p1, p2, w1, w2 [96]uint64
		mul48(&p1, &p2, &u, &q, &b)
		for i := range 48 {
			for j := range 48 {
				w1[i+j] += u[i] * b[j]
				w2[i+j] += q[i] * b[j]
			}
		}
		if p1 != w1 || p2 != w2 {
			t.Fatalf("mul48 differs from schoolbook (input %d)", it)
		}
		var o, w [48]uint64
		mp48(&o, &h1, &h2, &x, &y)
		for i := range 48 {
			for k := range 48 {
				w[i] += h1[k]*x[i+k] + h2[k]*y[i+k]
			}
		}
		if o != w {
			t.Fatalf("mp48 differs from schoolbook (input %d)", it)
		}
		var d uint64
		for k := range 48 {
			d += h1[k]*x[48+k] + h2[k]*y[48+k]
		}
		if got := dot48(&h1, (*[48]uint64)(x[48:]), &h2, (*[48]uint64)(y[48:])); got != d {
			t.Fatalf("dot48 = %#x, want %#x", got, d)
		}
	}
}

// TestLeafReductions checks reduceLane, reduceLanes and freezeLane on the
// values next to every multiple of q below 2^31 (where an estimated
// quotient would first go wrong) and on random ones, and laneSubQ on every
// lane value below 2q.
func TestLeafReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(98, 99))
	check := func(y uint64) {
		if got := reduceLane(y); got != y%Q {
			t.Fatalf("reduceLane(%d) = %d", y, got)
		}
		if got := freezeLane(y); int64(got) != centered(int64(y), Q) {
			t.Fatalf("freezeLane(%d) = %d", y, got)
		}
		z := uint64(1<<31-1) - y
		if got := reduceLanes(y | z<<32); got != y%Q|(z%Q)<<32 {
			t.Fatalf("reduceLanes(%d | %d<<32) = %#x", y, z, got)
		}
	}
	for m := uint64(0); m < 1<<31; m += Q {
		for _, y := range []uint64{m, m + Q12, m + Q12 + 1, m + Q - 1} {
			if y < 1<<31 {
				check(y)
			}
		}
	}
	check(1<<31 - 1)
	for range 100000 {
		check(rng.Uint64N(1 << 31))
	}
	for v := uint64(0); v < 2*Q; v++ {
		w := 2*Q - 1 - v
		if got := laneSubQ(v | w<<32); got != v%Q|(w%Q)<<32 {
			t.Fatalf("laneSubQ(%d | %d<<32) = %#x", v, w, got)
		}
	}
}
