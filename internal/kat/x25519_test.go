package kat

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"slices"
	"testing"

	cx25519 "github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// The SSH methods use circl's dh/x25519 (the faster backend, see
// BenchmarkX25519); crypto/ecdh is the oracle. Both must give the RFC 7748
// and Wycheproof results, and both must flag every all-zero result.

func ecdhX25519(scalar, point []byte) ([]byte, error) {
	priv, err := ecdh.X25519().NewPrivateKey(scalar)
	if err != nil {
		return nil, err
	}
	pub, err := ecdh.X25519().NewPublicKey(point)
	if err != nil {
		return nil, err
	}
	return priv.ECDH(pub)
}

func ecdhPublic(t testing.TB, scalar []byte) []byte {
	priv, err := ecdh.X25519().NewPrivateKey(scalar)
	if err != nil {
		t.Fatal(err)
	}
	return priv.PublicKey().Bytes()
}

func TestX25519RFC7748(t *testing.T) {
	needX25519Oracle(t)
	var v RFC7748X25519
	readJSON(t, "rfc7748_x25519.json", &v)
	if len(v.Section52) != 2 {
		t.Fatalf("%d section 5.2 vectors, want 2", len(v.Section52))
	}
	// Section 5.2, iterated 1 and 1000 times, section 6.1; with
	// PQKEX_LONG=1 also 1 000 000 times.
	long := tier.Long(t)
	want := 2 + 2 + 3
	if long {
		want++
	}
	if n := report(t, RunRFC7748X25519(&v, long)); n != want {
		t.Errorf("%d vectors passed, want %d", n, want)
	}

	// The same with crypto/ecdh.
	topBit := 0
	for i, tc := range v.Section52 {
		if tc.U[31]&0x80 != 0 {
			topBit++
		}
		got, err := ecdhX25519(tc.Scalar, tc.U)
		if err != nil || !bytes.Equal(got, tc.Output) {
			t.Errorf("5.2 #%d: crypto/ecdh = %x, %v", i, got, err)
		}
	}
	if topBit != 1 {
		t.Errorf("%d vectors with bit 255 set, want 1", topBit)
	}
	iters := []struct {
		n    int
		want []byte
	}{{1, v.Iterated.After1}, {1000, v.Iterated.After1000}}
	if long {
		iters = append(iters, struct {
			n    int
			want []byte
		}{1000000, v.Iterated.After1000000})
	}
	for _, it := range iters {
		k, u := bytes.Clone(v.Iterated.Start), bytes.Clone(v.Iterated.Start)
		for range it.n {
			r, err := ecdhX25519(k, u)
			if err != nil {
				t.Fatal(err)
			}
			k, u = r, k
		}
		if !bytes.Equal(k, it.want) {
			t.Errorf("crypto/ecdh after %d iterations = %x, want %x", it.n, k, it.want)
		}
	}
	s := v.Section61
	for _, b := range []struct {
		name      string
		priv, pub []byte
	}{{"alice", s.AlicePrivate, s.AlicePublic}, {"bob", s.BobPrivate, s.BobPublic}} {
		if got := ecdhPublic(t, b.priv); !bytes.Equal(got, b.pub) {
			t.Errorf("6.1 %s: crypto/ecdh public key %x", b.name, got)
		}
	}
	for _, p := range [][2][]byte{{s.AlicePrivate, s.BobPublic}, {s.BobPrivate, s.AlicePublic}} {
		if got, err := ecdhX25519(p[0], p[1]); err != nil || !bytes.Equal(got, s.SharedSecret) {
			t.Errorf("6.1: crypto/ecdh shared secret %x, %v", got, err)
		}
	}
	// The constants the ML-KEM runners use as the X25519 half.
	f := classicalFixture(mustPublic("mlkem768x25519-sha256").Method.Curve)
	if !bytes.Equal(f.priv, s.AlicePrivate) || !bytes.Equal(f.pub, s.AlicePublic) ||
		!bytes.Equal(f.peer, s.BobPublic) || !bytes.Equal(f.shared, s.SharedSecret) {
		t.Error("the RFC 7748 section 6.1 constants of classicalFixture differ from the vector file")
	}
}

// TestX25519Wycheproof checks the Wycheproof X25519 file's layout and
// its cases with crypto/ecdh (TestWycheproofDH runs them through the
// methods): 518 cases, 31 all-zero results, 21 public keys with bit 255
// set.
func TestX25519Wycheproof(t *testing.T) {
	needX25519Oracle(t)
	var v wycheproofFile
	readJSON(t, "wycheproof_x25519_test.json", &v)
	if len(v.TestGroups) != 1 || v.TestGroups[0].Curve != "curve25519" || len(v.TestGroups[0].Tests) != 518 {
		t.Fatal("unexpected Wycheproof X25519 file layout")
	}
	zero, topBit := 0, 0
	for _, tc := range v.TestGroups[0].Tests {
		zeroCase := isZero(tc.Shared)
		if zeroCase != slices.Contains(tc.Flags, "ZeroSharedSecret") {
			t.Fatalf("tcId %d: flags and shared secret disagree", tc.TcID)
		}
		if tc.Result != "valid" && tc.Result != "acceptable" {
			t.Fatalf("tcId %d: result %q", tc.TcID, tc.Result)
		}
		if tc.Public[31]&0x80 != 0 {
			topBit++
		}
		got, err := ecdhX25519(tc.Private, tc.Public)
		if zeroCase {
			zero++
			if err == nil {
				t.Errorf("tcId %d (%s): crypto/ecdh accepted an all-zero result", tc.TcID, tc.Comment)
			}
		} else if err != nil || !bytes.Equal(got, tc.Shared) {
			t.Errorf("tcId %d (%s): crypto/ecdh = %x, %v", tc.TcID, tc.Comment, got, err)
		}
	}
	if zero != 31 || topBit != 21 {
		t.Errorf("%d all-zero cases, %d with bit 255 set, want 31 and 21", zero, topBit)
	}
}

// TestX25519Differential compares the backends on random scalars and
// points, including points with bit 255 set and non-canonical values.
func TestX25519Differential(t *testing.T) {
	needX25519Oracle(t)
	n := 2000
	if testing.Short() {
		n = 100
	}
	var s, p [32]byte
	for i := range n {
		rand.Read(s[:])
		rand.Read(p[:])
		switch i % 4 {
		case 1:
			p[31] |= 0x80
		case 2:
			p[31] = 0x7f // near or above p
			p[0] |= 0xe0
		}
		got, low := circlX25519(s[:], p[:])
		want, err := ecdhX25519(s[:], p[:])
		if low != (err != nil) || !bytes.Equal(got, want) && err == nil {
			t.Fatalf("scalar %x point %x: circl %x (low %v), crypto/ecdh %x (%v)", s, p, got, low, want, err)
		}
		if !bytes.Equal(circlPublic(s[:]), ecdhPublic(t, s[:])) {
			t.Fatalf("scalar %x: public keys differ", s)
		}
	}
}

// BenchmarkX25519 measures the two X25519 backends in one run:
//
//	go test ./vectors -run '^$' -bench X25519 -count 6 > x.txt
//	benchstat -col /backend x.txt
//
// keygen is a fixed-base multiplication (crypto/ecdh's NewPrivateKey
// computes the public key with its generic ladder); dh is one X25519 with
// a peer's public key, including parsing it.
func BenchmarkX25519(b *testing.B) {
	var priv, peer [32]byte
	rand.Read(priv[:])
	rand.Read(peer[:])
	pub := ecdhPublic(b, peer[:])
	var sink byte
	b.Run("op=keygen/backend=ecdh", func(b *testing.B) {
		for b.Loop() {
			k, err := ecdh.X25519().NewPrivateKey(priv[:])
			if err != nil {
				b.Fatal(err)
			}
			sink ^= k.PublicKey().Bytes()[0]
		}
	})
	b.Run("op=keygen/backend=circl", func(b *testing.B) {
		var s, p cx25519.Key
		copy(s[:], priv[:])
		for b.Loop() {
			cx25519.KeyGen(&p, &s)
			sink ^= p[0]
		}
	})
	k, err := ecdh.X25519().NewPrivateKey(priv[:])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("op=dh/backend=ecdh", func(b *testing.B) {
		for b.Loop() {
			p, err := ecdh.X25519().NewPublicKey(pub)
			if err != nil {
				b.Fatal(err)
			}
			out, err := k.ECDH(p)
			if err != nil {
				b.Fatal(err)
			}
			sink ^= out[0]
		}
	})
	b.Run("op=dh/backend=circl", func(b *testing.B) {
		var s, p, out cx25519.Key
		copy(s[:], priv[:])
		for b.Loop() {
			copy(p[:], pub)
			cx25519.Shared(&out, &s, &p)
			sink ^= out[0]
		}
	})
	_ = sink
}
