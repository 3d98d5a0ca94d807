package conformance

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"slices"
	"testing"
)

// TestWalks: the walks find keys whose secret with a fresh peer key
// starts with a zero byte, and whose public key ends in one, on each
// curve, as crypto/ecdh computes them; and they do not fall back to
// drawing (which would be right too, only slow): a walk formula broken
// fails here.
func TestWalks(t *testing.T) {
	for _, c := range []struct {
		m      *method
		secret func(peer *ecdh.PublicKey, zeros, tries int) (*ecdh.PrivateKey, []byte, error)
		public func(want func([]byte) bool, tries int) (*ecdh.PrivateKey, error)
	}{
		{methods[0], walkX25519Secret, walkX25519Public},
		{methods[3], func(p *ecdh.PublicKey, z, n int) (*ecdh.PrivateKey, []byte, error) {
			return walkNISTSecret(ecdh.P256(), elliptic.P256(), p, z, n)
		}, func(w func([]byte) bool, n int) (*ecdh.PrivateKey, error) {
			return walkNISTPublic(ecdh.P256(), elliptic.P256(), w, n)
		}},
		{methods[4], func(p *ecdh.PublicKey, z, n int) (*ecdh.PrivateKey, []byte, error) {
			return walkNISTSecret(ecdh.P384(), elliptic.P384(), p, z, n)
		}, func(w func([]byte) bool, n int) (*ecdh.PrivateKey, error) {
			return walkNISTPublic(ecdh.P384(), elliptic.P384(), w, n)
		}},
	} {
		curve := c.m.ecdhCurve()
		for range 3 {
			peer, err := curve.GenerateKey(nil)
			if err != nil {
				t.Fatal(err)
			}
			priv, kCL, err := c.secret(peer.PublicKey(), 1, grindBound(1))
			if err != nil {
				t.Fatalf("%v, the secret: %v", curve, err)
			}
			want, err := peer.ECDH(priv.PublicKey())
			if err != nil || !slices.Equal(want, kCL) || kCL[0] != 0 {
				t.Fatalf("%v: the walk's secret is not the key's, or does not start with 00", curve)
			}
			endsIn00 := func(pub []byte) bool { return pub[len(pub)-1] == 0 }
			priv, err = c.public(endsIn00, grindBound(1))
			if err != nil || !endsIn00(priv.PublicKey().Bytes()) {
				t.Fatalf("%v, the public key: %v", curve, err)
			}
		}
	}
}
