package fuzz

import (
	"bytes"
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/json"
	"github.com/pqkex/pqkex/internal/hybridtest"
	"os"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// The hybrid targets feed arbitrary peer messages to the SSH methods with
// fixed secrets on our side, and check the outcome against oracles built
// from other implementations (crypto/mlkem, crypto/ecdh) plus the method's
// combiner written out here: an error exactly for a wrong length, a
// failed ML-KEM encapsulation key check or an all-zero X25519 result, and
// otherwise the oracle's message and K. They must never panic.

// sshVectors returns the Q_C and Q_S values of an SSH vector file.
func sshVectors(f *testing.F, name string) (qc, qs [][]byte) {
	data, err := os.ReadFile("../vectors/testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	var v struct {
		Tests []struct {
			QC kat.Hex `json:"Q_C"`
			QS kat.Hex `json:"Q_S"`
		}
		Edge []struct {
			Role string
			QC   kat.Hex `json:"Q_C"`
			QS   kat.Hex `json:"Q_S"`
		} `json:"invalid_and_edge_tests"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		f.Fatal(err)
	}
	for _, tc := range v.Tests {
		qc, qs = append(qc, tc.QC), append(qs, tc.QS)
	}
	for _, tc := range v.Edge {
		if tc.Role == "server" {
			qc = append(qc, tc.QC)
		} else {
			qs = append(qs, tc.QS)
		}
	}
	return qc, qs
}

// fixed returns n deterministic bytes for our side's secrets.
func fixed(label string, n int) []byte {
	var out []byte
	for i := 0; len(out) < n; i++ {
		s := sha256.Sum256([]byte(label + string(rune('a'+i))))
		out = append(out, s[:]...)
	}
	return out[:n]
}

// x25519Oracle returns crypto/ecdh's X25519(priv, peer), or nil if the
// result is all zero.
func x25519Oracle(t testing.TB, priv, peer []byte) []byte {
	sk, err := ecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ecdh.X25519().NewPublicKey(peer)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sk.ECDH(pk)
	if err != nil {
		return nil
	}
	return s
}

func x25519Public(t testing.TB, priv []byte) []byte {
	sk, err := ecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return sk.PublicKey().Bytes()
}

func kString(digest []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(digest))), digest...)
}

// wantError fails unless err is an error of the package naming what.
func wantError(t *testing.T, err error, prefix, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error about %q", what)
	}
	if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), what) {
		t.Fatalf("error %q; want one about %q", err, what)
	}
}

func FuzzMLKEM768X25519Respond(f *testing.F) {
	qcs, _ := sshVectors(f, "mlkem768x25519-sha256_openssh.json")
	for _, qc := range qcs {
		f.Add(qc)
	}
	f.Add([]byte{})
	f.Add(make([]byte, mlkem768x25519.ClientInitSize))
	m, priv := fixed("m", 32), fixed("server x25519", 32)
	pub := x25519Public(f, priv)
	f.Fuzz(func(t *testing.T, qc []byte) {
		reply, k, err := mlkem768x25519.Respond(hybridtest.ReaderOf(m, priv), qc)
		const p = "mlkem768x25519: "
		if len(qc) != 1216 {
			wantError(t, err, p, "client's C_INIT has")
			return
		}
		ek, ekErr := mlkem.NewEncapsulationKey768(qc[:1184])
		if ekErr != nil {
			wantError(t, err, p, "client's ML-KEM-768 encapsulation key is invalid")
			return
		}
		kCL := x25519Oracle(t, priv, qc[1184:])
		if kCL == nil {
			wantError(t, err, p, "client's X25519 public key is a low-order point")
			return
		}
		if err != nil {
			t.Fatalf("rejected a valid C_INIT: %v", err)
		}
		kPQ, ct, err := mlkemtest.Encapsulate768(ek, m)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append(kPQ, kCL...))
		if !bytes.Equal(reply, append(ct, pub...)) || !bytes.Equal(k, kString(sum[:])) {
			t.Fatal("S_REPLY or K differs from the oracle")
		}
	})
}

func FuzzMLKEM768X25519Finish(f *testing.F) {
	seed, priv := fixed("client seed", 64), fixed("client x25519", 32)
	c, err := mlkem768x25519.NewClient(hybridtest.ReaderOf(seed, priv))
	if err != nil {
		f.Fatal(err)
	}
	reply, _, err := mlkem768x25519.Respond(nil, c.Init())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(reply)
	_, qss := sshVectors(f, "mlkem768x25519-sha256_openssh.json")
	for _, qs := range qss {
		f.Add(qs)
	}
	f.Add([]byte{})
	dk, err := mlkem.NewDecapsulationKey768(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, qs []byte) {
		c, err := mlkem768x25519.NewClient(hybridtest.ReaderOf(seed, priv))
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.Finish(qs)
		const p = "mlkem768x25519: "
		if len(qs) != 1120 {
			wantError(t, err, p, "server's S_REPLY has")
			return
		}
		kCL := x25519Oracle(t, priv, qs[1088:])
		if kCL == nil {
			wantError(t, err, p, "server's X25519 public key is a low-order point")
			return
		}
		if err != nil {
			t.Fatalf("rejected a valid S_REPLY: %v", err)
		}
		kPQ, err := dk.Decapsulate(qs[:1088])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append(kPQ, kCL...))
		if !bytes.Equal(k, kString(sum[:])) {
			t.Fatal("K differs from the oracle")
		}
		if _, err := c.Finish(qs); err == nil {
			t.Fatal("second Finish succeeded")
		}
	})
}

func FuzzSNTRUP761X25519Respond(f *testing.F) {
	qcs, _ := sshVectors(f, "sntrup761x25519-sha512_openssh.json")
	for _, qc := range qcs {
		f.Add(qc)
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, sntrup761x25519.ClientInitSize))
	r, priv := fixed("r", 3044), fixed("server x25519", 32)
	pub := x25519Public(f, priv)
	f.Fuzz(func(t *testing.T, qc []byte) {
		reply, k, err := sntrup761x25519.Respond(hybridtest.ReaderOf(r, priv), qc)
		const p = "sntrup761x25519: "
		if len(qc) != 1190 {
			wantError(t, err, p, "client's C_INIT has")
			return
		}
		kCL := x25519Oracle(t, priv, qc[1158:])
		if kCL == nil {
			wantError(t, err, p, "client's X25519 public key is a low-order point")
			return
		}
		if err != nil {
			t.Fatalf("rejected a valid C_INIT: %v", err)
		}
		ek, err := sntrup761.NewEncapsulationKey(qc[:1158])
		if err != nil {
			t.Fatal(err)
		}
		kPQ, ct, err := sntrup761test.Encapsulate(ek, bytes.NewReader(r))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(append(kPQ, kCL...))
		if !bytes.Equal(reply, append(ct, pub...)) || !bytes.Equal(k, kString(sum[:])) {
			t.Fatal("S_REPLY or K differs from the oracle")
		}
	})
}

func FuzzSNTRUP761X25519Finish(f *testing.F) {
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(fixed("client sntrup761", 3044+3044+191)))
	if err != nil {
		f.Fatal(err)
	}
	sk, priv := dk.Bytes(), fixed("client x25519", 32)
	c, err := hybridtest.SNTRUPClient(sk, priv)
	if err != nil {
		f.Fatal(err)
	}
	reply, _, err := sntrup761x25519.Respond(nil, c.Init())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(reply)
	_, qss := sshVectors(f, "sntrup761x25519-sha512_openssh.json")
	for _, qs := range qss {
		f.Add(qs)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, qs []byte) {
		c, err := hybridtest.SNTRUPClient(sk, priv)
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.Finish(qs)
		const p = "sntrup761x25519: "
		if len(qs) != 1071 {
			wantError(t, err, p, "server's S_REPLY has")
			return
		}
		kCL := x25519Oracle(t, priv, qs[1039:])
		if kCL == nil {
			wantError(t, err, p, "server's X25519 public key is a low-order point")
			return
		}
		if err != nil {
			t.Fatalf("rejected a valid S_REPLY: %v", err)
		}
		kPQ, err := dk.Decapsulate(qs[:1039])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(append(kPQ, kCL...))
		if !bytes.Equal(k, kString(sum[:])) {
			t.Fatal("K differs from the oracle")
		}
	})
}
