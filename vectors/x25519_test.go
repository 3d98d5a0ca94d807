package vectors

import (
	"bytes"
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"slices"
	"strings"
	"testing"

	cx25519 "github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/mlkem768x25519/mlkem768x25519test"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519/sntrup761x25519test"
)

// The SSH methods use circl's dh/x25519 (the faster backend, see
// BenchmarkX25519); crypto/ecdh is the oracle. Both must give the RFC 7748
// and Wycheproof results, and both must flag every all-zero result.

// circlX25519 is X25519 as the method packages compute it.
func circlX25519(scalar, point []byte) (out []byte, lowOrder bool) {
	var s, p, o cx25519.Key
	copy(s[:], scalar)
	copy(p[:], point)
	ok := cx25519.Shared(&o, &s, &p)
	return o[:], !ok
}

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

func circlPublic(scalar []byte) []byte {
	var s, p cx25519.Key
	copy(s[:], scalar)
	cx25519.KeyGen(&p, &s)
	return p[:]
}

func ecdhPublic(t testing.TB, scalar []byte) []byte {
	priv, err := ecdh.X25519().NewPrivateKey(scalar)
	if err != nil {
		t.Fatal(err)
	}
	return priv.PublicKey().Bytes()
}

func TestX25519RFC7748(t *testing.T) {
	var v RFC7748X25519
	readJSON(t, "rfc7748_x25519.json", &v)
	if len(v.Section52) != 2 {
		t.Fatalf("%d section 5.2 vectors, want 2", len(v.Section52))
	}
	topBit := 0
	for i, tc := range v.Section52 {
		if tc.U[31]&0x80 != 0 {
			topBit++
		}
		got, low := circlX25519(tc.Scalar, tc.U)
		if low || !bytes.Equal(got, tc.Output) {
			t.Errorf("5.2 #%d: circl = %x (low order %v), want %x", i, got, low, tc.Output)
		}
		got, err := ecdhX25519(tc.Scalar, tc.U)
		if err != nil || !bytes.Equal(got, tc.Output) {
			t.Errorf("5.2 #%d: crypto/ecdh = %x, %v", i, got, err)
		}
	}
	if topBit != 1 {
		t.Errorf("%d vectors with bit 255 set, want 1", topBit)
	}

	iterate := func(n int, f func(k, u []byte) []byte) []byte {
		k, u := bytes.Clone(v.Iterated.Start), bytes.Clone(v.Iterated.Start)
		for range n {
			k, u = f(k, u), k
		}
		return k
	}
	circl := func(k, u []byte) []byte { r, _ := circlX25519(k, u); return r }
	std := func(k, u []byte) []byte {
		r, err := ecdhX25519(k, u)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	iters := []struct {
		n    int
		want []byte
	}{{1, v.Iterated.After1}, {1000, v.Iterated.After1000}}
	if *long {
		iters = append(iters, struct {
			n    int
			want []byte
		}{1000000, v.Iterated.After1000000})
	}
	for _, it := range iters {
		if got := iterate(it.n, circl); !bytes.Equal(got, it.want) {
			t.Errorf("circl after %d iterations = %x, want %x", it.n, got, it.want)
		}
		if got := iterate(it.n, std); !bytes.Equal(got, it.want) {
			t.Errorf("crypto/ecdh after %d iterations = %x, want %x", it.n, got, it.want)
		}
	}

	s := v.Section61
	for _, b := range []struct {
		name      string
		priv, pub []byte
	}{{"alice", s.AlicePrivate, s.AlicePublic}, {"bob", s.BobPrivate, s.BobPublic}} {
		if got := circlPublic(b.priv); !bytes.Equal(got, b.pub) {
			t.Errorf("6.1 %s: circl public key %x", b.name, got)
		}
		if got := ecdhPublic(t, b.priv); !bytes.Equal(got, b.pub) {
			t.Errorf("6.1 %s: crypto/ecdh public key %x", b.name, got)
		}
	}
	for _, p := range [][2][]byte{{s.AlicePrivate, s.BobPublic}, {s.BobPrivate, s.AlicePublic}} {
		if got, low := circlX25519(p[0], p[1]); low || !bytes.Equal(got, s.SharedSecret) {
			t.Errorf("6.1: circl shared secret %x", got)
		}
		if got, err := ecdhX25519(p[0], p[1]); err != nil || !bytes.Equal(got, s.SharedSecret) {
			t.Errorf("6.1: crypto/ecdh shared secret %x, %v", got, err)
		}
	}
}

func readWycheproofXDH(t testing.TB) *WycheproofXDH {
	var v WycheproofXDH
	readJSON(t, "wycheproof_x25519_test.json", &v)
	if len(v.TestGroups) != 1 || v.TestGroups[0].Curve != "curve25519" || len(v.TestGroups[0].Tests) != 518 {
		t.Fatal("unexpected Wycheproof X25519 file layout")
	}
	return &v
}

// TestX25519Wycheproof runs all 518 Wycheproof cases on both backends:
// every non-zero result must match, and every all-zero result (31 cases,
// which SSH must reject) must be flagged by both.
func TestX25519Wycheproof(t *testing.T) {
	v := readWycheproofXDH(t)
	zero, nonCanonical, topBit := 0, 0, 0
	for _, tc := range v.TestGroups[0].Tests {
		zeroCase := isZero(tc.Shared)
		if zeroCase != slices.Contains(tc.Flags, "ZeroSharedSecret") {
			t.Fatalf("tcId %d: flags and shared secret disagree", tc.TcID)
		}
		if tc.Result != "valid" && tc.Result != "acceptable" {
			t.Fatalf("tcId %d: result %q", tc.TcID, tc.Result)
		}
		if slices.Contains(tc.Flags, "NonCanonicalPublic") {
			nonCanonical++
		}
		if tc.Public[31]&0x80 != 0 {
			topBit++
		}
		got, low := circlX25519(tc.Private, tc.Public)
		gotStd, err := ecdhX25519(tc.Private, tc.Public)
		if zeroCase {
			zero++
			if !low || !isZero(got) {
				t.Errorf("tcId %d (%s): circl did not flag the all-zero result", tc.TcID, tc.Comment)
			}
			if err == nil {
				t.Errorf("tcId %d (%s): crypto/ecdh accepted an all-zero result", tc.TcID, tc.Comment)
			}
			continue
		}
		if low || !bytes.Equal(got, tc.Shared) {
			t.Errorf("tcId %d (%s): circl = %x (low order %v), want %x", tc.TcID, tc.Comment, got, low, tc.Shared)
		}
		if err != nil || !bytes.Equal(gotStd, tc.Shared) {
			t.Errorf("tcId %d (%s): crypto/ecdh = %x, %v", tc.TcID, tc.Comment, gotStd, err)
		}
	}
	if zero != 31 {
		t.Errorf("%d all-zero cases, want 31", zero)
	}
	if topBit != 21 {
		t.Errorf("%d public keys with bit 255 set, want 21", topBit)
	}
	t.Logf("518 cases: %d all-zero rejected, %d non-canonical, %d with bit 255 set", zero, nonCanonical, topBit)
}

// TestX25519Differential compares the backends on random scalars and
// points, including points with bit 255 set and non-canonical values.
func TestX25519Differential(t *testing.T) {
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

// TestX25519WycheproofSSH runs every Wycheproof X25519 case through the
// SSH methods themselves, on both sides: the peer's X25519 public key is
// the Wycheproof public value and our X25519 private key the Wycheproof
// private value. All-zero results must be rejected with an error naming
// the peer's X25519 key; all other results must give K computed by the
// oracles (crypto/mlkem and crypto/ecdh's expected value from the file).
func TestX25519WycheproofSSH(t *testing.T) {
	v := readWycheproofXDH(t)
	tests := v.TestGroups[0].Tests

	// Fixed KEM halves.
	var seed [64]byte
	var m [32]byte
	copy(seed[:], "pqkex X25519 Wycheproof: ML-KEM seed for the client")
	copy(m[:], "pqkex X25519 Wycheproof: m")
	dk, err := mlkem.NewDecapsulationKey768(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	ek := dk.EncapsulationKey()
	kPQ, ct, err := mlkemtest.Encapsulate768(ek, m[:])
	if err != nil {
		t.Fatal(err)
	}
	ntruStream := bytes.Repeat([]byte("pqkex sntrup761"), 500)
	ntruDK, err := sntrup761test.GenerateKey(bytes.NewReader(ntruStream))
	if err != nil {
		t.Fatal(err)
	}
	r := ntruStream[:3044]
	ntruSS, ntruCT, err := sntrup761test.Encapsulate(ntruDK.EncapsulationKey(), bytes.NewReader(r))
	if err != nil {
		t.Fatal(err)
	}

	wantK := func(sum func([]byte) []byte, kem, x []byte) []byte {
		d := sum(append(bytes.Clone(kem), x...))
		return append([]byte{0, 0, 0, byte(len(d))}, d...)
	}
	sha256K := func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }
	sha512K := func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }

	type result struct {
		k   []byte
		err error
	}
	check := func(tcID int, who, side string, zeroCase bool, got result, want []byte) {
		t.Helper()
		if zeroCase {
			if got.err == nil {
				t.Errorf("tcId %d: %s accepted an all-zero X25519 result", tcID, side)
			} else if !strings.Contains(got.err.Error(), who+"'s X25519 public key is a low-order point") {
				t.Errorf("tcId %d: %s error %q", tcID, side, got.err)
			}
			return
		}
		if got.err != nil || !bytes.Equal(got.k, want) {
			t.Errorf("tcId %d: %s: K %x, %v; want %x", tcID, side, got.k, got.err, want)
		}
	}

	for _, tc := range tests {
		zeroCase := isZero(tc.Shared)
		ourPub := ecdhPublic(t, tc.Private) // oracle for our public key

		// mlkem768x25519 server: C_INIT = ek || Wycheproof public.
		reply, k, err := mlkem768x25519test.Respond(append(ek.Bytes(), tc.Public...), m[:], tc.Private)
		check(tc.TcID, "client", "mlkem768x25519 server", zeroCase, result{k, err}, wantK(sha256K, kPQ, tc.Shared))
		if err == nil && (!bytes.Equal(reply[:1088], ct) || !bytes.Equal(reply[1088:], ourPub)) {
			t.Errorf("tcId %d: mlkem768x25519 S_REPLY differs from the oracle", tc.TcID)
		}
		// mlkem768x25519 client: S_REPLY = ct || Wycheproof public.
		c, err := mlkem768x25519test.NewClient(seed[:], tc.Private)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Init(), append(ek.Bytes(), ourPub...)) {
			t.Errorf("tcId %d: mlkem768x25519 C_INIT differs from the oracle", tc.TcID)
		}
		k, err = c.Finish(append(bytes.Clone(ct), tc.Public...))
		check(tc.TcID, "server", "mlkem768x25519 client", zeroCase, result{k, err}, wantK(sha256K, kPQ, tc.Shared))

		// sntrup761x25519 server and client.
		reply, k, err = sntrup761x25519test.Respond(append(ntruDK.EncapsulationKey().Bytes(), tc.Public...), r, tc.Private)
		check(tc.TcID, "client", "sntrup761x25519 server", zeroCase, result{k, err}, wantK(sha512K, ntruSS, tc.Shared))
		if err == nil && (!bytes.Equal(reply[:sntrup761.CiphertextSize], ntruCT) || !bytes.Equal(reply[sntrup761.CiphertextSize:], ourPub)) {
			t.Errorf("tcId %d: sntrup761x25519 S_REPLY differs from the oracle", tc.TcID)
		}
		nc, err := sntrup761x25519test.NewClient(ntruDK.Bytes(), tc.Private)
		if err != nil {
			t.Fatal(err)
		}
		k, err = nc.Finish(append(bytes.Clone(ntruCT), tc.Public...))
		check(tc.TcID, "server", "sntrup761x25519 client", zeroCase, result{k, err}, wantK(sha512K, ntruSS, tc.Shared))
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
