package mlkem768x25519_test

import (
	"bytes"
	"crypto"
	"crypto/mlkem"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/mlkem768x25519"
)

// TestConstants pins the exported values to the specification (RFC 10042
// section 2.3.3 and 3; FIPS 203 table 3).
func TestConstants(t *testing.T) {
	if mlkem768x25519.Name != "mlkem768x25519-sha256" {
		t.Errorf("Name = %q", mlkem768x25519.Name)
	}
	if mlkem768x25519.Hash != crypto.SHA256 {
		t.Errorf("Hash = %v", mlkem768x25519.Hash)
	}
	for _, c := range []struct {
		name       string
		got, want1 int
		want2      int
	}{
		{"ClientInitSize", mlkem768x25519.ClientInitSize, 1216, mlkem.EncapsulationKeySize768 + 32},
		{"ServerReplySize", mlkem768x25519.ServerReplySize, 1120, mlkem.CiphertextSize768 + 32},
	} {
		if c.got != c.want1 || c.got != c.want2 {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want1)
		}
	}
	if mlkem768x25519.SharedSecretSize != 36 {
		t.Errorf("SharedSecretSize = %d", mlkem768x25519.SharedSecretSize)
	}
}

func TestRoundTrip(t *testing.T) {
	for i := range 20 {
		c, err := mlkem768x25519.NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		init := c.Init()
		if len(init) != mlkem768x25519.ClientInitSize {
			t.Fatalf("C_INIT has %d bytes", len(init))
		}
		reply, kS, err := mlkem768x25519.Respond(nil, init)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply) != mlkem768x25519.ServerReplySize {
			t.Fatalf("S_REPLY has %d bytes", len(reply))
		}
		kC, err := c.Finish(reply)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kC, kS) {
			t.Fatalf("exchange %d: client and server K differ", i)
		}
		if len(kC) != 36 || !bytes.Equal(kC[:4], []byte{0, 0, 0, 32}) {
			t.Fatalf("K = %x..., want an SSH string of 32 bytes", kC[:8])
		}
		if _, err := c.Finish(reply); err == nil {
			t.Fatal("second Finish succeeded")
		}
	}
}

// TestInitIsACopy checks that Init's result does not alias the Client.
func TestInitIsACopy(t *testing.T) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Init()
	a[0] ^= 0xff
	if b := c.Init(); b[0] == a[0] {
		t.Fatal("Init returns the Client's own buffer")
	}
}

// fixedRand is a deterministic stream for tests: SHA-256 in counter mode.
type fixedRand struct {
	seed string
	n    int
	buf  []byte
}

func (r *fixedRand) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) {
		s := sha256.Sum256([]byte(r.seed + string(rune(r.n))))
		r.n++
		r.buf = append(r.buf, s[:]...)
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestRandomnessOrder checks what NewClient and Respond read from rand, and
// in which order: the client 64 bytes ML-KEM seed then 32 bytes X25519,
// the server 32 bytes m then 32 bytes X25519 (the OpenSSH order).
func TestRandomnessOrder(t *testing.T) {
	var stream [96]byte
	(&fixedRand{seed: "client"}).Read(stream[:])
	c1, err := mlkem768x25519.NewClient(bytes.NewReader(stream[:]))
	if err != nil {
		t.Fatal(err)
	}
	// The engine's explicit-key constructor is the reference for what
	// NewClient must have read.
	m := &hybrid.MLKEM768X25519
	var c2 hybrid.Client
	if err := m.NewClientWithKeys(&c2, stream[:64], stream[64:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1.Init(), m.Init(&c2)) {
		t.Fatal("NewClient does not read seed then X25519 key")
	}
	dk, err := mlkem.NewDecapsulationKey768(stream[:64])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1.Init()[:1184], dk.EncapsulationKey().Bytes()) {
		t.Fatal("C_INIT does not start with the crypto/mlkem encapsulation key of the seed")
	}

	var srv [64]byte
	(&fixedRand{seed: "server"}).Read(srv[:])
	r1, k1, err := mlkem768x25519.Respond(bytes.NewReader(srv[:]), c1.Init())
	if err != nil {
		t.Fatal(err)
	}
	r2, k2, err := m.RespondWithKeys(c1.Init(), srv[:32], srv[32:])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r1, r2) || !bytes.Equal(k1, k2) {
		t.Fatal("Respond does not read m then X25519 key")
	}
	kC, err := m.Finish(&c2, r1)
	if err != nil || !bytes.Equal(kC, k1) {
		t.Fatalf("Finish: %v, K equal: %v", err, bytes.Equal(kC, k1))
	}

	// A short stream is an error, not a panic or a weak key.
	if _, err := mlkem768x25519.NewClient(bytes.NewReader(stream[:95])); err == nil {
		t.Error("NewClient succeeded on 95 random bytes")
	}
	if _, _, err := mlkem768x25519.Respond(bytes.NewReader(srv[:63]), c1.Init()); err == nil {
		t.Error("Respond succeeded on 63 random bytes")
	}
	errRand := errors.New("no randomness today")
	_, err = mlkem768x25519.NewClient(io.MultiReader(bytes.NewReader(stream[:10]), iotestErrReader{errRand}))
	if !errors.Is(err, errRand) {
		t.Errorf("NewClient error %v does not wrap the reader's error", err)
	}
}

type iotestErrReader struct{ err error }

func (r iotestErrReader) Read([]byte) (int, error) { return 0, r.err }

// errorHasNoSecrets checks that err names the peer and contains no long
// hex or raw substring of any of the given values.
func errorHasNoSecrets(t *testing.T, err error, who string, values ...[]byte) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "mlkem768x25519: ") {
		t.Errorf("error %q lacks the package prefix", msg)
	}
	if !strings.Contains(msg, who) {
		t.Errorf("error %q does not say it is the %s value", msg, who)
	}
	for _, v := range values {
		for i := 0; i+8 <= len(v); i += 8 {
			if strings.Contains(msg, hex.EncodeToString(v[i:i+8])) || strings.Contains(msg, string(v[i:i+8])) {
				t.Errorf("error %q contains input bytes", msg)
			}
		}
	}
}

func TestRejectLengths(t *testing.T) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	for _, n := range []int{0, 1, 32, 1184, 1215, 1217, 2432} {
		in := make([]byte, n)
		copy(in, init)
		_, _, err := mlkem768x25519.Respond(nil, in)
		errorHasNoSecrets(t, err, "client's C_INIT", in)
		if want := "has " + strconv.Itoa(n) + " bytes, want 1216"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	reply, _, err := mlkem768x25519.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1088, 1119, 1121} {
		c, err := mlkem768x25519.NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		in := make([]byte, n)
		copy(in, reply)
		_, err = c.Finish(in)
		errorHasNoSecrets(t, err, "server's S_REPLY", in)
		if want := "has " + strconv.Itoa(n) + " bytes, want 1120"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		// The Client is spent even after a failed Finish.
		if _, err := c.Finish(reply); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("Finish after a failed Finish: %v", err)
		}
	}
}

// lowOrder holds the X25519 public keys of small order (RFC 7748 section 7
// lists them; the canonical ones and their encodings plus p, with and
// without bit 255).
var lowOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000", // 0
	"0100000000000000000000000000000000000000000000000000000000000000", // 1
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", // order 8
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157", // order 8
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p-1
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p+1
	"0000000000000000000000000000000000000000000000000000000000000080", // 0 with bit 255
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // p with bit 255
}

func TestRejectLowOrderX25519(t *testing.T) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	reply, _, err := mlkem768x25519.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range lowOrder {
		p, _ := hex.DecodeString(h)
		in := append(bytes.Clone(init[:1184]), p...)
		_, _, err := mlkem768x25519.Respond(nil, in)
		errorHasNoSecrets(t, err, "client's X25519", in)

		c, err := mlkem768x25519.NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Finish(append(bytes.Clone(reply[:1088]), p...))
		errorHasNoSecrets(t, err, "server's X25519", reply)
	}
}

func TestRejectEncapsulationKey(t *testing.T) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	// Set the first 12-bit coefficient to q = 3329 (0xd01), the smallest
	// value the FIPS 203 section 7.2 modulus check rejects, then to 4095.
	for _, v := range []uint16{3329, 4095} {
		in := bytes.Clone(init)
		in[0] = byte(v)
		in[1] = in[1]&0xf0 | byte(v>>8)
		_, _, err := mlkem768x25519.Respond(nil, in)
		errorHasNoSecrets(t, err, "client's ML-KEM-768 encapsulation key", in)
	}
	// 3328 = q-1 is fine.
	in := bytes.Clone(init)
	in[0], in[1] = 0x00, in[1]&0xf0|0x0d
	if _, _, err := mlkem768x25519.Respond(nil, in); err != nil {
		t.Errorf("coefficient q-1 rejected: %v", err)
	}
}

// TestTamperedCiphertext checks implicit rejection: a modified ciphertext
// is not an error but gives a different K.
func TestTamperedCiphertext(t *testing.T) {
	for _, i := range []int{0, 500, 1087} {
		c, err := mlkem768x25519.NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := mlkem768x25519.Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		reply[i] ^= 0x01
		kC, err := c.Finish(reply)
		if err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		if bytes.Equal(kC, kS) {
			t.Fatalf("byte %d: tampered ciphertext gives the same K", i)
		}
	}
}

func TestZeroClient(t *testing.T) {
	var c mlkem768x25519.Client
	if _, err := c.Finish(make([]byte, mlkem768x25519.ServerReplySize)); err == nil {
		t.Error("Finish on a zero Client succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("Init on a zero Client did not panic")
		}
	}()
	c.Init()
}

// TestFinishKeepsInit checks that C_INIT stays available after Finish (it
// is public and is needed for the exchange hash).
func TestFinishKeepsInit(t *testing.T) {
	c, err := mlkem768x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	reply, _, err := mlkem768x25519.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Finish(reply); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Init(), init) {
		t.Error("C_INIT changed after Finish")
	}
}
