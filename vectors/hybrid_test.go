package vectors

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"io"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/mlkem768x25519/mlkem768x25519test"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"github.com/pqkex/pqkex/sntrup761x25519/sntrup761x25519test"
)

// The OpenSSH-generated SSH vectors, run through the method packages and
// kexhash: every exchange byte-exact (C_INIT, both payloads, S_REPLY, K,
// H, derived keys, the host key signature over H), and every invalid or
// edge case with its documented outcome.

type hybridClient interface {
	Init() []byte
	Finish(serverReply []byte) ([]byte, error)
}

// hybridMethod describes one method for the generic tests below.
type hybridMethod struct {
	file             string
	name             string
	hash             crypto.Hash
	initSize         int
	replySize        int
	kemPublicSize    int
	kemCiphertext    int
	kemPrivateSize   int
	x25519ClientOff  int // offset of the X25519 private key in the client stream
	x25519ServerOff  int // offset of the X25519 private key in the server stream
	tests, edgeTests int
	newClient        func(io.Reader) (hybridClient, error)
	newClientKeys    func(kemKey, x25519Private []byte) (hybridClient, error)
	respond          func(io.Reader, []byte) ([]byte, []byte, error)
	// clientKEMKey derives the client's KEM private key (in the vector
	// file's form) from the client stream with the KEM backend alone.
	clientKEMKey func(t *testing.T, stream io.Reader) []byte
	// checkKEM checks the KEM values of a positive test with the backend
	// and, where one exists, the oracle.
	checkKEM func(t *testing.T, tc *SSHTest)
}

var mlkemMethod = hybridMethod{
	file:            "mlkem768x25519-sha256_openssh.json",
	name:            mlkem768x25519.Name,
	hash:            mlkem768x25519.Hash,
	initSize:        mlkem768x25519.ClientInitSize,
	replySize:       mlkem768x25519.ServerReplySize,
	kemPublicSize:   1184,
	kemCiphertext:   1088,
	kemPrivateSize:  2400,
	x25519ClientOff: 64,
	x25519ServerOff: 32,
	tests:           14,
	edgeTests:       18,
	newClient: func(r io.Reader) (hybridClient, error) {
		c, err := mlkem768x25519.NewClient(r)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	newClientKeys: func(k, x []byte) (hybridClient, error) {
		c, err := mlkem768x25519test.NewClient(k, x)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	respond: mlkem768x25519.Respond,
	clientKEMKey: func(t *testing.T, stream io.Reader) []byte {
		seed := make([]byte, 64)
		io.ReadFull(stream, seed)
		_, dk, _, _ := circlKeyFromSeed(seed)
		return dk
	},
	checkKEM: func(t *testing.T, tc *SSHTest) {
		seed := Calls(tc.ClientRandomCalls, "mlkem768_keygen_seed_d_then_z")
		m := Calls(tc.ServerRandomCalls, "mlkem768_encaps_m")
		if len(seed) != 1 || len(m) != 1 {
			t.Fatalf("%v: recorded ML-KEM calls missing", tc)
		}
		ek, dk, sk, _ := circlKeyFromSeed(seed[0])
		if !bytes.Equal(ek, tc.ClientKEMPublic) || !bytes.Equal(dk, tc.ClientKEMPrivate) {
			t.Errorf("%v: circl ML-KEM key differs", tc)
		}
		if k, c, _ := circlEncaps(ek, m[0]); !bytes.Equal(k, tc.KEMSharedSecret) || !bytes.Equal(c, tc.KEMCiphertext) {
			t.Errorf("%v: circl encapsulation differs", tc)
		}
		if k, _ := circlDecaps(sk, tc.KEMCiphertext); !bytes.Equal(k, tc.KEMSharedSecret) {
			t.Errorf("%v: circl decapsulation differs", tc)
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

var sntrupMethod = hybridMethod{
	file:            "sntrup761x25519-sha512_openssh.json",
	name:            sntrup761x25519.Name,
	hash:            sntrup761x25519.Hash,
	initSize:        sntrup761x25519.ClientInitSize,
	replySize:       sntrup761x25519.ServerReplySize,
	kemPublicSize:   1158,
	kemCiphertext:   1039,
	kemPrivateSize:  1763,
	x25519ClientOff: 3044 + 3044 + 191, // if g is invertible at once
	x25519ServerOff: 3044,
	tests:           15,
	edgeTests:       17,
	newClient: func(r io.Reader) (hybridClient, error) {
		c, err := sntrup761x25519.NewClient(r)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	newClientKeys: func(k, x []byte) (hybridClient, error) {
		c, err := sntrup761x25519test.NewClient(k, x)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	respond: sntrup761x25519.Respond,
	clientKEMKey: func(t *testing.T, stream io.Reader) []byte {
		dk, err := sntrup761test.GenerateKey(stream)
		if err != nil {
			t.Fatal(err)
		}
		return dk.Bytes()
	},
	// The sntrup761 half of every exchange is checked by
	// TestSNTRUP761OpenSSH; sntrup761 has no second implementation here.
	checkKEM: func(*testing.T, *SSHTest) {},
}

// sshString appends the SSH string encoding of b, written out here rather
// than taken from kexhash.
func sshString(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// parseStrings splits b into SSH strings; ok is false unless b is exactly
// a sequence of n strings.
func parseStrings(b []byte, n int) (out [][]byte, ok bool) {
	for range n {
		if len(b) < 4 {
			return nil, false
		}
		l := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(l) {
			return nil, false
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	return out, len(b) == 0
}

func hashOf(h crypto.Hash, b []byte) []byte {
	switch h {
	case crypto.SHA256:
		s := sha256.Sum256(b)
		return s[:]
	case crypto.SHA512:
		s := sha512.Sum512(b)
		return s[:]
	}
	panic("unexpected hash")
}

func TestSSHVectorsMLKEM768X25519(t *testing.T)  { testSSHVectors(t, &mlkemMethod) }
func TestSSHVectorsSNTRUP761X25519(t *testing.T) { testSSHVectors(t, &sntrupMethod) }
func TestSSHEdgeMLKEM768X25519(t *testing.T)     { testSSHEdge(t, &mlkemMethod) }
func TestSSHEdgeSNTRUP761X25519(t *testing.T)    { testSSHEdge(t, &sntrupMethod) }

// checkTranscript checks the fixed transcript and returns the host key.
func checkTranscript(t *testing.T, v *SSHFile) ed25519.PublicKey {
	tr := &v.Transcript
	if len(tr.IC) == 0 || tr.IC[0] != 20 || len(tr.IS) == 0 || tr.IS[0] != 20 {
		t.Fatal("I_C and I_S must be whole KEXINIT payloads")
	}
	if strings.ContainsAny(tr.VC+tr.VS, "\r\n") {
		t.Fatal("V_C and V_S must not carry CR LF")
	}
	priv := ed25519.NewKeyFromSeed(tr.HostKeySeed)
	pub := priv.Public().(ed25519.PublicKey)
	if !bytes.Equal(pub, tr.HostKeyPublic) {
		t.Fatal("host key seed and public key differ")
	}
	if want := sshString(sshString(nil, []byte("ssh-ed25519")), pub); !bytes.Equal(tr.KS, want) {
		t.Fatal("K_S is not the ssh-ed25519 blob of the host key")
	}
	return pub
}

func testSSHVectors(t *testing.T, m *hybridMethod) {
	v := readSSH(t, m.file)
	if v.Algorithm != m.name {
		t.Fatalf("file is for %q", v.Algorithm)
	}
	if len(v.Tests) != m.tests {
		t.Fatalf("%d exchanges, want %d", len(v.Tests), m.tests)
	}
	hostKey := checkTranscript(t, v)
	hostPriv := ed25519.NewKeyFromSeed(v.Transcript.HostKeySeed)
	tr := &v.Transcript

	for i := range v.Tests {
		tc := &v.Tests[i]
		// Client: every recorded random call, in order.
		cr := &callReader{allCalls(tc.ClientRandomCalls)}
		client, err := m.newClient(cr)
		if err != nil {
			t.Fatalf("%v: NewClient: %v", tc, err)
		}
		if !cr.done() {
			t.Errorf("%v: NewClient left recorded random calls unused", tc)
		}
		init := client.Init()
		if !bytes.Equal(init, tc.QC) || len(init) != m.initSize {
			t.Errorf("%v: C_INIT differs", tc)
		}
		if !bytes.Equal(tc.QC, append(bytes.Clone(tc.ClientKEMPublic), tc.ClientX25519Pub...)) {
			t.Errorf("%v: Q_C is not KEM public key || X25519 public key", tc)
		}
		if !bytes.Equal(tc.InitPayload, sshString([]byte{30}, init)) {
			t.Errorf("%v: SSH_MSG_KEX_ECDH_INIT payload differs", tc)
		}

		// Server.
		sr := &callReader{allCalls(tc.ServerRandomCalls)}
		reply, kS, err := m.respond(sr, tc.QC)
		if err != nil {
			t.Fatalf("%v: Respond: %v", tc, err)
		}
		if !sr.done() {
			t.Errorf("%v: Respond left recorded random calls unused", tc)
		}
		if !bytes.Equal(reply, tc.QS) || len(reply) != m.replySize {
			t.Errorf("%v: S_REPLY differs", tc)
		}
		if !bytes.Equal(tc.QS, append(bytes.Clone(tc.KEMCiphertext), tc.ServerX25519Pub...)) {
			t.Errorf("%v: Q_S is not ciphertext || X25519 public key", tc)
		}
		if !bytes.Equal(kS, tc.K) {
			t.Errorf("%v: server K = %x, want %x", tc, kS, tc.K)
		}

		// Client finish.
		kC, err := client.Finish(tc.QS)
		if err != nil || !bytes.Equal(kC, tc.K) {
			t.Errorf("%v: client K = %x, %v; want %x", tc, kC, err, tc.K)
		}
		if _, err := client.Finish(tc.QS); err == nil {
			t.Errorf("%v: second Finish succeeded", tc)
		}

		// K's encoding and the intermediate secrets, with the backends
		// and oracles.
		if !bytes.Equal(tc.HashInput, append(bytes.Clone(tc.KEMSharedSecret), tc.X25519Shared...)) ||
			!bytes.Equal(tc.SharedSecretHash, hashOf(m.hash, tc.HashInput)) ||
			!bytes.Equal(tc.K, sshString(nil, tc.SharedSecretHash)) {
			t.Errorf("%v: K is not string(HASH(K_PQ || K_CL))", tc)
		}
		x := Calls(tc.ClientRandomCalls, "x25519_client_private")
		xs := Calls(tc.ServerRandomCalls, "x25519_server_private")
		if len(x) != 1 || len(xs) != 1 || !bytes.Equal(x[0], tc.ClientX25519Priv) || !bytes.Equal(xs[0], tc.ServerX25519Priv) {
			t.Fatalf("%v: X25519 private keys are not the recorded calls", tc)
		}
		if !bytes.Equal(ecdhPublic(t, tc.ClientX25519Priv), tc.ClientX25519Pub) || !bytes.Equal(ecdhPublic(t, tc.ServerX25519Priv), tc.ServerX25519Pub) {
			t.Errorf("%v: X25519 public keys differ", tc)
		}
		for _, p := range [][2][]byte{{tc.ClientX25519Priv, tc.ServerX25519Pub}, {tc.ServerX25519Priv, tc.ClientX25519Pub}} {
			if s, low := circlX25519(p[0], p[1]); low || !bytes.Equal(s, tc.X25519Shared) {
				t.Errorf("%v: circl X25519 shared secret differs", tc)
			}
			if s, err := ecdhX25519(p[0], p[1]); err != nil || !bytes.Equal(s, tc.X25519Shared) {
				t.Errorf("%v: crypto/ecdh X25519 shared secret differs", tc)
			}
		}
		m.checkKEM(t, tc)

		// Exchange hash.
		H := kexhash.ExchangeHash(m.hash, []byte(tr.VC), []byte(tr.VS), tr.IC, tr.IS, tr.KS, init, reply, kC)
		if !bytes.Equal(H, tc.H) {
			t.Errorf("%v: H = %x, want %x", tc, H, tc.H)
		}

		// Key derivation (session_id = H): all six letters, 128 bytes and
		// shorter prefixes.
		if len(tc.DerivedKeys) != 6 {
			t.Errorf("%v: %d derived keys, want 6", tc, len(tc.DerivedKeys))
		}
		for _, letter := range []byte("ABCDEF") {
			want := tc.DerivedKeys[string(letter)]
			if len(want) != 128 {
				t.Fatalf("%v: key %c has %d bytes", tc, letter, len(want))
			}
			for _, n := range []int{16, 32, 64, 100, 128} {
				if got := kexhash.DeriveKey(m.hash, kC, H, H, letter, n); !bytes.Equal(got, want[:n]) {
					t.Errorf("%v: key %c (%d bytes) differs", tc, letter, n)
				}
			}
		}

		// The server's signature over H, verified with the transcript's
		// host key; Ed25519 is deterministic, so it must also be
		// reproducible.
		sig, ok := parseStrings(tc.SignatureBlob, 2)
		if !ok || string(sig[0]) != "ssh-ed25519" || len(sig[1]) != ed25519.SignatureSize {
			t.Fatalf("%v: bad signature blob", tc)
		}
		if !ed25519.Verify(hostKey, H, sig[1]) {
			t.Errorf("%v: host key signature over H does not verify", tc)
		}
		if !bytes.Equal(ed25519.Sign(hostPriv, H), sig[1]) {
			t.Errorf("%v: signature over H is not reproducible", tc)
		}
		badH := bytes.Clone(H)
		badH[0] ^= 1
		if ed25519.Verify(hostKey, badH, sig[1]) {
			t.Fatalf("%v: signature verifies over a wrong H", tc)
		}
		want := []byte{31}
		want = sshString(want, tr.KS)
		want = sshString(want, reply)
		want = sshString(want, tc.SignatureBlob)
		if !bytes.Equal(tc.ReplyPayload, want) {
			t.Errorf("%v: SSH_MSG_KEX_ECDH_REPLY payload differs", tc)
		}

		// The same exchange through the test package's explicit keys.
		c2, err := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c2.Init(), tc.QC) {
			t.Errorf("%v: C_INIT from explicit keys differs", tc)
		}
		if k, err := c2.Finish(tc.QS); err != nil || !bytes.Equal(k, tc.K) {
			t.Errorf("%v: K from explicit keys differs (%v)", tc, err)
		}
	}
	t.Logf("%d exchanges reproduced byte-exact", len(v.Tests))
}

// edgeKind classifies an edge case by what is wrong with the input, from
// the input itself and independent oracles (not from this module's code).
func edgeKind(m *hybridMethod, tc *SSHEdgeTest) string {
	switch {
	case tc.Role == "server" && len(tc.QC) != m.initSize:
		return "length"
	case tc.Role == "client" && len(tc.QS) != m.replySize:
		return "length"
	case tc.Role == "server" && m.kemPrivateSize == 2400:
		if _, err := mlkem.NewEncapsulationKey768(tc.QC[:m.kemPublicSize]); err != nil {
			return "ek"
		}
	}
	return "x25519"
}

func testSSHEdge(t *testing.T, m *hybridMethod) {
	v := readSSH(t, m.file)
	if len(v.EdgeTests) != m.edgeTests {
		t.Fatalf("%d edge cases, want %d", len(v.EdgeTests), m.edgeTests)
	}
	counts := map[string]int{}
	for i := range v.EdgeTests {
		tc := &v.EdgeTests[i]
		name := "edge tcId " + strconv.Itoa(tc.TcID) + " (" + tc.Comment + ")"
		if tc.Result != "accept" && tc.Result != "reject" {
			t.Fatalf("%s: result %q", name, tc.Result)
		}
		var k, reply []byte
		var err error
		switch tc.Role {
		case "server":
			stream := shakeStream(tc.ServerStream)
			reply, k, err = m.respond(stream, tc.QC)
			if tc.ServerX25519Priv != nil {
				s := make([]byte, m.x25519ServerOff+32)
				io.ReadFull(shakeStream(tc.ServerStream), s)
				if !bytes.Equal(s[m.x25519ServerOff:], tc.ServerX25519Priv) {
					t.Fatalf("%s: the server stream does not give the recorded X25519 key", name)
				}
			}
		case "client":
			// The client's keys come from its stream; check them against
			// the recorded keys with the backends alone.
			s := make([]byte, m.x25519ClientOff+32)
			io.ReadFull(shakeStream(tc.ClientStream), s)
			if !bytes.Equal(s[m.x25519ClientOff:], tc.ClientX25519Priv) {
				t.Fatalf("%s: the client stream does not give the recorded X25519 key", name)
			}
			if !bytes.Equal(m.clientKEMKey(t, shakeStream(tc.ClientStream)), tc.ClientKEMPrivate) {
				t.Fatalf("%s: the client stream does not give the recorded KEM key", name)
			}
			c, err2 := m.newClient(shakeStream(tc.ClientStream))
			if err2 != nil {
				t.Fatal(err2)
			}
			if !bytes.Equal(c.Init(), tc.QC) {
				t.Errorf("%s: C_INIT differs", name)
			}
			k, err = c.Finish(tc.QS)
			// The same through the test package's explicit keys.
			c2, err2 := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
			if err2 != nil {
				t.Fatal(err2)
			}
			k2, err2 := c2.Finish(tc.QS)
			if !bytes.Equal(k, k2) || (err == nil) != (err2 == nil) {
				t.Errorf("%s: explicit keys give a different outcome", name)
			}
		default:
			t.Fatalf("%s: role %q", name, tc.Role)
		}
		kind := edgeKind(m, tc)
		if tc.Result == "reject" {
			counts[tc.Role+" rejects "+kind]++
			if err == nil {
				t.Errorf("%s: accepted, OpenSSH rejects", name)
				continue
			}
			peer := map[string]string{"server": "client's ", "client": "server's "}[tc.Role]
			want := map[string]string{
				"length": peer + map[string]string{"server": "C_INIT has ", "client": "S_REPLY has "}[tc.Role],
				"ek":     peer + "ML-KEM-768 encapsulation key is invalid",
				"x25519": peer + "X25519 public key is a low-order point",
			}[kind]
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q, want it to say %q", name, err, want)
			}
			continue
		}

		if err != nil {
			t.Errorf("%s: rejected (%v), OpenSSH accepts", name, err)
			continue
		}
		if tc.Role == "server" && !bytes.Equal(reply, tc.QS) {
			t.Errorf("%s: S_REPLY differs", name)
		}
		if tc.KMasked != nil {
			// A peer X25519 key with bit 255 set: we follow RFC 7748 (the
			// bit is ignored, as crypto/ecdh does), OpenSSH does not.
			peerPub := tc.QS[m.kemCiphertext:]
			priv := tc.ClientX25519Priv
			if tc.Role == "server" {
				peerPub, priv = tc.QC[m.kemPublicSize:], tc.ServerX25519Priv
			}
			if peerPub[31]&0x80 == 0 {
				t.Fatalf("%s: peer key does not have bit 255 set", name)
			}
			if s, err := ecdhX25519(priv, peerPub); err != nil || !bytes.Equal(s, tc.X25519SharedMasked) {
				t.Errorf("%s: crypto/ecdh does not give the masked X25519 secret", name)
			}
			if !bytes.Equal(k, tc.KMasked) {
				t.Errorf("%s: K = %x, want the RFC 7748 value %x", name, k, tc.KMasked)
			}
			if tc.Role == "server" {
				// The client whose share was altered, finishing with its
				// honest key, agrees with our server: the bit is ignored.
				c, err := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
				if err != nil {
					t.Fatal(err)
				}
				if kc, err := c.Finish(reply); err != nil || !bytes.Equal(kc, k) {
					t.Errorf("%s: the client derives a different K (%v)", name, err)
				}
			}
			if bytes.Equal(k, tc.K) || bytes.Equal(tc.X25519Shared, tc.X25519SharedMasked) {
				t.Errorf("%s: the vector no longer shows OpenSSH's difference", name)
			}
			counts["bit255"]++
			continue
		}
		// A modified ciphertext: implicit rejection, K as OpenSSH derives it.
		if !bytes.Equal(k, tc.K) {
			t.Errorf("%s: K = %x, want %x", name, k, tc.K)
		}
		counts["implicit rejection"]++
	}
	t.Logf("%d edge cases: %v", len(v.EdgeTests), counts)
	want := map[string]int{
		"server rejects length": 2, "server rejects x25519": 7,
		"client rejects length": 1, "client rejects x25519": 3,
		"bit255": 2, "implicit rejection": 2,
	}
	if m.kemPrivateSize == 2400 {
		want["server rejects ek"] = 1
	}
	if !maps.Equal(counts, want) {
		t.Errorf("edge case coverage %v, want %v", counts, want)
	}
}
