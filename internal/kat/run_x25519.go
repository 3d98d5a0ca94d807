package kat

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
	"fmt"
	"github.com/pqkex/pqkex/internal/hybrid"
	"strconv"
	"strings"

	cx25519 "github.com/cloudflare/circl/dh/x25519"

	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// The X25519 files run on circl's dh/x25519, the backend of both SSH
// methods, and the Wycheproof cases also through both methods' servers
// and clients, where every all-zero result must abort the key exchange.

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

// RunWycheproofXDH checks Wycheproof's X25519 cases. Every result must
// match with circl, and every case also runs through both SSH methods,
// server and client, with the Wycheproof private key as ours and its
// public key as the peer's: K must be string(HASH(K_PQ || shared)) for
// fixed KEM halves, and the all-zero results (public keys of small order,
// "acceptable" for plain X25519) must make all four reject, as must the
// invalid cases.
func RunWycheproofXDH(v *WycheproofXDH) Result {
	curves := map[string]bool{}
	for _, g := range v.TestGroups {
		curves[g.Curve] = true
	}
	if len(curves) == 1 && !curves["curve25519"] {
		for c := range curves {
			return Result{Skipped: fmt.Sprintf("Wycheproof XDH vectors for %s, which pqkex does not implement", c)}
		}
	}
	if len(curves) != 1 {
		return Result{Err: errors.New("vectors: Wycheproof XDH file mixes curves or has no test groups")}
	}
	f, err := newKEMHalves()
	if err != nil {
		return Result{Err: err}
	}
	var r Result
	for _, g := range v.TestGroups {
		for _, tc := range g.Tests {
			var err error
			switch {
			case tc.Result != "valid" && tc.Result != "acceptable" && tc.Result != "invalid":
				err = fmt.Errorf("result %q", tc.Result)
			case tc.Result == "invalid":
				err = f.check(tc.Private, tc.Public, nil, "")
			case isZero(tc.Shared):
				if _, low := circlX25519(tc.Private, tc.Public); !low {
					err = errors.New("X25519 does not flag the all-zero result")
				} else {
					err = f.check(tc.Private, tc.Public, nil, "X25519 public key is a low-order point")
				}
			default:
				err = x25519Check(tc.Private, tc.Public, tc.Shared)
				if err == nil {
					err = f.check(tc.Private, tc.Public, tc.Shared, "")
				}
			}
			r.record("tcId "+strconv.Itoa(tc.TcID), err)
		}
	}
	return r
}

// kemHalves are fixed KEM halves for running X25519 cases through the
// SSH methods, computed with crypto/mlkem and sntrup761test.
type kemHalves struct {
	mlkemSeed, mlkemM, mlkemEK, mlkemCT, mlkemK []byte
	ntruDK, ntruEK, ntruR, ntruCT, ntruK        []byte
}

func newKEMHalves() (*kemHalves, error) {
	f := &kemHalves{mlkemSeed: make([]byte, 64), mlkemM: make([]byte, 32)}
	copy(f.mlkemSeed, "pqkex X25519 Wycheproof: ML-KEM seed for the client")
	copy(f.mlkemM, "pqkex X25519 Wycheproof: m")
	dk, err := mlkem.NewDecapsulationKey768(f.mlkemSeed)
	if err != nil {
		return nil, err
	}
	f.mlkemEK = dk.EncapsulationKey().Bytes()
	if f.mlkemK, f.mlkemCT, err = mlkemtest.Encapsulate768(dk.EncapsulationKey(), f.mlkemM); err != nil {
		return nil, err
	}
	stream := bytes.Repeat([]byte("pqkex sntrup761"), 500)
	ndk, err := sntrup761test.GenerateKey(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	f.ntruDK, f.ntruEK, f.ntruR = ndk.Bytes(), ndk.EncapsulationKey().Bytes(), stream[:3044]
	if f.ntruK, f.ntruCT, err = sntrup761test.Encapsulate(ndk.EncapsulationKey(), bytes.NewReader(f.ntruR)); err != nil {
		return nil, err
	}
	return f, nil
}

// check runs X25519 private key priv against the peer's public key pub
// through both methods' servers and clients. If shared is nil, all four
// must reject, with an error containing wantErr (naming the peer); if not,
// all four must send the expected message and derive K from shared.
func (f *kemHalves) check(priv, pub, shared []byte, wantErr string) error {
	var ourPub []byte
	if k, err := ecdh.X25519().NewPrivateKey(priv); err == nil {
		ourPub = k.PublicKey().Bytes()
	}
	type outcome struct {
		side, peer   string
		msg, wantMsg []byte
		k, wantK     []byte
		err          error
	}
	var outs []outcome

	reply, k, err := hybrid.MLKEM768X25519.RespondWithKeys(cat(f.mlkemEK, pub), f.mlkemM, priv)
	outs = append(outs, outcome{"mlkem768x25519 server", "client", reply, cat(f.mlkemCT, ourPub), k, kexK(crypto.SHA256, f.mlkemK, shared), err})
	if c, err := withKeys(&hybrid.MLKEM768X25519, f.mlkemSeed, priv); err != nil {
		outs = append(outs, outcome{side: "mlkem768x25519 client", peer: "server", err: err})
	} else {
		init := c.Init()
		k, err := c.Finish(cat(f.mlkemCT, pub))
		outs = append(outs, outcome{"mlkem768x25519 client", "server", init, cat(f.mlkemEK, ourPub), k, kexK(crypto.SHA256, f.mlkemK, shared), err})
	}
	reply, k, err = hybrid.SNTRUP761X25519.RespondWithKeys(cat(f.ntruEK, pub), f.ntruR, priv)
	outs = append(outs, outcome{"sntrup761x25519 server", "client", reply, cat(f.ntruCT, ourPub), k, kexK(crypto.SHA512, f.ntruK, shared), err})
	if c, err := withKeys(&hybrid.SNTRUP761X25519, f.ntruDK, priv); err != nil {
		outs = append(outs, outcome{side: "sntrup761x25519 client", peer: "server", err: err})
	} else {
		init := c.Init()
		k, err := c.Finish(cat(f.ntruCT, pub))
		outs = append(outs, outcome{"sntrup761x25519 client", "server", init, cat(f.ntruEK, ourPub), k, kexK(crypto.SHA512, f.ntruK, shared), err})
	}

	for _, o := range outs {
		if shared == nil {
			if o.err == nil {
				return fmt.Errorf("%s accepted", o.side)
			}
			if want := o.peer + "'s " + wantErr; wantErr != "" && !strings.Contains(o.err.Error(), want) {
				return fmt.Errorf("%s rejected with %q, want it to say %q", o.side, o.err, want)
			}
			continue
		}
		if o.err != nil {
			return fmt.Errorf("%s: %v", o.side, o.err)
		}
		if err := firstErr(equal(o.side+" message", o.msg, o.wantMsg), equal(o.side+" K", o.k, o.wantK)); err != nil {
			return err
		}
	}
	return nil
}
