package kat

import (
	"bytes"
	"crypto/mlkem"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

type wycheproofECDH struct {
	TestGroups []struct {
		Type     string             `json:"type"`
		Curve    string             `json:"curve"`
		Encoding string             `json:"encoding"`
		Tests    []WycheproofDHTest `json:"tests"`
	} `json:"testGroups"`
}

// curveNames maps Wycheproof's curve names to hybrid.Curve names.
var curveNames = map[string]string{"secp256r1": "P-256", "secp384r1": "P-384"}

// ECDHCounts says how the cases of a Wycheproof ECDH file were used.
type ECDHCounts struct {
	Valid, Rejected int // checked: valid shared secrets, rejected points
	NotSSH          int // DER keys with explicit curve parameters or unparsable ASN.1: no SSH form
}

// RunWycheproofECDH checks a Wycheproof ECDH file ("ecpoint": raw SEC1
// points; "asn": DER SubjectPublicKeyInfo, of which the point is used)
// against the curve and through the method's Finish (the point as the
// server's S_REPLY point, with the case's private key as the client's):
// every valid case must give its shared secret (and K =
// string(HASH(K_PQ || shared))), and so must DER cases that are
// "acceptable" only for their sloppy ASN.1; every invalid point, every
// point of another curve and the "acceptable" compressed points (which
// SSH's strict decoding refuses) must be rejected. DER keys with explicit
// curve parameters, whose ASN.1 does not parse or whose BIT STRING was
// tampered with have no SSH form and are only counted.
//
// Under a recorder each checked case is one vector; the cases without an
// SSH form are not vectors.
func RunWycheproofECDH(t TB, name string, data []byte, ex Exchange) ECDHCounts {
	t.Helper()
	var v wycheproofECDH
	mustJSON(t, name, data, &v)
	cu := ex.Method.Curve
	var cnt ECDHCounts
	// A fixed ML-KEM key and ciphertext for the Finish checks; K_PQ from
	// crypto/mlkem as the oracle.
	seed := Stream("wycheproof-ecdh", 64)
	ctSize := -1
	var kPQ []byte
	for _, g := range v.TestGroups {
		if curveNames[g.Curve] != cu.Name() {
			t.Fatalf("%s: a group for %s, not %s", name, g.Curve, cu.Name())
		}
		for _, tc := range g.Tests {
			id := fmt.Sprintf("%s tcId %d (%s)", name, tc.TcID, tc.Comment)
			point := []byte(tc.Public)
			if g.Encoding == "asn" {
				p, ok := spkiPoint(tc.Public)
				// A case whose ASN.1 error is in the BIT STRING itself has
				// changed the point bytes: no defined SSH form either.
				asnPoint := hasFlag(tc.Flags, "InvalidAsn") && strings.Contains(tc.Comment, "bit string")
				if !ok || hasFlag(tc.Flags, "UnnamedCurve") || asnPoint {
					cnt.NotSSH++
					continue
				}
				point = p
			}
			each(t, func() {
				// The point's verdict: valid cases, and DER cases that are
				// "acceptable" only for their ASN.1 (SSH carries no ASN.1), must
				// give the shared secret; everything else must be rejected:
				// invalid points, points of other curves, and compressed points.
				wantValid := tc.Result == "valid" || (hasFlag(tc.Flags, "InvalidAsn") && len(tc.Shared) > 0)
				priv := bytes.TrimLeft(tc.Private, "\x00")
				if len(priv) > cu.PrivateKeySize() {
					t.Errorf("%s: %d-byte private key", id, len(priv))
					return
				}
				priv = append(make([]byte, cu.PrivateKeySize()-len(priv)), priv...)
				key, err := cu.NewKey(priv)
				if err != nil {
					t.Errorf("%s: private key: %v", id, err)
					return
				}
				shared := make([]byte, cu.SecretSize())
				var ecdhErr error
				if len(point) != cu.PublicKeySize() {
					ecdhErr = fmt.Errorf("%d-byte point", len(point))
				} else {
					ecdhErr = key.ECDH(shared, point)
				}

				// The same through the method: the point as the server's.
				c, err := ex.NewClientWithKeys(seed, priv)
				if err != nil {
					t.Fatalf("%s: NewClientWithKeys: %v", id, err)
				}
				if kPQ == nil {
					kPQ, ctSize = oracleKPQ(t, seed, len(c.Init())-cu.PublicKeySize())
				}
				ct := Stream("wycheproof-ecdh-ct", ctSize)
				k, finErr := c.Finish(append(ct, point...))

				switch {
				case wantValid && ecdhErr != nil:
					t.Errorf("%s: rejected: %v", id, ecdhErr)
				case wantValid && !bytes.Equal(shared, tc.Shared):
					t.Errorf("%s: shared secret differs", id)
				case wantValid && (finErr != nil || !bytes.Equal(k, hybrid.SharedSecret(ex.Method.Hash, kPQ, tc.Shared))):
					t.Errorf("%s: Finish: %v, or K differs", id, finErr)
				case wantValid:
					cnt.Valid++
				case ecdhErr == nil || finErr == nil:
					t.Errorf("%s: %s point accepted (curve: %v, Finish: %v)", id, tc.Result, ecdhErr, finErr)
				default:
					cnt.Rejected++
				}
			})
		}
	}
	return cnt
}

// spkiPoint returns the BIT STRING of a DER SubjectPublicKeyInfo: the
// SEC1 point, whatever the algorithm parameters say.
func spkiPoint(der []byte) ([]byte, bool) {
	var spki struct {
		Algorithm struct {
			Algorithm  asn1.ObjectIdentifier
			Parameters asn1.RawValue
		}
		PublicKey asn1.BitString
	}
	rest, err := asn1.Unmarshal(der, &spki)
	if err != nil || len(rest) != 0 || spki.PublicKey.BitLength%8 != 0 {
		return nil, false
	}
	return spki.PublicKey.Bytes, true
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// oracleKPQ returns crypto/mlkem's decapsulation of the fixed ciphertext
// for the seed's key, and the ciphertext size, given the ek size.
func oracleKPQ(t TB, seed []byte, ekSize int) ([]byte, int) {
	t.Helper()
	switch ekSize {
	case mlkem.EncapsulationKeySize768:
		dk, _ := mlkem.NewDecapsulationKey768(seed)
		k, err := dk.Decapsulate(Stream("wycheproof-ecdh-ct", mlkem.CiphertextSize768))
		if err != nil {
			t.Fatalf("crypto/mlkem: %v", err)
		}
		return k, mlkem.CiphertextSize768
	case mlkem.EncapsulationKeySize1024:
		dk, _ := mlkem.NewDecapsulationKey1024(seed)
		k, err := dk.Decapsulate(Stream("wycheproof-ecdh-ct", mlkem.CiphertextSize1024))
		if err != nil {
			t.Fatalf("crypto/mlkem: %v", err)
		}
		return k, mlkem.CiphertextSize1024
	}
	t.Fatalf("ek size %d", ekSize)
	return nil, 0
}

// RunWycheproofECDHFile runs a Wycheproof ECDH file (raw points or DER)
// for P-256 or P-384 on the curve and through the public API of the
// method on that curve: one vector per case with an SSH form.
func RunWycheproofECDHFile(data []byte) Result {
	var v wycheproofECDH
	if err := json.Unmarshal(data, &v); err != nil || len(v.TestGroups) == 0 {
		return Result{Err: fmt.Errorf("vectors: no test groups (%v)", err)}
	}
	method := map[string]string{"P-256": mlkem768nistp256.Name, "P-384": mlkem1024nistp384.Name}[curveNames[v.TestGroups[0].Curve]]
	if method == "" {
		return Result{Skipped: fmt.Sprintf("ECDH vectors for %s, which pqkex does not use", v.TestGroups[0].Curve)}
	}
	return Record(func(t TB) { RunWycheproofECDH(t, "ecdh", data, MustPublic(method)) })
}
