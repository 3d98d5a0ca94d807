package conformance

// Cheaper searches for check's own classical keys with a wanted property
// (zeros.go): a shared secret with a peer's key Q that starts with zero
// bytes, or a public key that ends in one (the wrong-length cases).
// Drawing a new key pair for each try costs one or two scalar
// multiplications; walking the private key instead, d, d+1, d+2, ...
// (X25519: c, c+8, c+16, ..., to stay a clamped scalar), each try's point
// is the last one plus the base (Q, or the generator): one point addition
// in affine coordinates, one field inversion with math/big, an order of
// magnitude cheaper than the multiplications of a fresh pair. Only the key
// found is made into an ecdh.PrivateKey, and what was wanted of it is
// computed again by crypto/ecdh and compared with the walk's: a walk that
// went wrong (a formula, a point the formulas do not cover) is caught
// there, and the caller falls back to drawing.
//
// Everything here is check's own throwaway key of one exchange; math/big
// is not constant time, and the walk branches on the secret (its leading
// zero bytes), which is what it is for.

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
)

// errWalk ends a walk that met a case its formulas do not cover.
var errWalk = errors.New("the walk met a point its formulas do not cover")

// nistWalk walks R_i = R_0 + i·B (i = 1 ... tries) on ec, from R_0 =
// (x, y) and B = (xb, yb), until found, given R_i's coordinates as
// fixed-length big-endian bytes, says to stop; it returns that i.
func nistWalk(ec elliptic.Curve, x, y, xb, yb *big.Int, tries int, found func(xs, ys []byte) bool) (int, error) {
	params := ec.Params()
	p, size := params.P, (params.BitSize+7)/8
	xs, ys := make([]byte, size), make([]byte, size)
	defer clear(xs)
	defer clear(ys)
	for i := 1; i <= tries; i++ {
		// R += B (SEC 1 §2.2.1): λ = (yb - y)/(xb - x),
		// x' = λ² - x - xb, y' = λ(x - x') - y.
		den := new(big.Int).Sub(xb, x)
		if den.Mod(den, p).Sign() == 0 {
			return 0, errWalk // R = ±B
		}
		den.ModInverse(den, p)
		lambda := new(big.Int).Sub(yb, y)
		lambda.Mul(lambda, den).Mod(lambda, p)
		x2 := new(big.Int).Mul(lambda, lambda)
		x2.Sub(x2, x).Sub(x2, xb).Mod(x2, p)
		y2 := new(big.Int).Sub(x, x2)
		y2.Mul(y2, lambda).Sub(y2, y).Mod(y2, p)
		x, y = x2, y2
		if found(x.FillBytes(xs), y.FillBytes(ys)) {
			return i, nil
		}
	}
	return 0, errCannotRun
}

// nistPoint is an uncompressed point's coordinates.
func nistPoint(b []byte, size int) (x, y *big.Int, ok bool) {
	if len(b) != 1+2*size || b[0] != 4 {
		return nil, nil, false
	}
	return new(big.Int).SetBytes(b[1 : 1+size]), new(big.Int).SetBytes(b[1+size:]), true
}

// walkNISTSecret searches P-256 or P-384 (ec) private keys d0, d0+1, ...
// for one whose shared secret with peer, the x-coordinate of d·Q, starts
// with zeros zero bytes, trying at most tries.
func walkNISTSecret(curve ecdh.Curve, ec elliptic.Curve, peer *ecdh.PublicKey, zeros, tries int) (*ecdh.PrivateKey, []byte, error) {
	params := ec.Params()
	size := (params.BitSize + 7) / 8
	xq, yq, ok := nistPoint(peer.Bytes(), size)
	if !ok {
		return nil, nil, errWalk
	}
	start, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	x0, err := start.ECDH(peer)
	if err != nil {
		return nil, nil, err
	}
	// R_0 = ±d0·Q: the secret is its x, and y is either root; the sign
	// is settled once a key is found (the secret is the same for both).
	x, y := elliptic.UnmarshalCompressed(ec, append([]byte{2}, x0...))
	clear(x0)
	if x == nil {
		return nil, nil, errWalk
	}
	want := make([]byte, size)
	defer clear(want)
	i, err := nistWalk(ec, x, y, xq, yq, tries, func(xs, _ []byte) bool {
		if leadingZeros(xs) < zeros {
			return false
		}
		copy(want, xs)
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	d0 := new(big.Int).SetBytes(start.Bytes())
	defer d0.SetInt64(0)
	for _, sign := range []int64{1, -1} {
		s := new(big.Int).Mul(d0, big.NewInt(sign))
		s.Add(s, big.NewInt(int64(i))).Mod(s, params.N)
		if s.Sign() == 0 {
			continue
		}
		priv, err := curve.NewPrivateKey(s.FillBytes(make([]byte, size)))
		if err != nil {
			continue
		}
		kCL, err := priv.ECDH(peer)
		if err == nil && slices.Equal(kCL, want) {
			return priv, kCL, nil
		}
		clear(kCL)
	}
	return nil, nil, errWalk
}

// walkNISTPublic searches P-256 or P-384 (ec) private keys d0, d0+1, ...
// for one whose public key, encoded uncompressed, want accepts.
func walkNISTPublic(curve ecdh.Curve, ec elliptic.Curve, want func(pub []byte) bool, tries int) (*ecdh.PrivateKey, error) {
	params := ec.Params()
	size := (params.BitSize + 7) / 8
	start, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	x, y, ok := nistPoint(start.PublicKey().Bytes(), size)
	if !ok {
		return nil, errWalk
	}
	pub := make([]byte, 1+2*size)
	pub[0] = 4
	i, err := nistWalk(ec, x, y, params.Gx, params.Gy, tries, func(xs, ys []byte) bool {
		copy(pub[1:], xs)
		copy(pub[1+size:], ys)
		return want(pub)
	})
	if err != nil {
		return nil, err
	}
	s := new(big.Int).SetBytes(start.Bytes())
	s.Add(s, big.NewInt(int64(i))).Mod(s, params.N)
	priv, err := curve.NewPrivateKey(s.FillBytes(make([]byte, size)))
	s.SetInt64(0)
	if err != nil || !slices.Equal(priv.PublicKey().Bytes(), pub) {
		return nil, errWalk
	}
	return priv, nil
}

// x25519A is Curve25519's A (RFC 7748 §4.1); x25519P its field prime.
var (
	x25519A = big.NewInt(486662)
	x25519P = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
)

// uOf is an X25519 public key or output as a field element (RFC 7748 §5:
// little-endian, the top bit ignored, reduced).
func uOf(b []byte) *big.Int {
	u := new(big.Int).SetBytes(reversed(b))
	u.SetBit(u, 255, 0)
	return u.Mod(u, x25519P)
}

// x25519Walk walks scalars c0, c0+8, ... (clamped, RFC 7748 §5, so that
// X25519 uses each as it is) on u-coordinates only, from u((c0-8)·B)
// and u(c0·B): u(R+T) follows from u(R), u(T) and u(R-T) (the Montgomery
// ladder's differential addition, u(R+T)·u(R-T)·(u(R) - u(T))² =
// (u(R)·u(T) - 1)²), with T = 8B, whose u three doublings of u(B) give
// (u(2P) = (u² - 1)² / (4u(u² + Au + 1))). found is given each u as 32
// little-endian bytes; the scalar it stopped at is returned.
func x25519Walk(uB, prev, cur, c0 *big.Int, tries int, found func(us []byte) bool) (*big.Int, error) {
	p := x25519P
	inv := func(v *big.Int) (*big.Int, bool) {
		if v.Mod(v, p).Sign() == 0 {
			return nil, false
		}
		return v.ModInverse(v, p), true
	}
	u := new(big.Int).Set(uB)
	for range 3 {
		num := new(big.Int).Mul(u, u)
		num.Sub(num, big.NewInt(1))
		num.Mul(num, num)
		den := new(big.Int).Mul(u, u)
		den.Add(den, new(big.Int).Mul(x25519A, u)).Add(den, big.NewInt(1)).Mul(den, u).Lsh(den, 2)
		d, ok := inv(den)
		if !ok {
			return nil, errWalk // a point of small order
		}
		u = num.Mul(num, d).Mod(num, p)
	}
	uT, c := u, new(big.Int).Set(c0)
	us := make([]byte, 32)
	defer clear(us)
	for range tries {
		num := new(big.Int).Mul(cur, uT)
		num.Sub(num, big.NewInt(1))
		num.Mul(num, num)
		den := new(big.Int).Sub(cur, uT)
		den.Mul(den, den).Mul(den, prev)
		d, ok := inv(den)
		if !ok {
			return nil, errWalk
		}
		prev, cur = cur, num.Mul(num, d).Mod(num, p)
		c.Add(c, big.NewInt(8))
		if c.Bit(255) == 1 {
			return nil, errWalk // past the clamped scalars
		}
		leInto(us, cur)
		if found(us) {
			return c, nil
		}
	}
	return nil, errCannotRun
}

// x25519Start is a random clamped scalar c0 with c0-8 clamped too and
// room above it for a walk (bit 253 clear).
func x25519Start() (*big.Int, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	c := new(big.Int).SetBytes(reversed(b))
	clear(b)
	c.SetBit(c, 255, 0).SetBit(c, 254, 1).SetBit(c, 253, 0)
	return c.Rsh(c, 3).Lsh(c, 3).Add(c, big.NewInt(16)), nil
}

// x25519At is X25519(c, peer) as a field element.
func x25519At(c *big.Int, peer *ecdh.PublicKey) (*big.Int, error) {
	priv, err := ecdh.X25519().NewPrivateKey(leBytes(c))
	if err != nil {
		return nil, err
	}
	s, err := priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	defer clear(s)
	return uOf(s), nil
}

// walkX25519Secret searches X25519 scalars for one whose shared secret
// with peer starts with zeros zero bytes, trying at most tries.
func walkX25519Secret(peer *ecdh.PublicKey, zeros, tries int) (*ecdh.PrivateKey, []byte, error) {
	c0, err := x25519Start()
	if err != nil {
		return nil, nil, err
	}
	prev, err := x25519At(new(big.Int).Sub(c0, big.NewInt(8)), peer)
	if err != nil {
		return nil, nil, err
	}
	cur, err := x25519At(c0, peer)
	if err != nil {
		return nil, nil, err
	}
	want := make([]byte, 32)
	defer clear(want)
	c, err := x25519Walk(uOf(peer.Bytes()), prev, cur, c0, tries, func(us []byte) bool {
		if leadingZeros(us) < zeros {
			return false
		}
		copy(want, us)
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	priv, err := ecdh.X25519().NewPrivateKey(leBytes(c))
	if err != nil {
		return nil, nil, err
	}
	kCL, err := priv.ECDH(peer)
	if err != nil || !slices.Equal(kCL, want) {
		clear(kCL)
		return nil, nil, errWalk
	}
	return priv, kCL, nil
}

// walkX25519Public searches X25519 scalars for one whose public key
// want accepts.
func walkX25519Public(want func(pub []byte) bool, tries int) (*ecdh.PrivateKey, error) {
	base, err := ecdh.X25519().NewPublicKey(leBytes(big.NewInt(9)))
	if err != nil {
		return nil, err
	}
	c0, err := x25519Start()
	if err != nil {
		return nil, err
	}
	prev, err := x25519At(new(big.Int).Sub(c0, big.NewInt(8)), base)
	if err != nil {
		return nil, err
	}
	cur, err := x25519At(c0, base)
	if err != nil {
		return nil, err
	}
	c, err := x25519Walk(big.NewInt(9), prev, cur, c0, tries, want)
	if err != nil {
		return nil, err
	}
	priv, err := ecdh.X25519().NewPrivateKey(leBytes(c))
	if err != nil || !want(priv.PublicKey().Bytes()) {
		return nil, errWalk
	}
	return priv, nil
}

// reversed is b in the other byte order.
func reversed(b []byte) []byte {
	r := slices.Clone(b)
	slices.Reverse(r)
	return r
}

// leBytes is v as 32 little-endian bytes.
func leBytes(v *big.Int) []byte {
	b := make([]byte, 32)
	leInto(b, v)
	return b
}

// leInto writes v into b as little-endian bytes.
func leInto(b []byte, v *big.Int) {
	v.FillBytes(b)
	slices.Reverse(b)
}
