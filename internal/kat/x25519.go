package kat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	cx25519 "github.com/cloudflare/circl/dh/x25519"
)

// RFC 7748's vectors run on circl's dh/x25519, the backend of both X25519
// methods (Wycheproof's X25519 cases run through the methods: dh.go).

// circlX25519 is X25519 as the method packages compute it.
func circlX25519(scalar, point []byte) (out []byte, lowOrder bool) {
	var s, p, o cx25519.Key
	copy(s[:], scalar)
	copy(p[:], point)
	ok := cx25519.Shared(&o, &s, &p)
	return o[:], !ok
}

func circlPublic(scalar []byte) []byte {
	var s, p cx25519.Key
	copy(s[:], scalar)
	cx25519.KeyGen(&p, &s)
	return p[:]
}

// x25519Check checks X25519(scalar, u) = want with circl.
func x25519Check(scalar, u, want []byte) error {
	if len(scalar) != 32 || len(u) != 32 {
		return errors.New("scalar and u must be 32 bytes")
	}
	got, low := circlX25519(scalar, u)
	if low {
		return errors.New("X25519 reports a low-order point")
	}
	return equal("X25519 result", got, want)
}

// RunRFC7748X25519 checks the RFC 7748 vectors: the two single X25519
// computations and the iterated ones of section 5.2 (1 and 1000
// iterations, and 1 000 000 if long is set), and the key pairs and shared
// secret of section 6.1.
func RunRFC7748X25519(v *RFC7748X25519, long bool) Result {
	var r Result
	for i, tc := range v.Section52 {
		r.record("section 5.2 #"+strconv.Itoa(i+1), x25519Check(tc.Scalar, tc.U, tc.Output))
	}
	it := &v.Iterated
	for _, c := range []struct {
		n    int
		want []byte
	}{{1, it.After1}, {1000, it.After1000}, {1000000, it.After1000000}} {
		if c.want == nil || c.n == 1000000 && !long {
			continue
		}
		r.record(fmt.Sprintf("section 5.2 after %d iterations", c.n), iterateX25519(it.Start, c.n, c.want))
	}
	s := &v.Section61
	if s.AlicePrivate != nil || s.BobPrivate != nil || s.SharedSecret != nil {
		for _, p := range []struct {
			name      string
			priv, pub []byte
		}{{"Alice's", s.AlicePrivate, s.AlicePublic}, {"Bob's", s.BobPrivate, s.BobPublic}} {
			var err error
			if len(p.priv) != 32 {
				err = errors.New("private key is not 32 bytes")
			} else {
				err = equal("public key", circlPublic(p.priv), p.pub)
			}
			r.record("section 6.1 "+p.name+" public key", err)
		}
		r.record("section 6.1 shared secret", firstErr(
			x25519Check(s.AlicePrivate, s.BobPublic, s.SharedSecret),
			x25519Check(s.BobPrivate, s.AlicePublic, s.SharedSecret)))
	}
	return r
}

// iterateX25519 is RFC 7748's iteration: k = u = start; n times
// (k, u) = (X25519(k, u), k).
func iterateX25519(start []byte, n int, want []byte) error {
	if len(start) != 32 {
		return errors.New("start is not 32 bytes")
	}
	k, u := bytes.Clone(start), bytes.Clone(start)
	for range n {
		r, _ := circlX25519(k, u)
		k, u = r, k
	}
	return equal("result", k, want)
}

// RFC7748X25519 is rfc7748_x25519.json: the X25519 test vectors of RFC
// 7748 sections 5.2 and 6.1, as 32-byte little-endian strings.
type RFC7748X25519 struct {
	Section52 []struct {
		Scalar Hex `json:"scalar"`
		U      Hex `json:"u"`
		Output Hex `json:"output"`
	} `json:"section_5_2"`
	Iterated struct {
		Start        Hex `json:"start"`
		After1       Hex `json:"after_1"`
		After1000    Hex `json:"after_1000"`
		After1000000 Hex `json:"after_1000000"`
	} `json:"section_5_2_iterated"`
	Section61 struct {
		AlicePrivate Hex `json:"alice_private"`
		AlicePublic  Hex `json:"alice_public"`
		BobPrivate   Hex `json:"bob_private"`
		BobPublic    Hex `json:"bob_public"`
		SharedSecret Hex `json:"shared_secret"`
	} `json:"section_6_1"`
}
