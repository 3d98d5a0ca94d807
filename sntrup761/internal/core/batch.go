package core

import (
	"io"
	"sync"
)

// Batch key generation with Montgomery's trick, as in "OpenSSLNTRU: Faster
// post-quantum TLS key exchange" (Bernstein, Brumley, Chen, Tuveri, USENIX
// Security 2022): n keys need one inversion in R/q and one in R/3 plus three
// multiplications per key in each ring, instead of n inversions in each.
//
// Randomness is consumed exactly as n successive calls of GenerateKey would
// consume it, so batch keys are byte-identical to single keys from the same
// stream. That needs the invertibility of each g in R/3 before its f is
// read; it is decided by r3Invertible below, which is exact.

// Irreducible factors of x^p - x - 1 over F_3 (degrees 19, 60 and 682;
// computed offline by distinct-degree factorization and checked by
// TestModulusFactors, which multiplies them back together). Coefficients
// from degree 0 up; the polynomials are monic.
var (
	factor19 = []int8{-1, -1, 0, -1, -1, -1, 1, -1, 1, -1, 0, -1, 1, 1, 1, 1, -1, 0, 1, 1}
	factor60 = []int8{1, -1, 1, 1, 0, 0, 1, -1, 0, -1, 0, -1, 0, 1, 1, 1, 1, 1, 0, 0,
		-1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, -1, -1, 1, 1, -1, 0, 1, 1, 0, 0, 1, 1, -1, 0,
		0, 1, 1, 1, 1, -1, 0, 0, 1, -1, 0, -1, -1, 1, 0, 1}
)

// r3Remainder holds a monic divisor with its 64 bit-shifts precomputed.
type r3Remainder struct {
	deg     int
	shifted [64]r3vec // divisor * x^s for s = 0..63, in r3Words+1 words
}

// r3FactorTables are what r3Invertible divides g by. For the small
// factors, g mod phi = sum g_i (x^i mod phi), with each x^i mod phi in
// one word (deg phi < 64); the large one, the modulus divided by the two
// small ones, is divided out.
type r3FactorTables struct {
	factor682              []int8
	residues19, residues60 *residueTable
	remainder682           *r3Remainder
}

// r3Tables returns the factor tables, built on first use (see plan768).
var r3Tables = sync.OnceValue(func() *r3FactorTables {
	t := &r3FactorTables{factor682: divide3(modulus3(), mul3poly(factor19, factor60))}
	t.residues19 = newResidueTable(factor19)
	t.residues60 = newResidueTable(factor60)
	t.remainder682 = newR3Remainder(t.factor682)
	return t
})

// residueTable holds x^i mod phi for i < p, one bitsliced word each (and
// three zero words past them, which r3ResiduesAVX2 reads four at a time).
type residueTable struct {
	nz, sg [P + 3]uint64
}

func newResidueTable(phi []int8) *residueTable {
	d := len(phi) - 1
	t := new(residueTable)
	cur := make([]int8, d) // x^0 mod phi
	cur[0] = 1
	for i := range P {
		for k, c := range cur {
			bit := uint64(1) << k
			if c != 0 {
				t.nz[i] |= bit
			}
			if c < 0 {
				t.sg[i] |= bit
			}
		}
		// cur = x * cur mod phi (phi monic): shift up, then subtract
		// top * phi.
		top := cur[d-1]
		copy(cur[1:], cur[:d-1])
		cur[0] = 0
		for k := range d {
			cur[k] = freeze3(int64(cur[k]) - int64(top)*int64(phi[k]))
		}
	}
	return t
}

// isZeroMod returns 1 if g mod phi is zero, for the table's phi: the sum
// of the table's words weighted by g's coefficients, by masks.
func (t *residueTable) isZeroMod(g *[P]int8) uint64 {
	var accNz, accSg uint64
	for i, c := range g {
		mnz := -uint64(c & 1)        // all ones if c = ±1
		msg := -uint64((c >> 1) & 1) // all ones if c = -1
		tnz := t.nz[i] & mnz
		accNz, accSg = add3(accNz, accSg, tnz, (t.sg[i]^msg)&tnz)
	}
	return ((accNz | -accNz) >> 63) ^ 1
}

func newR3Remainder(phi []int8) *r3Remainder {
	rm := &r3Remainder{deg: len(phi) - 1}
	for s := range 64 {
		for i, c := range phi {
			setCoeff(&rm.shifted[s], i+s, c)
		}
	}
	return rm
}

// isZeroMod returns 1 if g is divisible by the divisor and 0 otherwise. It
// reduces g (deg < p) from the top coefficient down: for i = p-1 .. deg,
// g -= g_i * x^(i-deg) * divisor. The loop bounds are public; the
// subtraction is masked by g_i. Constant time.
func (rm *r3Remainder) isZeroMod(g *r3vec) uint64 {
	x := *g
	d := rm.deg
	for i := P - 1; i >= d; i-- {
		cnz := -((x.nz[i/64] >> (i % 64)) & 1)
		csg := -((x.sg[i/64] >> (i % 64)) & 1)
		s := i - d
		ws, bs := s/64, s%64
		sh := &rm.shifted[bs]
		// words of divisor*x^bs that can be nonzero
		top := min((d+bs)/64, r3Words-1-ws)
		for k := 0; k <= top; k++ {
			// subtract c*phi: add phi with sign flipped unless c = -1
			pnz := sh.nz[k] & cnz
			psg := (sh.sg[k] ^ ^csg) & pnz
			x.nz[ws+k], x.sg[ws+k] = add3(x.nz[ws+k], x.sg[ws+k], pnz, psg)
		}
	}
	var acc uint64
	for k := range x.nz {
		acc |= x.nz[k]
	}
	return ((acc | -acc) >> 63) ^ 1
}

// r3Invertible returns 1 if g is invertible in R/3 and 0 otherwise: g is
// invertible iff it is not divisible by any irreducible factor of x^p - x - 1
// (the modulus is squarefree). Constant time.
func r3Invertible(g *[P]int8) uint64 {
	if asmEnabled {
		return r3InvertibleAVX2(g)
	}
	var x r3vec
	for i, c := range g {
		setCoeff(&x, i, c)
	}
	t := r3Tables()
	bad := t.residues19.isZeroMod(g) | t.residues60.isZeroMod(g) | t.remainder682.isZeroMod(&x)
	return bad ^ 1
}

// batchSlot is one key's state in GenerateKeys. Slots come from a pool:
// a batch of 32 needs about 1.2 MB of them, which allocated afresh on every
// call cost page faults and garbage collection.
type batchSlot struct {
	f, g [P]int8
	rho  [smallBytes]byte
	sk   *PrivateKey // the key being built; sk.sf is the transform of f
	sg   spectrum
	// sc is 2^splitShift times the transform of c_(k-1), the R/3
	// prefix product before this key (a power-of-two scaling: exact).
	sc spectrum
	sd spectrum // transform of d_(k-1), the R/q prefix product before this key
}

var batchSlotPool = sync.Pool{New: func() any { return new(batchSlot) }}

// GenerateKeys generates n key pairs with one inversion per ring. The keys
// are exactly those n successive GenerateKey calls would produce from rand
// (crypto/rand if nil).
//
// With c_k = g_1...g_k in R/3 and d_k = 3f_1...3f_k in R/q, a forward pass
// computes the prefix products; after inverting c_n and d_n, a backward pass
// walks t3 = 1/c_k and tq = 1/d_k down:
//
//	1/g_k = t3*c_(k-1)    1/c_(k-1) = t3*g_k
//	h_k = g_k/(3f_k) = (tq*g_k)*d_(k-1)    1/d_(k-1) = tq*3f_k
//
// Products are paired through mulSplit, an R/q-times-small product in the
// low bits and an R/3 product 2^splitShift above it, one inverse transform
// for two products: (d, f) with (c, g) going forward, (tq, f) with (t3, c)
// and g times (tq, t3) going back. Per key that is 13 transforms: f, g,
// c_(k-1), d_(k-1), t3, tq, tq*g, h and v forward, four inverse.
func GenerateKeys(rand io.Reader, n int) ([]*PrivateKey, error) {
	if n <= 0 {
		return nil, nil
	}
	rand = source(rand)
	slots := make([]*batchSlot, n)
	for k := range slots {
		slots[k] = batchSlotPool.Get().(*batchSlot)
	}
	var L [P]uint32
	done := false
	defer func() {
		clear(L[:])
		// Everything in a slot but the key itself derives from secrets;
		// the keys of a batch that returns none (a failed or panicking
		// read) are overwritten too: each begun one holds its f's
		// transform.
		for _, s := range slots {
			if !done && s.sk != nil {
				*s.sk = PrivateKey{}
			}
			*s = batchSlot{}
			batchSlotPool.Put(s)
		}
	}()

	for _, s := range slots {
		if err := readBatchKey(rand, &L, &s.g, &s.f, &s.rho); err != nil {
			return nil, err
		}
		s.sk = new(PrivateKey)
		s.sk.sf.transformSmall(&s.f)
		s.sg.transformSmall(&s.g)
	}
	clear(L[:])

	// Forward: c_k = c_(k-1)*g_k and d_k = 3*d_(k-1)*f_k from one inverse
	// transform of d_(k-1)*f_k + 2^splitShift*c_(k-1)*g_k.
	var c3 [P]int8
	var dq [P]int16
	c3[0], dq[0] = 1, 1
	var x spectrum
	for _, s := range slots {
		s.sc.transformSmall(&c3)
		s.sc.scaleSplit()
		s.sd.transformRq(&dq)
		mulSplit(&dq, &c3, 3, &x, &s.sd, &s.sk.sf, &s.sc, &s.sg)
	}

	// One inversion in each ring; both succeed since every g is invertible
	// in R/3 and every 3f is nonzero in the field R/q.
	var t3 [P]int8
	var tq [P]int16
	r3Recip(&t3, &c3)
	recipRq(&tq, &dq, 1)

	keys := make([]*PrivateKey, n)
	var st3, stq, sw spectrum
	for k := n - 1; k >= 0; k-- {
		s := slots[k]
		st3.transformSmall(&t3)
		stq.transformRq(&tq)
		// sw = tq + 2^splitShift*t3 (one rounding per value, counted in
		// the error bound)
		sw.addSplit(&stq, &st3)
		var v [P]int8
		var w, h [P]int16
		mulSplit(&w, &t3, 1, &x, &s.sg, &sw, nil, nil)        // w = tq*g_k; t3 = 1/c_(k-1)
		mulSplit(&tq, &v, 3, &x, &stq, &s.sk.sf, &st3, &s.sc) // tq = 1/d_(k-1); v = 1/g_k
		sw.transformRq(&w)
		mulRq(&h, &sw, &sw, &s.sd) // h = g_k/(3f_k)
		keys[k] = s.sk
		s.sk.assemble(&s.f, &v, &h, &s.rho)
		clear(v[:])
		clear(w[:])
	}
	clear(t3[:])
	clear(tq[:])
	clear(c3[:])
	clear(dq[:])
	clear(x[:])
	clear(st3[:])
	clear(stq[:])
	clear(sw[:])
	done = true
	return keys, nil
}

// readBatchKey reads one batch key's randomness as GenerateKey reads it:
// lists for g until g is invertible in R/3 (decided by r3Invertible), a
// list for f, then rho. L is scratch.
func readBatchKey(rand io.Reader, L *[P]uint32, g, f *[P]int8, rho *[smallBytes]byte) error {
	for {
		if err := readList(rand, L); err != nil {
			return err
		}
		smallFromList(g, L)
		if r3Invertible(g) == 1 { // declassified, as in GenerateKey
			break
		}
	}
	if err := readList(rand, L); err != nil {
		return err
	}
	shortFromList(f, L)
	_, err := io.ReadFull(rand, rho[:])
	return err
}

// Plain polynomial arithmetic over F_3 for the public factor tables (once,
// when r3Tables first builds them). Polynomials are coefficient slices from degree 0.

func modulus3() []int8 {
	m := make([]int8, P+1)
	m[0], m[1], m[P] = -1, -1, 1
	return m
}

func mul3poly(a, b []int8) []int8 {
	out := make([]int8, len(a)+len(b)-1)
	for i := range a {
		for j := range b {
			out[i+j] = freeze3(int64(out[i+j]) + int64(a[i])*int64(b[j]))
		}
	}
	return out
}

// divide3 returns a/b for monic b dividing a exactly; it panics otherwise
// (a programming error in the tables).
func divide3(a, b []int8) []int8 {
	r := append([]int8(nil), a...)
	q := make([]int8, len(a)-len(b)+1)
	for i := len(q) - 1; i >= 0; i-- {
		c := r[i+len(b)-1]
		q[i] = c
		for j := range b {
			r[i+j] = freeze3(int64(r[i+j]) - int64(c)*int64(b[j]))
		}
	}
	for _, c := range r {
		if c != 0 {
			panic("core: factor table does not divide x^p - x - 1")
		}
	}
	return q
}
