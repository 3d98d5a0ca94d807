package core

import (
	"bytes"
	"crypto/rand"
	"io"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/pqkex/pqkex/sntrup761/internal/ref"
)

func TestModulusFactors(t *testing.T) {
	prod := mul3poly(mul3poly(factor19, factor60), r3Tables().factor682)
	want := modulus3()
	if !bytes.Equal(int8Bytes(prod), int8Bytes(want)) {
		t.Fatal("the factors do not multiply to x^p - x - 1 mod 3")
	}
	for _, f := range [][]int8{factor19, factor60, r3Tables().factor682} {
		if f[len(f)-1] != 1 {
			t.Fatal("factor not monic")
		}
	}
}

func int8Bytes(a []int8) []byte {
	b := make([]byte, len(a))
	for i, c := range a {
		b[i] = byte(c)
	}
	return b
}

// TestR3Invertible compares the factor test with the divstep inversion on
// random g and on g built to share each factor.
func TestR3Invertible(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(14, 15))
	var inputs [][P]int8
	inputs = append(inputs, [P]int8{})
	for range 30 {
		inputs = append(inputs, randSmall(rng))
	}
	for _, f := range [][]int8{factor19, factor60, r3Tables().factor682} {
		for range 5 {
			// g = f * s with deg g < p: not invertible
			s := make([]int8, P-len(f)+1)
			for i := range s {
				s[i] = int8(rng.IntN(3)) - 1
			}
			prod := mul3poly(f, s)
			var g [P]int8
			copy(g[:], prod)
			inputs = append(inputs, g)
		}
	}
	for k, g := range inputs {
		var out [P]int8
		want := uint64(0)
		if r3Recip(&out, &g) == 0 {
			want = 1
		}
		if got := r3Invertible(&g); got != want {
			t.Fatalf("input %d: r3Invertible = %d, divsteps say %d", k, got, want)
		}
	}
}

// TestGenerateKeysMatchesSingle checks that a batch gives byte-identical
// keys to successive single key generations from the same stream, including
// a stream whose first g is not invertible.
func TestGenerateKeysMatchesSingle(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		stream := make([]byte, n*(2*randomBytes+smallBytes)+randomBytes)
		rand.Read(stream)
		// first g = 0: every word 0x20000000
		for j := 0; j < randomBytes; j += 4 {
			stream[j], stream[j+1], stream[j+2], stream[j+3] = 0, 0, 0, 0x20
		}
		batch, err := GenerateKeys(bytes.NewReader(stream), n)
		if err != nil {
			t.Fatal(err)
		}
		r := bytes.NewReader(stream)
		for k := range n {
			single, err := GenerateKey(r)
			if err != nil {
				t.Fatal(err)
			}
			if *single.Bytes() != *batch[k].Bytes() {
				t.Fatalf("n=%d key %d: batch differs from single keygen", n, k)
			}
			// and against the reference
			if k == 0 {
				_, wsk, _ := ref.KeyGen(bytes.NewReader(stream))
				if !bytes.Equal(wsk, batch[0].Bytes()[:]) {
					t.Fatal("batch key 0 differs from the reference")
				}
			}
			var ct [CiphertextSize]byte
			var k1, k2 [SharedKeySize]byte
			if err := batch[k].PublicKey().Encapsulate(rand.Reader, &ct, &k1); err != nil {
				t.Fatal(err)
			}
			batch[k].Decapsulate(&ct, &k2)
			if k1 != k2 {
				t.Fatalf("n=%d key %d: round trip failed", n, k)
			}
		}
	}
}

func BenchmarkGenerateKeys32(b *testing.B) {
	for b.Loop() {
		if _, err := GenerateKeys(rand.Reader, 32); err != nil {
			b.Fatal(err)
		}
	}
}

// batchPool is a pool GenerateKeys takes working state from, and how many
// objects one batch of 3 keys takes from it.
type batchPool struct {
	name string
	pool *sync.Pool
	per  int
}

// checkBatchPoolsCleared runs GenerateKeys for 3 keys twice, once to the
// end and once into a read error after its first key, and checks that
// every object the batch took from the pools (watchPools hands out fresh
// ones and keeps them) is all zero once GenerateKeys has returned it:
// slots and batch buffers hold f, g, rho and secret transforms, so they
// must be cleared before they go back. A garbage collection runs before
// the check; it empties the pools but not the objects the test holds.
func checkBatchPoolsCleared(t *testing.T, pools ...batchPool) {
	t.Helper()
	ps := make([]*sync.Pool, len(pools))
	for i, p := range pools {
		ps[i] = p.pool
	}
	for _, cut := range []bool{false, true} {
		stream := make([]byte, 3*(2*randomBytes+smallBytes))
		rand.Read(stream)
		if cut {
			stream = stream[:2*randomBytes+smallBytes+randomBytes/2]
		}
		var err error
		made := watchPools(func() { _, err = GenerateKeys(bytes.NewReader(stream), 3) }, ps...)
		if (err != nil) != cut {
			t.Fatalf("cut=%v: GenerateKeys error %v", cut, err)
		}
		runtime.GC()
		runtime.GC()
		for i, p := range pools {
			if len(made[i]) != p.per {
				t.Errorf("cut=%v: the batch took %d objects from %s, want %d", cut, len(made[i]), p.name, p.per)
			}
			for k, x := range made[i] {
				if dirty := nonZeroFields(x); len(dirty) > 0 {
					t.Errorf("cut=%v: %s object %d returned with %v not cleared", cut, p.name, k, dirty)
				}
			}
		}
	}
}

func TestGenerateKeysClearsSlots(t *testing.T) {
	checkBatchPoolsCleared(t, batchPool{"batchSlotPool", &batchSlotPool, 3})
}

// TestGenerateKeysClearsKeysOnError: a batch whose reader fails in its
// third key returns no key, and the two keys it had begun (each holding
// the transform of its f by then) are overwritten, not left to the
// garbage collector. The reader takes the keys from the batch's slots
// when it fails.
func TestGenerateKeysClearsKeysOnError(t *testing.T) {
	stream := make([]byte, 2*(2*randomBytes+smallBytes)+randomBytes/2)
	rand.Read(stream)
	var slots []*batchSlot
	var begun []*PrivateKey
	var keys []*PrivateKey
	var err error
	watchPools(func() {
		made := batchSlotPool.New // watchPools emptied the pool: every slot comes from New
		defer func() { batchSlotPool.New = made }()
		batchSlotPool.New = func() any {
			s := made().(*batchSlot)
			slots = append(slots, s)
			return s
		}
		fail := readerFunc(func([]byte) (int, error) {
			for _, s := range slots {
				if s.sk != nil {
					begun = append(begun, s.sk)
				}
			}
			return 0, io.ErrClosedPipe
		})
		keys, err = GenerateKeys(io.MultiReader(bytes.NewReader(stream), fail), 3)
	}, &batchSlotPool)
	if err == nil || keys != nil {
		t.Fatalf("GenerateKeys with a failing reader: %d keys, %v", len(keys), err)
	}
	if len(begun) != 2 {
		t.Fatalf("%d keys begun when the reader failed, want 2", len(begun))
	}
	for i, sk := range begun {
		if dirty := nonZeroFields(sk); len(dirty) > 0 {
			t.Errorf("key %d of the failed batch left with %v not cleared", i, dirty)
		}
	}
}

// readerFunc is a reader made of its Read.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
