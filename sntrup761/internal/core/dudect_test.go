// Constant-time evidence for the sntrup761 core: a dudect-style timing
// check (package internal/testkit/dudect) of every operation on secret
// data. It is a long run (10^6 measurements per target: about an hour for
// all of them; select targets with -run, e.g. -run '^TestDudect$/sortShort'):
//
//	PQKEX_LONG=1 go test -run '^TestDudect$' -timeout 0 -v ./sntrup761/internal/core
//
// With -dudect.dump DIR every measurement goes to DIR (one
// "class<TAB>ns" line each, a file per target).
//
// Each target compares two classes of secret input with the public inputs
// fixed. Inputs are prepared for a whole batch before it is measured, in
// the same slots for both classes, so only the operation is timed.
// TestDudectCount (below) runs the same targets for instruction counting.

package core

import (
	"bytes"
	cryptorand "crypto/rand"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/dudect"
)

// dudectList fills L with random words masked as shortFromList masks them
// before sorting (W even keys, then odd keys with bit 1 clear).
func dudectList(rng *rand.Rand, L *[P]uint32) {
	for i := range L {
		L[i] = rng.Uint32()
	}
	for i := range W {
		L[i] &^= 1
	}
	for i := W; i < P; i++ {
		L[i] = L[i]&^3 | 1
	}
}

func dudectSmall(rng *rand.Rand, g *[P]int8) {
	for i := range g {
		g[i] = int8(rng.Uint32N(3)) - 1
	}
}

func dudectRq(rng *rand.Rand, a *[P]int16) {
	for i := range a {
		a[i] = int16(rng.Uint32N(Q)) - Q12
	}
}

func dudectShort(rng *rand.Rand, f *[P]int8) {
	var L [P]uint32
	for i := range L {
		L[i] = rng.Uint32()
	}
	shortFromList(f, &L)
}

// dudectInvertibleSmall returns a random small element invertible in R/3.
func dudectInvertibleSmall(rng *rand.Rand) [P]int8 {
	for {
		var g, v [P]int8
		dudectSmall(rng, &g)
		if r3Recip(&v, &g) == 0 {
			return g
		}
	}
}

// dudectKeySeed returns randomness for GenerateKey whose g is invertible,
// so that it reads exactly 2*3044+191 bytes.
func dudectKeySeed(rng *rand.Rand, b []byte) {
	for {
		dudect.Fill(rng, b)
		var L [P]uint32
		var g, v [P]int8
		decodeList(&L, (*[randomBytes]byte)(slices.Clone(b[:randomBytes])))
		smallFromList(&g, &L)
		if r3Recip(&v, &g) == 0 {
			return
		}
	}
}

// dudectKeyGen is the target of a key generation of keys keys from a
// reader: class 0 one fixed seed per key (2*3044+191 bytes, g
// invertible), class 1 fresh random seeds, slots slots. A random g is not
// invertible with probability about 3^-19; then gen's read fails,
// harmlessly.
func dudectKeyGen(keys, slots int, gen func(r *bytes.Reader)) dudect.Target {
	rng := dudect.NewRNG()
	const seedLen = 2*randomBytes + smallBytes
	fixed := make([]byte, keys*seedLen)
	for k := range keys {
		dudectKeySeed(rng, fixed[k*seedLen:(k+1)*seedLen])
	}
	seeds := make([][]byte, slots)
	readers := make([]bytes.Reader, slots)
	for i := range seeds {
		seeds[i] = make([]byte, len(fixed))
	}
	seed := make([]byte, len(fixed))
	return dudect.Target{
		Slots: slots,
		Prepare: func(i, class int) {
			// The same writes to the slot in both classes (see
			// dudectInputs).
			dudect.Fill(rng, seed)
			if class == 0 {
				copy(seed, fixed)
			}
			copy(seeds[i], seed)
			readers[i].Reset(seeds[i])
		},
		Run: func(i int) { gen(&readers[i]) },
	}
}

// dudectKey returns a fresh key.
func dudectKey(t *testing.T) *PrivateKey {
	sk, err := GenerateKey(cryptorand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// dudectInputs is the target of run on the inputs in, one per slot.
// Prepare draws an input with draw (which sets all of it) and, in class 0,
// changes it with class0 (to a fixed input, to the drawn one sorted, ...).
// Both classes reach the slot the same way: the input is built in one
// scratch variable and copied into the slot once, so that how the slot was
// written is not a class difference the timing could see. (Class 1
// written into the slot word by word and class 0 copied over it as a
// block gives |t| well above the bar on sortShort, Encapsulate and
// mulSplit at 10^6 measurements; docs/constant-time.md has the runs.)
func dudectInputs[T any](rng *rand.Rand, in []T, draw func(*rand.Rand, *T), class0 func(*T), run func(i int)) dudect.Target {
	var x T
	return dudect.Target{
		Slots: len(in),
		Prepare: func(i, class int) {
			draw(rng, &x)
			if class == 0 {
				class0(&x)
			}
			in[i] = x
		},
		Run: run,
	}
}

// dudectFixed is the class0 of dudectInputs that sets the input to fixed.
func dudectFixed[T any](fixed T) func(*T) {
	return func(x *T) { *x = fixed }
}

var (
	dudectSinkKey  *PrivateKey
	dudectSinkKeys []*PrivateKey
	dudectSink     int64
)

// TestDudectInputs checks dudectInputs (not a timing check): class 0
// slots get class0's input, class 1 slots draw's, each slot its own.
func TestDudectInputs(t *testing.T) {
	in := make([]int, 4)
	n := 0
	tg := dudectInputs(dudect.NewRNG(), in, func(_ *rand.Rand, x *int) { n++; *x = n }, dudectFixed(-1), func(int) {})
	for i, class := range []int{0, 1, 1, 0} {
		tg.Prepare(i, class)
	}
	if want := []int{-1, 2, 3, -1}; tg.Slots != len(in) || !slices.Equal(in, want) {
		t.Errorf("%d slots %v, want %d slots %v", tg.Slots, in, len(in), want)
	}
}

// dudectDecapsulate is the target of decapsulation of ciphertexts with one
// key: class 0 a valid ciphertext (drawn by valid from a pool of 1024),
// class 1 one drawn by class1, which may use valid.
func dudectDecapsulate(t *testing.T, class1 func(rng *rand.Rand, valid func(*[CiphertextSize]byte), ct *[CiphertextSize]byte)) dudect.Target {
	rng := dudect.NewRNG()
	sk := dudectKey(t)
	pool := make([][CiphertextSize]byte, 1024)
	for i := range pool {
		var k [SharedKeySize]byte
		sk.PublicKey().Encapsulate(cryptorand.Reader, &pool[i], &k)
	}
	valid := func(ct *[CiphertextSize]byte) { *ct = pool[rng.IntN(len(pool))] }
	cts := make([][CiphertextSize]byte, 1000)
	var k [SharedKeySize]byte
	return dudectInputs(rng, cts,
		func(rng *rand.Rand, ct *[CiphertextSize]byte) { class1(rng, valid, ct) },
		valid,
		func(i int) { sk.Decapsulate(&cts[i], &k) })
}

// dudectMulRq is the target of h*r as in encryption (transform of r,
// product with a fixed public spectrum): class 0 the Short r fixed, class
// 1 fresh random Short r.
func dudectMulRq(t *testing.T, fixed [P]int8) dudect.Target {
	rng := dudect.NewRNG()
	sh := &dudectKey(t).PublicKey().sh
	rs := make([][P]int8, 1000)
	var sr spectrum
	var out [P]int16
	return dudectInputs(rng, rs, dudectShort, dudectFixed(fixed), func(i int) {
		sr.transformSmall(&rs[i])
		mulRq(&out, &sr, &sr, sh)
	})
}

var dudectCases = []dudect.Case{
	{
		Name:  "Decapsulate/valid-vs-random-ct",
		About: "one key; class 0 a valid ciphertext (pool of 1024), class 1 random bytes (implicit rejection)",
		Setup: func(t *testing.T) dudect.Target {
			return dudectDecapsulate(t, func(rng *rand.Rand, _ func(*[CiphertextSize]byte), ct *[CiphertextSize]byte) {
				dudect.Fill(rng, ct[:])
			})
		},
	},
	{
		Name:  "Decapsulate/valid-vs-tampered-ct",
		About: "one key; class 0 a valid ciphertext, class 1 a valid one with one random bit flipped",
		Setup: func(t *testing.T) dudect.Target {
			return dudectDecapsulate(t, func(rng *rand.Rand, valid func(*[CiphertextSize]byte), ct *[CiphertextSize]byte) {
				valid(ct)
				bit := rng.IntN(8 * CiphertextSize)
				ct[bit/8] ^= 1 << (bit % 8)
			})
		},
	},
	{
		Name:  "sortShort/sorted-vs-random",
		About: "class 0 random masked keys already sorted, class 1 random masked keys",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			Ls := make([][P]uint32, 1000)
			return dudectInputs(rng, Ls, dudectList,
				func(L *[P]uint32) { slices.Sort(L[:]) },
				func(i int) { sortShort(&Ls[i]) })
		},
	},
	{
		Name:  "sortShort/fixed-vs-random",
		About: "class 0 one fixed random masked list, class 1 fresh random masked lists",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			var fixed [P]uint32
			dudectList(rng, &fixed)
			Ls := make([][P]uint32, 1000)
			return dudectInputs(rng, Ls, dudectList, dudectFixed(fixed), func(i int) { sortShort(&Ls[i]) })
		},
	},
	{
		Name:  "r3Recip/fixed-vs-random",
		About: "class 0 one fixed invertible small g, class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			gs := make([][P]int8, 1000)
			var v [P]int8
			return dudectInputs(rng, gs, dudectSmall, dudectFixed(dudectInvertibleSmall(rng)),
				func(i int) { dudectSink += int64(r3Recip(&v, &gs[i])) })
		},
	},
	{
		Name:  "recipRq/fixed-vs-random",
		About: "1/(3f) as in key generation; class 0 one fixed Short f, class 1 fresh random Short f",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			short := func(rng *rand.Rand, f *[P]int16) {
				var s [P]int8
				dudectShort(rng, &s)
				for j := range s {
					f[j] = int16(s[j])
				}
			}
			var fixed [P]int16
			short(rng, &fixed)
			fs := make([][P]int16, 1000)
			var out [P]int16
			scale := recipQ(3)
			return dudectInputs(rng, fs, short, dudectFixed(fixed),
				func(i int) { dudectSink += int64(recipRq(&out, &fs[i], scale)) })
		},
	},
	{
		Name:  "GenerateKey/fixed-vs-random",
		About: "class 0 one fixed seed (2*3044+191 bytes, g invertible), class 1 fresh random seeds",
		Setup: func(t *testing.T) dudect.Target {
			return dudectKeyGen(1, 1000, func(r *bytes.Reader) { dudectSinkKey, _ = GenerateKey(r) })
		},
	},
	{
		Name:  "GenerateKeys/fixed-vs-random",
		About: "a batch of two keys (batch.go's own kernels: r3Invertible, the paired products, the split spectra); class 0 one fixed seed per key, class 1 fresh random seeds",
		Setup: func(t *testing.T) dudect.Target {
			return dudectKeyGen(2, 500, func(r *bytes.Reader) { dudectSinkKeys, _ = GenerateKeys(r, 2) })
		},
	},
	{
		Name:  "Encapsulate/fixed-vs-random",
		About: "one public key; class 0 one fixed 3044-byte r seed, class 1 fresh random seeds",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			pk := dudectKey(t).PublicKey()
			seed := func(rng *rand.Rand, s *[randomBytes]byte) { dudect.Fill(rng, s[:]) }
			var fixed [randomBytes]byte
			seed(rng, &fixed)
			seeds := make([][randomBytes]byte, 1000)
			readers := make([]bytes.Reader, len(seeds))
			var ct [CiphertextSize]byte
			var k [SharedKeySize]byte
			tg := dudectInputs(rng, seeds, seed, dudectFixed(fixed),
				func(i int) { pk.Encapsulate(&readers[i], &ct, &k) })
			prepare := tg.Prepare
			tg.Prepare = func(i, class int) {
				prepare(i, class)
				readers[i].Reset(seeds[i][:])
			}
			return tg
		},
	},
	{
		Name:  "Decapsulate/fixed-vs-random-key",
		About: "one random ciphertext; class 0 one fixed key, class 1 a random key of 256 (each copied into the slot)",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			keys := make([]*PrivateKey, 256)
			for i := range keys {
				keys[i] = dudectKey(t)
			}
			var ct [CiphertextSize]byte
			cryptorand.Read(ct[:])
			slots := make([]PrivateKey, 256)
			var k [SharedKeySize]byte
			return dudectInputs(rng, slots,
				func(rng *rand.Rand, sk *PrivateKey) { *sk = *keys[1+rng.IntN(len(keys)-1)] },
				dudectFixed(*keys[0]),
				func(i int) { slots[i].Decapsulate(&ct, &k) })
		},
	},
	{
		Name:  "r3Invertible/fixed-vs-random",
		About: "class 0 one fixed invertible small g, class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			gs := make([][P]int8, 1000)
			return dudectInputs(rng, gs, dudectSmall, dudectFixed(dudectInvertibleSmall(rng)),
				func(i int) { dudectSink += int64(r3Invertible(&gs[i])) })
		},
	},
	{
		Name:  "r3Invertible/divisible-vs-random",
		About: "class 0 random multiples of a random factor of x^p-x-1 mod 3 (not invertible), class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			factors := [][]int8{factor19, factor60, r3Tables().factor682}
			gs := make([][P]int8, 1000)
			return dudectInputs(rng, gs, dudectSmall,
				func(g *[P]int8) {
					f := factors[rng.IntN(len(factors))]
					s := make([]int8, P-len(f)+1)
					for j := range s {
						s[j] = int8(rng.Uint32N(3)) - 1
					}
					copy(g[:], mul3poly(f, s))
				},
				func(i int) { dudectSink += int64(r3Invertible(&gs[i])) })
		},
	},
	{
		Name:  "mulRq/fixed-vs-random",
		About: "h*r as in encryption (transform of r, product with a fixed public spectrum); class 0 one fixed Short r, class 1 fresh random Short r",
		Setup: func(t *testing.T) dudect.Target {
			var fixed [P]int8
			dudectShort(dudect.NewRNG(), &fixed)
			return dudectMulRq(t, fixed)
		},
	},
	{
		Name:  "mulSplit/fixed-vs-random",
		About: "the batch's paired products tq*f + 2^24 t3*c in one inverse transform, with the exact split into R/q and R/3; class 0 one fixed tq, f, t3 and c, class 1 fresh random ones",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			type input struct {
				a       [P]int16
				f, t, c [P]int8
			}
			draw := func(rng *rand.Rand, in *input) {
				dudectRq(rng, &in.a)
				dudectSmall(rng, &in.f)
				dudectSmall(rng, &in.t)
				dudectSmall(rng, &in.c)
			}
			var fixed input
			draw(rng, &fixed)
			ins := make([]input, 500)
			var sa, sf, st, sc, x spectrum
			var rq [P]int16
			var r3 [P]int8
			return dudectInputs(rng, ins, draw, dudectFixed(fixed), func(i int) {
				in := &ins[i]
				sa.transformRq(&in.a)
				sf.transformSmall(&in.f)
				st.transformSmall(&in.t)
				sc.transformSmall(&in.c)
				for j := range sc {
					sc[j] *= 1 << splitShift
				}
				mulSplit(&rq, &r3, 3, &x, &sa, &sf, &st, &sc)
				dudectSink += int64(rq[0]) + int64(r3[0])
			})
		},
	},
	{
		Name:  "mulRq/zero-vs-random",
		About: "as mulRq/fixed-vs-random with class 0 the zero polynomial (all-zero floating-point data)",
		Setup: func(t *testing.T) dudect.Target {
			return dudectMulRq(t, [P]int8{})
		},
	},
}

// TestDudect runs the timing check on every target in turn (select some
// with -run 'TestDudect/NAME') and logs a Markdown table of the results.
func TestDudect(t *testing.T) { dudect.RunCases(t, dudectCases) }

// TestDudectCount runs one target on inputs of one class without timing,
// for counting instructions with a noise-free tool such as valgrind's
// callgrind (dudect.CountCases): -dudect.count NAME:CLASS:K prepares
// K inputs of class CLASS for the target NAME and runs each through
// dudectCountOne, e.g.
//
//	go test -c -o core.test ./sntrup761/internal/core
//	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --toggle-collect='*dudectCountOne*' \
//	  ./core.test -test.run 'TestDudectCount$' -dudect.count r3Recip/fixed-vs-random:1:20
//
// Equal instruction counts for the two classes (with the same K) mean
// that the instruction stream does not depend on the class. Only an
// operation that takes over 10 ms under the tool (recipRq, GenerateKey
// under callgrind) can be preempted by the scheduler inside the counted
// region (see dudect.CountCases); compare the counts of such functions
// with their calls of runtime.morestack in mind.
func TestDudectCount(t *testing.T) { dudect.CountCases(t, dudectCases, dudectCountOne) }

// dudectCountOne runs slot i of tg; callgrind counts only inside it. (No
// target here has a Load step, which would be counted too.)
//
//go:noinline
func dudectCountOne(tg dudect.Target, i int) {
	tg.Run(i)
}
