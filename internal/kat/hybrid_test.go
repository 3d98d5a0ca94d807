package kat

import (
	"bytes"
	"crypto/ed25519"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"maps"
	"strings"
	"testing"
)

// The OpenSSH-generated SSH vectors. RunSSH runs every exchange and edge
// case through the method packages and kexhash; these tests add the
// file-specific expectations (counts, coverage of the edge cases) and the
// checks with independent implementations (crypto/ecdh, crypto/mlkem).

// hybridFile describes one method's vector file.
type hybridFile struct {
	file             string
	m                *sshMethod
	tests, edgeTests int
	// oracleKEM checks the KEM values of an exchange with an independent
	// implementation, where one exists.
	oracleKEM func(t *testing.T, tc *SSHTest)
}

var mlkemFile = hybridFile{
	file:      "mlkem768x25519-sha256_openssh.json",
	m:         mlkemSSH,
	tests:     14,
	edgeTests: 18,
	oracleKEM: func(t *testing.T, tc *SSHTest) {
		seed := Calls(tc.ClientRandomCalls, "mlkem768_keygen_seed_d_then_z")
		m := Calls(tc.ServerRandomCalls, "mlkem768_encaps_m")
		if len(seed) != 1 || len(m) != 1 {
			t.Fatalf("%v: recorded ML-KEM calls missing", tc)
		}
		key, err := mlkem.NewDecapsulationKey768(seed[0])
		if err != nil || !bytes.Equal(key.EncapsulationKey().Bytes(), tc.ClientKEMPublic) {
			t.Fatalf("%v: crypto/mlkem key differs", tc)
		}
		if k, c, err := mlkemtest.Encapsulate768(key.EncapsulationKey(), m[0]); err != nil || !bytes.Equal(k, tc.KEMSharedSecret) || !bytes.Equal(c, tc.KEMCiphertext) {
			t.Errorf("%v: crypto/mlkem encapsulation differs", tc)
		}
		if k, err := key.Decapsulate(tc.KEMCiphertext); err != nil || !bytes.Equal(k, tc.KEMSharedSecret) {
			t.Errorf("%v: crypto/mlkem decapsulation differs", tc)
		}
	},
}

var sntrupFile = hybridFile{
	file:      "sntrup761x25519-sha512_openssh.json",
	m:         sntrupSSH,
	tests:     15,
	edgeTests: 17,
	// sntrup761 has no second implementation here.
	oracleKEM: func(*testing.T, *SSHTest) {},
}

func TestSSHVectorsMLKEM768X25519(t *testing.T)  { testSSHVectors(t, &mlkemFile) }
func TestSSHVectorsSNTRUP761X25519(t *testing.T) { testSSHVectors(t, &sntrupFile) }
func TestSSHEdgeMLKEM768X25519(t *testing.T)     { testSSHEdge(t, &mlkemFile) }
func TestSSHEdgeSNTRUP761X25519(t *testing.T)    { testSSHEdge(t, &sntrupFile) }

func testSSHVectors(t *testing.T, f *hybridFile) {
	v := readSSH(t, f.file)
	if v.Algorithm != f.m.name {
		t.Fatalf("file is for %q", v.Algorithm)
	}
	if len(v.Tests) != f.tests || len(v.EdgeTests) != f.edgeTests {
		t.Fatalf("%d exchanges and %d edge cases, want %d and %d", len(v.Tests), len(v.EdgeTests), f.tests, f.edgeTests)
	}
	tr := &v.Transcript
	if len(tr.IC) == 0 || tr.IC[0] != 20 || len(tr.IS) == 0 || tr.IS[0] != 20 {
		t.Fatal("I_C and I_S must be whole KEXINIT payloads")
	}
	if strings.ContainsAny(tr.VC+tr.VS, "\r\n") {
		t.Fatal("V_C and V_S must not carry CR LF")
	}

	if n := report(t, RunSSH(v)); n != f.tests+f.edgeTests {
		t.Errorf("%d vectors passed, want %d", n, f.tests+f.edgeTests)
	}

	// The intermediate secrets with the oracles; the signature does not
	// verify over a wrong H.
	hostKey := ed25519.PublicKey(tr.HostKeyPublic)
	for i := range v.Tests {
		tc := &v.Tests[i]
		if !bytes.Equal(ecdhPublic(t, tc.ClientX25519Priv), tc.ClientX25519Pub) || !bytes.Equal(ecdhPublic(t, tc.ServerX25519Priv), tc.ServerX25519Pub) {
			t.Errorf("%v: crypto/ecdh X25519 public keys differ", tc)
		}
		for _, p := range [][2][]byte{{tc.ClientX25519Priv, tc.ServerX25519Pub}, {tc.ServerX25519Priv, tc.ClientX25519Pub}} {
			if s, err := ecdhX25519(p[0], p[1]); err != nil || !bytes.Equal(s, tc.X25519Shared) {
				t.Errorf("%v: crypto/ecdh X25519 shared secret differs", tc)
			}
		}
		f.oracleKEM(t, tc)
		sig, ok := parseStrings(tc.SignatureBlob, 2)
		if !ok || len(sig[1]) != ed25519.SignatureSize {
			t.Fatalf("%v: bad signature blob", tc)
		}
		badH := bytes.Clone(tc.H)
		badH[0] ^= 1
		if ed25519.Verify(hostKey, badH, sig[1]) {
			t.Fatalf("%v: signature verifies over a wrong H", tc)
		}
	}
}

// testSSHEdge checks that the edge cases cover what they should (each
// kind classified from the input itself and independent oracles, not from
// this module's code), and the bit-255 cases with crypto/ecdh. RunSSH,
// run by testSSHVectors, checks pqkex's outcome for each.
func testSSHEdge(t *testing.T, f *hybridFile) {
	v := readSSH(t, f.file)
	m := f.m
	counts := map[string]int{}
	for i := range v.EdgeTests {
		tc := &v.EdgeTests[i]
		switch {
		case tc.Result == "reject":
			counts[tc.Role+" rejects "+edgeKind(m, tc)]++
		case tc.KMasked != nil:
			counts["bit255"]++
			// OpenSSH does not clear bit 255 of the peer's key; RFC 7748
			// (crypto/ecdh) does, and the vector shows both results.
			peerPub, priv := tc.QS[m.kemCiphertextSize:], tc.ClientX25519Priv
			if tc.Role == "server" {
				peerPub, priv = tc.QC[m.kemPublicSize:], tc.ServerX25519Priv
			}
			if s, err := ecdhX25519(priv, peerPub); err != nil || !bytes.Equal(s, tc.X25519SharedMasked) {
				t.Errorf("edge tcId %d: crypto/ecdh does not give the masked X25519 secret", tc.TcID)
			}
			if bytes.Equal(tc.KMasked, tc.K) || bytes.Equal(tc.X25519Shared, tc.X25519SharedMasked) {
				t.Errorf("edge tcId %d: the vector no longer shows OpenSSH's difference", tc.TcID)
			}
		default:
			counts["implicit rejection"]++
		}
	}
	t.Logf("%d edge cases: %v", len(v.EdgeTests), counts)
	want := map[string]int{
		"server rejects length": 2, "server rejects x25519": 7,
		"client rejects length": 1, "client rejects x25519": 3,
		"bit255": 2, "implicit rejection": 2,
	}
	if m == mlkemSSH {
		want["server rejects ek"] = 1
	}
	if !maps.Equal(counts, want) {
		t.Errorf("edge case coverage %v, want %v", counts, want)
	}
}
