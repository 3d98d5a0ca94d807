package kat

import (
	"crypto"
	"crypto/fips140"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
)

// The Run functions of the NIST-curve hybrids' files for vectors.Run:
// the shared runners (hybrid_ssh.go, hybrid_mlkem.go, hybrid_ecdh.go)
// with a recorder, on the methods' public APIs and on both ML-KEM-1024
// implementations (circl, crypto/mlkem; expanded-key vectors on circl
// only). The methods' own tests run the same runners on more
// implementations (each method's engine with each backend).

// HybridPublic returns the public API of the NIST-curve hybrid named
// name (mlkem768nistp256-sha256 or mlkem1024nistp384-sha384) as an
// Exchange, with its explicit-key constructors, and the vector files' field
// prefix of its curve ("p256", "p384").
func HybridPublic(name string) (ex Exchange, cf string, ok bool) {
	switch name {
	case mlkem768nistp256.Name:
		return publicExchange(name, mlkem768nistp256.Hash, mlkem768nistp256.NewClient, mlkem768nistp256.Respond,
			&hybrid.MLKEM768NISTP256), "p256", true
	case mlkem1024nistp384.Name:
		return publicExchange(name, mlkem1024nistp384.Hash, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond,
			&hybrid.MLKEM1024NISTP384), "p384", true
	}
	return Exchange{}, "", false
}

// publicExchange is a method package's API as an Exchange; its
// explicit-key constructors, which the public API does not have, are the
// engine's (m, the method's description, which the package wraps).
func publicExchange[C Client](name string, h crypto.Hash,
	newClient func(io.Reader) (C, error), respond func(io.Reader, []byte) ([]byte, []byte, error), m *hybrid.Method) Exchange {
	return Exchange{
		Label: "public", Name: name, Hash: h, Curve: m.Curve,
		NewClient: func(r io.Reader) (Client, error) {
			c, err := newClient(r)
			if err != nil {
				return nil, err // not a non-nil interface holding a nil *Client
			}
			return c, nil
		},
		Respond: respond,
		NewClientWithKeys: func(seed, private []byte) (Client, error) {
			return withKeys(m, seed, private)
		},
		RespondWithKeys: m.RespondWithKeys,
		// Both methods are approved: in FIPS 140-3 mode they ignore the
		// caller's reader (see their package documentation).
		IgnoresReader: fips140.Enabled(),
	}
}

// RunSSHHybrid runs an SSH vector file of a NIST-curve hybrid (OpenSSH's
// or PuTTY's; edge cases by their strict `result`) through the method's
// public API: one vector per test.
func RunSSHHybrid(data []byte) Result {
	var head struct {
		Algorithm string `json:"algorithm"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Result{Err: err}
	}
	ex, cf, ok := HybridPublic(head.Algorithm)
	if !ok {
		return Result{Err: fmt.Errorf("vectors: %q is not a NIST-curve hybrid", head.Algorithm)}
	}
	return record(func(t TB) { RunSSHFile(t, head.Algorithm, data, cf, ex) })
}

// kems1024 are both ML-KEM-1024 implementations.
func kems1024() []hybrid.KEM {
	return []hybrid.KEM{hybrid.Circl(hybrid.MLKEM1024), hybrid.Std(hybrid.MLKEM1024)}
}

// RunMLKEM1024ACVPKeyGen runs an ACVP ML-KEM-1024 keyGen file on both
// implementations.
func RunMLKEM1024ACVPKeyGen(data []byte) Result {
	return record(func(t TB) { RunKEMACVPKeyGen(t, "keyGen", data, kems1024()...) })
}

// RunMLKEM1024ACVPEncapDecap runs an ACVP ML-KEM-1024 encapDecap file.
func RunMLKEM1024ACVPEncapDecap(data []byte) Result {
	return record(func(t TB) { RunKEMACVPEncapDecap(t, "encapDecap", data, kems1024()...) })
}

// RunMLKEM1024Wycheproof runs a Wycheproof ML-KEM-1024 file.
func RunMLKEM1024Wycheproof(data []byte) Result {
	return record(func(t TB) { RunKEMWycheproof(t, "wycheproof", data, kems1024()...) })
}

// RunMLKEM1024CCTVModulus runs CCTV's gzipped ML-KEM-1024 modulus keys on
// both implementations and through mlkem1024nistp384.Respond.
func RunMLKEM1024CCTVModulus(data []byte) Result {
	ex, _, _ := HybridPublic(mlkem1024nistp384.Name)
	return record(func(t TB) { RunKEMCCTVModulus(t, "modulus", data, kems1024(), ex) })
}

// RunMLKEM1024CCTVCase runs one CCTV ML-KEM-1024 "name = hex" case.
func RunMLKEM1024CCTVCase(data []byte) Result {
	return record(func(t TB) { RunKEMCCTVCase(t, "case", data, kems1024()...) })
}

// RunMLKEM1024Accumulated runs n accumulated ML-KEM-1024 tests on both
// implementations: one vector per implementation, every published hash
// for n compared.
func RunMLKEM1024Accumulated(data []byte, n int) Result {
	return record(func(t TB) {
		if RunKEMAccumulated(t, "accumulated", data, n, kems1024()...) == 0 {
			t.Errorf("accumulated: no published hash for %d tests", n)
		}
	})
}

// RunWycheproofECDHFile runs a Wycheproof ECDH file (raw points or DER)
// for P-256 or P-384 on crypto/ecdh and through the matching method's
// Finish: one vector per case with an SSH form.
func RunWycheproofECDHFile(data []byte) Result {
	var v wycheproofECDH
	if err := json.Unmarshal(data, &v); err != nil {
		return Result{Err: err}
	}
	if len(v.TestGroups) == 0 {
		return Result{Err: fmt.Errorf("vectors: no test groups")}
	}
	var method string
	switch curveNames[v.TestGroups[0].Curve] {
	case "P-256":
		method = mlkem768nistp256.Name
	case "P-384":
		method = mlkem1024nistp384.Name
	default:
		return Result{Skipped: fmt.Sprintf("ECDH vectors for %s, which pqkex does not use", v.TestGroups[0].Curve)}
	}
	ex, _, _ := HybridPublic(method)
	return record(func(t TB) { RunWycheproofECDH(t, "ecdh", data, ex) })
}
