package kat

import (
	"bytes"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The Wycheproof Diffie-Hellman files: XDH (X25519) and ECDH (P-256,
// P-384; raw SEC1 points or DER public keys), one runner for both.

// wycheproofCurves maps Wycheproof's curve names to hybrid.Curve names.
var wycheproofCurves = map[string]string{"curve25519": "X25519", "secp256r1": "P-256", "secp384r1": "P-384"}

// DHCounts says how the cases of a Wycheproof DH file were used.
type DHCounts struct {
	Valid, Rejected int // checked: valid shared secrets, rejected points
	NotSSH          int // DER keys with explicit curve parameters or unparsable ASN.1: no SSH form
}

// RunWycheproofDH checks a Wycheproof XDH or ECDH file on each Exchange's
// curve and through its client and server, with the case's private key as
// ours and its public key as the peer's (the point in S_REPLY or C_INIT),
// and fixed KEM halves computed with the KEM alone (crypto/mlkem for
// ML-KEM). Valid cases must give their shared secret, C_INIT / S_REPLY
// must carry our public key, and K must be string(HASH(K_PQ || shared)).
// Rejected must be: invalid points, points of other curves, the
// "acceptable" X25519 points with an all-zero result and the
// "acceptable" compressed SEC1 points (SSH's strict decoding refuses
// them), with an error naming the peer's point; DER cases "acceptable"
// only for their sloppy ASN.1 count as valid (SSH carries no ASN.1). DER
// keys with explicit curve parameters, whose ASN.1 does not parse or
// whose BIT STRING was tampered with have no SSH form and are only
// counted. One case per test with an SSH form.
func RunWycheproofDH(t TB, name string, data []byte, exs ...Exchange) DHCounts {
	t.Helper()
	var v wycheproofFile
	mustJSON(t, name, data, &v)
	var cnt DHCounts
	halves := make([]kemValues, len(exs)) // once per Exchange, not per case
	for i, ex := range exs {
		var err error
		if halves[i], err = kemHalves(ex); err != nil {
			t.Fatalf("%s: KEM halves for %s: %v", name, ex.Name, err)
		}
	}
	for _, g := range v.TestGroups {
		for _, ex := range exs {
			if wycheproofCurves[g.Curve] != ex.Method.Curve.Name() {
				t.Fatalf("%s: a group for %s, not %s", name, g.Curve, ex.Method.Curve.Name())
			}
		}
		for _, tc := range g.Tests {
			point := []byte(tc.Public)
			asnPoint := slices.Contains(tc.Flags, "InvalidAsn") && strings.Contains(tc.Comment, "bit string")
			if g.Encoding == "asn" {
				p, ok := spkiPoint(tc.Public)
				if !ok || slices.Contains(tc.Flags, "UnnamedCurve") || asnPoint {
					cnt.NotSSH++
					continue
				}
				point = p
			}
			accept := tc.Result == "valid" ||
				g.Encoding == "" && tc.Result == "acceptable" && !isZero(tc.Shared) ||
				g.Encoding == "asn" && slices.Contains(tc.Flags, "InvalidAsn") && len(tc.Shared) > 0
			each(t, func() {
				id := fmt.Sprintf("%s tcId %d (%s)", name, tc.TcID, tc.Comment)
				for i, ex := range exs {
					if err := dhCase(ex, halves[i], tc.Private, point, tc.Shared, accept); err != nil {
						t.Errorf("%s: %s: %v", id, ex.Label+" "+ex.Name, err)
					}
				}
			})
			if accept {
				cnt.Valid++
			} else {
				cnt.Rejected++
			}
		}
	}
	return cnt
}

// dhCase runs one case on ex: the curve alone, the client (the point in
// S_REPLY) and the server (the point in C_INIT).
func dhCase(ex Exchange, h kemValues, priv, point, shared []byte, accept bool) error {
	cu := ex.Method.Curve
	if p := bytes.TrimLeft(priv, "\x00"); len(p) <= cu.PrivateKeySize() && cu.Name() != "X25519" {
		priv = append(make([]byte, cu.PrivateKeySize()-len(p)), p...) // Wycheproof's are minimal big-endian
	}
	key, err := cu.NewKey(priv)
	if err != nil {
		return fmt.Errorf("private key: %v", err)
	}
	defer key.Clear()
	ourPub, got := make([]byte, cu.PublicKeySize()), make([]byte, cu.SecretSize())
	key.PublicKey(ourPub)
	curveErr := fmt.Errorf("%d-byte point", len(point))
	if len(point) == cu.PublicKeySize() {
		curveErr = key.ECDH(got, point)
	}
	var k, msg []byte
	c, clientErr := ex.NewClientWithKeys(h.kemKey, priv)
	if clientErr == nil {
		msg = c.Init()
		k, clientErr = c.Finish(cat(h.ct, point))
	}
	reply, kS, serverErr := ex.RespondWithKeys(cat(h.ek, point), h.m, priv)
	if !accept {
		switch {
		case curveErr == nil || clientErr == nil || serverErr == nil:
			return fmt.Errorf("point accepted (curve %v, client %v, server %v)", curveErr, clientErr, serverErr)
		case !strings.Contains(clientErr.Error(), "server's "+cu.Name()+" public key") && !strings.Contains(clientErr.Error(), "server's S_REPLY has") ||
			!strings.Contains(serverErr.Error(), "client's "+cu.Name()+" public key") && !strings.Contains(serverErr.Error(), "client's C_INIT has"):
			return fmt.Errorf("rejected with %q and %q, which do not name the peer's point or message", clientErr, serverErr)
		}
		return nil
	}
	wantK := kexK(ex.Method.Hash, h.kPQ, shared)
	switch {
	case curveErr != nil || !bytes.Equal(got, shared):
		return fmt.Errorf("curve: %v, or the shared secret differs", curveErr)
	case clientErr != nil || !bytes.Equal(msg, cat(h.ek, ourPub)) || !bytes.Equal(k, wantK):
		return fmt.Errorf("client: %v, or C_INIT or K differs", clientErr)
	case serverErr != nil || !bytes.Equal(reply, cat(h.ct, ourPub)) || !bytes.Equal(kS, wantK):
		return fmt.Errorf("server: %v, or S_REPLY or K differs", serverErr)
	}
	return nil
}

// kemValues are fixed KEM values for an Exchange: the client's key, its
// encapsulation key, a ciphertext, the server's randomness m that gives
// it, and K_PQ.
type kemValues struct{ kemKey, ek, ct, m, kPQ []byte }

// kemHalves computes ex's kemValues with the KEM alone (crypto/mlkem for
// ML-KEM, sntrup761 otherwise).
func kemHalves(ex Exchange) (v kemValues, err error) {
	k := ex.Method.Backend()
	if strings.HasPrefix(k.Name(), "ML-KEM") {
		k = hybrid.Std(ex.Method.Params)
	}
	if v.kemKey, err = explicitKEMKey(k, shakeStream("wycheproof-dh kem key")); err != nil {
		return v, err
	}
	dk, err := k.NewDecapsulationKey(v.kemKey)
	if err != nil {
		return v, err
	}
	v.ek, v.m = make([]byte, k.EncapsulationKeySize()), Stream("wycheproof-dh m", k.RandomnessSize())
	dk.EncapsulationKey(v.ek)
	e, err := k.ParseEncapsulationKey(v.ek)
	if err != nil {
		return v, err
	}
	v.ct, v.kPQ = make([]byte, k.CiphertextSize()), make([]byte, 32)
	return v, e.Encapsulate(v.ct, v.kPQ, bytes.NewReader(v.m))
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

// runWycheproofDH runs a Wycheproof XDH or ECDH file through the public
// API in ms of every method on its curve.
func runWycheproofDH(ms Methods, _ string, data []byte) Result {
	var v wycheproofFile
	if err := json.Unmarshal(data, &v); err != nil || len(v.TestGroups) == 0 {
		return Result{Err: fmt.Errorf("vectors: no test groups (%v)", err)}
	}
	var exs []Exchange
	for _, ex := range ms {
		if ex.Method.Curve.Name() == wycheproofCurves[v.TestGroups[0].Curve] {
			exs = append(exs, ex)
		}
	}
	if len(exs) == 0 {
		return Result{Skipped: fmt.Sprintf("DH vectors for %s, which pqkex does not use", v.TestGroups[0].Curve)}
	}
	return Record(func(t TB) { RunWycheproofDH(t, "wycheproof", data, exs...) })
}
