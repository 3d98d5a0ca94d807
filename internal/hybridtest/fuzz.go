package hybridtest

import (
	"bytes"
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The fuzz oracles recompute each verdict and K independently of the
// engine, from crypto/mlkem (with mlkemtest for a given m) and
// crypto/ecdh, following RFC 10042 directly: exact length, FIPS 203
// section 7.2 key check, uncompressed point on the curve.

func oracleCurve(name string) ecdh.Curve {
	switch name {
	case "P-256":
		return ecdh.P256()
	case "P-384":
		return ecdh.P384()
	}
	panic("hybridtest: no oracle for " + name)
}

// oracleEncaps parses ek and encapsulates m, or reports a bad key.
func oracleEncaps(ek, m []byte) (ct, k []byte, ok bool) {
	switch len(ek) {
	case mlkem.EncapsulationKeySize768:
		e, err := mlkem.NewEncapsulationKey768(ek)
		if err != nil {
			return nil, nil, false
		}
		k, ct, err = mlkemtest.Encapsulate768(e, m)
		return ct, k, err == nil
	case mlkem.EncapsulationKeySize1024:
		e, err := mlkem.NewEncapsulationKey1024(ek)
		if err != nil {
			return nil, nil, false
		}
		k, ct, err = mlkemtest.Encapsulate1024(e, m)
		return ct, k, err == nil
	}
	return nil, nil, false
}

// oracleDecaps decapsulates ct with the key of seed; ekSize picks the set.
func oracleDecaps(seed, ct []byte, ekSize int) []byte {
	var k []byte
	var err error
	if ekSize == mlkem.EncapsulationKeySize768 {
		dk, _ := mlkem.NewDecapsulationKey768(seed)
		k, err = dk.Decapsulate(ct)
	} else {
		dk, _ := mlkem.NewDecapsulationKey1024(seed)
		k, err = dk.Decapsulate(ct)
	}
	if err != nil {
		panic(err)
	}
	return k
}

// FuzzRespond checks Respond on an arbitrary C_INIT against the oracle:
// the same verdict; on accept the same S_REPLY and K for a fixed server
// stream; on reject an error naming the client's value and holding none
// of the input.
func FuzzRespond(t *testing.T, ex Exchange, prefix string, ekSize int, clientInit []byte) {
	cu := oracleCurve(ex.Curve.Name())
	fs := ex.Curve.PrivateKeySize()
	ss := Stream(prefix+"|fuzz|server", 32+fs)
	var reply, k []byte
	var err error
	if ex.IgnoresReader {
		// FIPS 140-3 mode: the verdict of Respond (which draws its own
		// randomness) must be the constructor's, whose output is exact.
		_, _, errR := ex.Respond(bytes.NewReader(ss), clientInit)
		reply, k, err = ex.RespondWithKeys(clientInit, ss[:32], ss[32:])
		if (errR == nil) != (err == nil) {
			t.Fatalf("Respond and RespondWithKeys disagree: %v, %v", errR, err)
		}
	} else {
		reply, k, err = ex.Respond(bytes.NewReader(ss), clientInit)
	}

	ok := len(clientInit) == ekSize+ex.Curve.PublicKeySize()
	var ct, kPQ []byte
	var peer *ecdh.PublicKey
	if ok {
		ct, kPQ, ok = oracleEncaps(clientInit[:ekSize], ss[:32])
	}
	if ok {
		pt := clientInit[ekSize:]
		var perr error
		peer, perr = cu.NewPublicKey(pt)
		ok = perr == nil && pt[0] == 4
	}
	if !ok {
		if err == nil {
			t.Fatalf("Respond accepted a C_INIT the oracle rejects")
		}
		if !strings.HasPrefix(err.Error(), prefix+": client's") {
			t.Fatalf("error %q does not name the client's value", err)
		}
		checkNoInput(t, err, clientInit)
		return
	}
	if err != nil {
		t.Fatalf("Respond rejected a valid C_INIT: %v", err)
	}
	priv, perr := cu.NewPrivateKey(ss[32:])
	if perr != nil {
		t.Fatal(perr) // the fixed stream's scalar is in range
	}
	kCL, _ := priv.ECDH(peer)
	want := append(ct, priv.PublicKey().Bytes()...)
	if !bytes.Equal(reply, want) || !bytes.Equal(k, hybrid.SharedSecret(ex.Hash, kPQ, kCL)) {
		t.Fatal("S_REPLY or K differs from the oracle's")
	}
}

// FuzzFinish checks Finish on an arbitrary S_REPLY for a fixed client
// against the oracle, as FuzzRespond does for Respond.
func FuzzFinish(t *testing.T, ex Exchange, prefix string, ekSize, ctSize int, serverReply []byte) {
	cu := oracleCurve(ex.Curve.Name())
	seed := Stream(prefix+"|fuzz|client", 64)
	privBytes := Stream(prefix+"|fuzz|client|ec", ex.Curve.PrivateKeySize())
	privBytes[0] &= 0x7f // below n on both curves
	c, err := ex.NewClientWithKeys(seed, privBytes)
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.Finish(serverReply)

	ok := len(serverReply) == ctSize+ex.Curve.PublicKeySize()
	var peer *ecdh.PublicKey
	if ok {
		pt := serverReply[ctSize:]
		var perr error
		peer, perr = cu.NewPublicKey(pt)
		ok = perr == nil && pt[0] == 4
	}
	if !ok {
		if err == nil {
			t.Fatalf("Finish accepted an S_REPLY the oracle rejects")
		}
		if !strings.HasPrefix(err.Error(), prefix+": server's") {
			t.Fatalf("error %q does not name the server's value", err)
		}
		checkNoInput(t, err, serverReply)
		return
	}
	if err != nil {
		t.Fatalf("Finish rejected a valid S_REPLY: %v", err)
	}
	priv, _ := cu.NewPrivateKey(privBytes)
	kCL, _ := priv.ECDH(peer)
	kPQ := oracleDecaps(seed, serverReply[:ctSize], ekSize)
	if !bytes.Equal(k, hybrid.SharedSecret(ex.Hash, kPQ, kCL)) {
		t.Fatal("K differs from the oracle's")
	}
}

func checkNoInput(t *testing.T, err error, in []byte) {
	t.Helper()
	msg := err.Error()
	for i := 0; i+8 <= len(in); i += 8 {
		if strings.Contains(msg, string(in[i:i+8])) || strings.Contains(msg, hexString(in[i:i+8])) {
			t.Fatalf("error %q contains input bytes", msg)
		}
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, digits[x>>4], digits[x&15])
	}
	return string(out)
}

// FuzzSeeds returns seed inputs for the fuzz targets: a valid C_INIT and
// S_REPLY of the method, damaged variants (lengths, point forms, an
// unreduced key coefficient), and every Q_C and Q_S of the SSH vector
// files given (their edge cases included).
func FuzzSeeds(ex Exchange, ekSize, ctSize int, vectorFiles ...string) (inits, replies [][]byte) {
	c, err := ex.NewClient(nil)
	if err != nil {
		panic(err)
	}
	init := c.Init()
	reply, _, err := ex.Respond(nil, init)
	if err != nil {
		panic(err)
	}
	vary := func(v []byte, off int) [][]byte {
		out := [][]byte{v, v[:len(v)-1], append(bytes.Clone(v), 0), v[:off], {}}
		for _, b := range []byte{0, 2, 3, 6} {
			w := bytes.Clone(v)
			w[off] = b
			out = append(out, w)
		}
		w := bytes.Clone(v)
		w[len(w)-1] ^= 1
		return append(out, w)
	}
	inits = vary(init, ekSize)
	bad := bytes.Clone(init)
	bad[0], bad[1] = 0xff, bad[1]|0x0f
	inits = append(inits, bad)
	replies = vary(reply, ctSize)
	for _, path := range vectorFiles {
		data, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var f struct {
			Tests []map[string]json.RawMessage `json:"tests"`
			Edge  []map[string]json.RawMessage `json:"invalid_and_edge_tests"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			panic(err)
		}
		for _, tc := range append(f.Tests, f.Edge...) {
			for key, dst := range map[string]*[][]byte{"Q_C": &inits, "Q_S": &replies} {
				var h string
				if json.Unmarshal(tc[key], &h) == nil {
					if b, err := hex.DecodeString(h); err == nil {
						*dst = append(*dst, b)
					}
				}
			}
		}
	}
	return inits, replies
}
