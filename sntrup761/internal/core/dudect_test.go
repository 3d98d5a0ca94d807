//go:build dudect

// Constant-time evidence for the sntrup761 core: a dudect-style timing
// check (package internal/testkit/dudect) of every operation on secret data. It
// is not part of the normal test run; run it with
//
//	go test -tags dudect -run '^TestDudect$' -timeout 0 -v ./sntrup761/internal/core
//
// PQKEX_DUDECT_N sets the measurements per test (default 50000: about four
// minutes in all on a loaded two-core machine). The usual bar is 1e6
// measurements per test; PQKEX_DUDECT_N=1e6 takes about 50 minutes for all
// targets there (GenerateKey 22, recipRq 15, r3Recip 4.5, the rest 1-2
// each), so select targets with -run, e.g. -run '^TestDudect$/sortShort'.
// PQKEX_DUDECT_T sets the |t| that fails a test (default 4.5), and
// PQKEX_DUDECT_DUMP, if set, names a directory that receives every
// measurement (one "class<TAB>ns" line each, a file per target).
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
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
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
	return dudect.Target{
		Slots: slots,
		Prepare: func(i, class int) {
			dudect.Fill(rng, seeds[i])
			if class == 0 {
				copy(seeds[i], fixed)
			}
			readers[i].Reset(seeds[i])
		},
		Run: func(i int) { gen(&readers[i]) },
	}
}

// dudectCiphertextPool returns a fresh key and 1024 valid ciphertexts for it.
func dudectCiphertextPool(t *testing.T) (*PrivateKey, [][CiphertextSize]byte) {
	sk, err := GenerateKey(cryptorand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pool := make([][CiphertextSize]byte, 1024)
	for i := range pool {
		var k [SharedKeySize]byte
		sk.PublicKey().Encapsulate(cryptorand.Reader, &pool[i], &k)
	}
	return sk, pool
}

var (
	dudectSinkKey  *PrivateKey
	dudectSinkKeys []*PrivateKey
	dudectSink     int64
)

var dudectCases = []dudect.Case{
	{
		Name:  "Decapsulate/valid-vs-random-ct",
		About: "one key; class 0 a valid ciphertext (pool of 1024), class 1 random bytes (implicit rejection)",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			sk, pool := dudectCiphertextPool(t)
			cts := make([][CiphertextSize]byte, 1000)
			var k [SharedKeySize]byte
			return dudect.Target{
				Slots: len(cts),
				Prepare: func(i, class int) {
					if class == 0 {
						cts[i] = pool[rng.IntN(len(pool))]
					} else {
						dudect.Fill(rng, cts[i][:])
					}
				},
				Run: func(i int) { sk.Decapsulate(&cts[i], &k) },
			}
		},
	},
	{
		Name:  "Decapsulate/valid-vs-tampered-ct",
		About: "one key; class 0 a valid ciphertext, class 1 a valid one with one random bit flipped",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			sk, pool := dudectCiphertextPool(t)
			cts := make([][CiphertextSize]byte, 1000)
			var k [SharedKeySize]byte
			return dudect.Target{
				Slots: len(cts),
				Prepare: func(i, class int) {
					cts[i] = pool[rng.IntN(len(pool))]
					bit := rng.IntN(8 * CiphertextSize)
					cts[i][bit/8] ^= byte(class << (bit % 8))
				},
				Run: func(i int) { sk.Decapsulate(&cts[i], &k) },
			}
		},
	},
	{
		Name:  "sortShort/sorted-vs-random",
		About: "class 0 random masked keys already sorted, class 1 random masked keys",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			Ls := make([][P]uint32, 1000)
			return dudect.Target{
				Slots: len(Ls),
				Prepare: func(i, class int) {
					// Both classes reach the slot the same way (one
					// copy), so that how it was written is not a class
					// difference the timing could see.
					var L [P]uint32
					dudectList(rng, &L)
					if class == 0 {
						slices.Sort(L[:])
					}
					Ls[i] = L
				},
				Run: func(i int) { sortShort(&Ls[i]) },
			}
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
			return dudect.Target{
				Slots: len(Ls),
				Prepare: func(i, class int) {
					// As above: the same writes to the slot in both
					// classes (writing a class-1 list word by word and a
					// class-0 one by a block copy showed up at |t| > 10
					// in the sort's 2.6 µs on the assembly path; with
					// the same writes the classes agree).
					var L [P]uint32
					dudectList(rng, &L)
					if class == 0 {
						L = fixed
					}
					Ls[i] = L
				},
				Run: func(i int) { sortShort(&Ls[i]) },
			}
		},
	},
	{
		Name:  "r3Recip/fixed-vs-random",
		About: "class 0 one fixed invertible small g, class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			fixed := dudectInvertibleSmall(rng)
			gs := make([][P]int8, 1000)
			var v [P]int8
			return dudect.Target{
				Slots: len(gs),
				Prepare: func(i, class int) {
					dudectSmall(rng, &gs[i])
					if class == 0 {
						gs[i] = fixed
					}
				},
				Run: func(i int) { dudectSink += int64(r3Recip(&v, &gs[i])) },
			}
		},
	},
	{
		Name:  "recipRq/fixed-vs-random",
		About: "1/(3f) as in key generation; class 0 one fixed Short f, class 1 fresh random Short f",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			var fixedShort [P]int8
			dudectShort(rng, &fixedShort)
			fs := make([][P]int16, 1000)
			var out [P]int16
			scale := recipQ(3)
			return dudect.Target{
				Slots: len(fs),
				Prepare: func(i, class int) {
					var f [P]int8
					dudectShort(rng, &f)
					if class == 0 {
						f = fixedShort
					}
					for j := range f {
						fs[i][j] = int16(f[j])
					}
				},
				Run: func(i int) { dudectSink += int64(recipRq(&out, &fs[i], scale)) },
			}
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
			sk, err := GenerateKey(cryptorand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			pk := sk.PublicKey()
			var fixed [randomBytes]byte
			dudect.Fill(rng, fixed[:])
			seeds := make([][randomBytes]byte, 1000)
			readers := make([]bytes.Reader, len(seeds))
			var ct [CiphertextSize]byte
			var k [SharedKeySize]byte
			return dudect.Target{
				Slots: len(seeds),
				Prepare: func(i, class int) {
					// The same writes to the slot in both classes (see
					// sortShort/fixed-vs-random).
					var seed [randomBytes]byte
					dudect.Fill(rng, seed[:])
					if class == 0 {
						seed = fixed
					}
					seeds[i] = seed
					readers[i].Reset(seeds[i][:])
				},
				Run: func(i int) { pk.Encapsulate(&readers[i], &ct, &k) },
			}
		},
	},
	{
		Name:  "Decapsulate/fixed-vs-random-key",
		About: "one random ciphertext; class 0 one fixed key, class 1 a random key of 256 (each copied into the slot)",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			keys := make([]*PrivateKey, 256)
			for i := range keys {
				var err error
				if keys[i], err = GenerateKey(cryptorand.Reader); err != nil {
					t.Fatal(err)
				}
			}
			var ct [CiphertextSize]byte
			cryptorand.Read(ct[:])
			slots := make([]PrivateKey, 256)
			var k [SharedKeySize]byte
			return dudect.Target{
				Slots: len(slots),
				Prepare: func(i, class int) {
					j := 1 + rng.IntN(len(keys)-1)
					if class == 0 {
						j = 0
					}
					slots[i] = *keys[j]
				},
				Run: func(i int) { slots[i].Decapsulate(&ct, &k) },
			}
		},
	},
	{
		Name:  "r3Invertible/fixed-vs-random",
		About: "class 0 one fixed invertible small g, class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			fixed := dudectInvertibleSmall(rng)
			gs := make([][P]int8, 1000)
			return dudect.Target{
				Slots: len(gs),
				Prepare: func(i, class int) {
					dudectSmall(rng, &gs[i])
					if class == 0 {
						gs[i] = fixed
					}
				},
				Run: func(i int) { dudectSink += int64(r3Invertible(&gs[i])) },
			}
		},
	},
	{
		Name:  "r3Invertible/divisible-vs-random",
		About: "class 0 random multiples of a random factor of x^p-x-1 mod 3 (not invertible), class 1 fresh random small g",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			factors := [][]int8{factor19, factor60, factor682}
			gs := make([][P]int8, 1000)
			return dudect.Target{
				Slots: len(gs),
				Prepare: func(i, class int) {
					if class == 1 {
						dudectSmall(rng, &gs[i])
						return
					}
					f := factors[rng.IntN(len(factors))]
					s := make([]int8, P-len(f)+1)
					for j := range s {
						s[j] = int8(rng.Uint32N(3)) - 1
					}
					copy(gs[i][:], mul3poly(f, s))
				},
				Run: func(i int) { dudectSink += int64(r3Invertible(&gs[i])) },
			}
		},
	},
	{
		Name:  "mulRq/fixed-vs-random",
		About: "h*r as in encryption (transform of r, product with a fixed public spectrum); class 0 one fixed Short r, class 1 fresh random Short r",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			sk, err := GenerateKey(cryptorand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			sh := &sk.PublicKey().sh
			var fixed [P]int8
			dudectShort(rng, &fixed)
			rs := make([][P]int8, 1000)
			var sr spectrum
			var out [P]int16
			return dudect.Target{
				Slots: len(rs),
				Prepare: func(i, class int) {
					dudectShort(rng, &rs[i])
					if class == 0 {
						rs[i] = fixed
					}
				},
				Run: func(i int) {
					sr.transformSmall(&rs[i])
					mulRq(&out, &sr, &sr, sh)
				},
			}
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
			var fixed input
			dudectRq(rng, &fixed.a)
			dudectSmall(rng, &fixed.f)
			dudectSmall(rng, &fixed.t)
			dudectSmall(rng, &fixed.c)
			ins := make([]input, 500)
			var sa, sf, st, sc, x spectrum
			var rq [P]int16
			var r3 [P]int8
			return dudect.Target{
				Slots: len(ins),
				Prepare: func(i, class int) {
					// The same writes to the slot in both classes (see
					// sortShort/fixed-vs-random).
					var in input
					dudectRq(rng, &in.a)
					dudectSmall(rng, &in.f)
					dudectSmall(rng, &in.t)
					dudectSmall(rng, &in.c)
					if class == 0 {
						in = fixed
					}
					ins[i] = in
				},
				Run: func(i int) {
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
				},
			}
		},
	},
	{
		Name:  "mulRq/zero-vs-random",
		About: "as mulRq/fixed-vs-random with class 0 the zero polynomial (all-zero floating-point data)",
		Setup: func(t *testing.T) dudect.Target {
			rng := dudect.NewRNG()
			sk, err := GenerateKey(cryptorand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			sh := &sk.PublicKey().sh
			rs := make([][P]int8, 1000)
			var sr spectrum
			var out [P]int16
			return dudect.Target{
				Slots: len(rs),
				Prepare: func(i, class int) {
					dudectShort(rng, &rs[i])
					if class == 0 {
						clear(rs[i][:])
					}
				},
				Run: func(i int) {
					sr.transformSmall(&rs[i])
					mulRq(&out, &sr, &sr, sh)
				},
			}
		},
	},
}

// TestDudect runs the timing check on every target in turn (select some
// with -run 'TestDudect/NAME') and logs a Markdown table of the results.
func TestDudect(t *testing.T) { dudect.RunCases(t, dudectCases) }

// TestDudectCount runs one target on inputs of one class without timing,
// for counting instructions with a noise-free tool such as valgrind's
// callgrind: PQKEX_DUDECT_COUNT=NAME:CLASS:K prepares K inputs of class
// CLASS for the target NAME and runs each through dudectCountOne, e.g.
//
//	go test -tags dudect -c -o core.test ./sntrup761/internal/core
//	PQKEX_DUDECT_COUNT=r3Recip/fixed-vs-random:1:20 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 \
//	  valgrind --tool=callgrind --toggle-collect='*dudectCountOne*' ./core.test -test.run 'TestDudectCount$'
//
// Equal instruction counts for the two classes (with the same K) mean
// that the instruction stream does not depend on the class.
//
// Go's scheduler asks a goroutine that has run for 10 ms to yield at its
// next function prologue, which adds a few instructions to the function
// it hits (a retried stack check and a call of runtime.morestack) and
// some to the runtime. Each input therefore runs right after a
// runtime.Gosched, outside the counted region, so only an operation that
// takes over 10 ms under the tool (recipRq, GenerateKey under callgrind)
// can be preempted; compare the counts of such functions with their calls
// of runtime.morestack in mind.
func TestDudectCount(t *testing.T) {
	spec := os.Getenv("PQKEX_DUDECT_COUNT")
	if spec == "" {
		t.Skip("PQKEX_DUDECT_COUNT not set")
	}
	i := strings.LastIndexByte(spec, ':')
	j := strings.LastIndexByte(spec[:max(i, 0)], ':')
	if j < 0 {
		t.Fatalf("PQKEX_DUDECT_COUNT=%q: want NAME:CLASS:K", spec)
	}
	name := spec[:j]
	class, err1 := strconv.Atoi(spec[j+1 : i])
	k, err2 := strconv.Atoi(spec[i+1:])
	if err1 != nil || err2 != nil || class < 0 || class > 1 || k < 1 {
		t.Fatalf("PQKEX_DUDECT_COUNT=%q: want NAME:CLASS:K", spec)
	}
	for _, c := range dudectCases {
		if c.Name != name {
			continue
		}
		tg := c.Setup(t)
		slots := tg.Slots
		if slots <= 0 {
			slots = 1000
		}
		if k >= slots {
			t.Fatalf("K = %d: at most %d for %s", k, slots-1, name)
		}
		for i := range k + 1 {
			tg.Prepare(i, class)
		}
		// With the collector off, a first run outside the counted region
		// grows the goroutine stack for good: a stack copy inside
		// dudectCountOne would confuse callgrind's tracking of it.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		runtime.GC()
		tg.Run(k)
		for i := range k {
			runtime.Gosched()
			dudectCountOne(tg, i)
		}
		t.Logf("%s: ran %d inputs of class %d", name, k, class)
		return
	}
	t.Fatalf("no target %q", name)
}

// dudectCountOne runs slot i of tg; callgrind counts only inside it. (No
// target here has a Load step, which would be counted too.)
//
//go:noinline
func dudectCountOne(tg dudect.Target, i int) {
	tg.Run(i)
}
