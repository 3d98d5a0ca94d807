package sntrup761x25519_test

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// TestConstants pins the exported values to RFC 9941 section 3.
func TestConstants(t *testing.T) {
	if sntrup761x25519.Name != "sntrup761x25519-sha512" {
		t.Errorf("Name = %q", sntrup761x25519.Name)
	}
	if sntrup761x25519.AliasName != "sntrup761x25519-sha512@openssh.com" {
		t.Errorf("AliasName = %q", sntrup761x25519.AliasName)
	}
	if sntrup761x25519.Hash != crypto.SHA512 {
		t.Errorf("Hash = %v", sntrup761x25519.Hash)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"ClientInitSize", sntrup761x25519.ClientInitSize, 1190},
		{"ServerReplySize", sntrup761x25519.ServerReplySize, 1071},
		{"SharedSecretSize", sntrup761x25519.SharedSecretSize, 68},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for i := range 5 {
		c, err := sntrup761x25519.NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		init := c.Init()
		if len(init) != sntrup761x25519.ClientInitSize {
			t.Fatalf("C_INIT has %d bytes", len(init))
		}
		reply, kS, err := sntrup761x25519.Respond(nil, init)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply) != sntrup761x25519.ServerReplySize {
			t.Fatalf("S_REPLY has %d bytes", len(reply))
		}
		kC, err := c.Finish(reply)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kC, kS) {
			t.Fatalf("exchange %d: client and server K differ", i)
		}
		if len(kC) != 68 || !bytes.Equal(kC[:4], []byte{0, 0, 0, 64}) {
			t.Fatalf("K = %x..., want an SSH string of 64 bytes", kC[:8])
		}
		if _, err := c.Finish(reply); err == nil {
			t.Fatal("second Finish succeeded")
		}
		if !bytes.Equal(c.Init(), init) {
			t.Fatal("C_INIT changed after Finish")
		}
	}
}

func TestInitIsACopy(t *testing.T) {
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Init()
	a[0] ^= 0xff
	if b := c.Init(); b[0] == a[0] {
		t.Fatal("Init returns the Client's own buffer")
	}
}

// stream returns n deterministic bytes: SHA-256 in counter mode.
func stream(label string, n int) []byte {
	var out []byte
	for i := 0; len(out) < n; i++ {
		s := sha256.Sum256([]byte(label + strconv.Itoa(i)))
		out = append(out, s[:]...)
	}
	return out[:n]
}

// TestRandomnessOrder checks what NewClient and Respond read from rand and
// in which order: sntrup761 key generation (g, f, rho) then X25519; r then
// X25519.
func TestRandomnessOrder(t *testing.T) {
	s := stream("client", 3044+3044+191+32)
	c1, err := sntrup761x25519.NewClient(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	// The engine's explicit-key constructor is the reference for what
	// NewClient must have read.
	m := &hybrid.SNTRUP761X25519
	var c2 hybrid.Client
	if err := m.NewClientWithKeys(&c2, dk.Bytes(), s[len(s)-32:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1.Init(), m.Init(&c2)) {
		t.Fatal("NewClient does not read the sntrup761 key then the X25519 key")
	}
	if !bytes.Equal(c1.Init()[:1158], dk.EncapsulationKey().Bytes()) {
		t.Fatal("C_INIT does not start with the sntrup761 public key")
	}

	srv := stream("server", 3044+32)
	r1, k1, err := sntrup761x25519.Respond(bytes.NewReader(srv), c1.Init())
	if err != nil {
		t.Fatal(err)
	}
	r2, k2, err := m.RespondWithKeys(c1.Init(), srv[:3044], srv[3044:])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r1, r2) || !bytes.Equal(k1, k2) {
		t.Fatal("Respond does not read r then the X25519 key")
	}
	_, ct, err := sntrup761test.Encapsulate(dk.EncapsulationKey(), bytes.NewReader(srv))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r1[:1039], ct) {
		t.Fatal("S_REPLY does not start with the sntrup761 ciphertext")
	}
	kC, err := m.Finish(&c2, r1)
	if err != nil || !bytes.Equal(kC, k1) {
		t.Fatalf("Finish: %v, K equal: %v", err, bytes.Equal(kC, k1))
	}

	if _, err := sntrup761x25519.NewClient(bytes.NewReader(s[:len(s)-1])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("NewClient on a short stream: %v", err)
	}
	if _, err := sntrup761x25519.NewClient(bytes.NewReader(s[:100])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("NewClient on a very short stream: %v", err)
	}
	if _, _, err := sntrup761x25519.Respond(bytes.NewReader(srv[:3075]), c1.Init()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Respond on a short stream: %v", err)
	}
	errRand := errors.New("no randomness today")
	_, err = sntrup761x25519.NewClient(io.MultiReader(bytes.NewReader(s[:3044]), errReader{errRand}))
	if !errors.Is(err, errRand) || !strings.HasPrefix(err.Error(), "sntrup761x25519: reading randomness: ") {
		t.Errorf("NewClient error %v does not wrap the reader's error", err)
	}
	_, _, err = sntrup761x25519.Respond(errReader{errRand}, c1.Init())
	if !errors.Is(err, errRand) {
		t.Errorf("Respond error %v does not wrap the reader's error", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func errorHasNoSecrets(t *testing.T, err error, who string, values ...[]byte) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "sntrup761x25519: ") {
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
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	for _, n := range []int{0, 1, 32, 1158, 1189, 1191, 2380} {
		in := make([]byte, n)
		copy(in, init)
		_, _, err := sntrup761x25519.Respond(nil, in)
		errorHasNoSecrets(t, err, "client's C_INIT", in)
		if want := "has " + strconv.Itoa(n) + " bytes, want 1190"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	reply, _, err := sntrup761x25519.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1039, 1070, 1072} {
		in := make([]byte, n)
		copy(in, reply)
		_, err = c.Finish(in)
		errorHasNoSecrets(t, err, "server's S_REPLY", in)
		if want := "has " + strconv.Itoa(n) + " bytes, want 1071"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		// The Client is spent even after a failed Finish.
		if _, err := c.Finish(reply); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("Finish after a failed Finish: %v", err)
		}
		if c, err = sntrup761x25519.NewClient(nil); err != nil {
			t.Fatal(err)
		}
	}
}

// lowOrder holds X25519 public keys of small order (RFC 7748 section 7),
// some of them non-canonical or with bit 255 set.
var lowOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
}

func TestRejectLowOrderX25519(t *testing.T) {
	s := stream("low", 3044+3044+191+32)
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sntrup761x25519.NewClientWithKey(copyKey(t, dk), bytes.NewReader(s[len(s)-32:]))
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	reply, _, err := sntrup761x25519.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range lowOrder {
		p, _ := hex.DecodeString(h)
		in := append(bytes.Clone(init[:1158]), p...)
		_, _, err := sntrup761x25519.Respond(nil, in)
		errorHasNoSecrets(t, err, "client's X25519", in)

		c, err := sntrup761x25519.NewClientWithKey(copyKey(t, dk), bytes.NewReader(s[len(s)-32:]))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Finish(append(bytes.Clone(reply[:1039]), p...))
		errorHasNoSecrets(t, err, "server's X25519", reply, dk.Bytes())
	}
}

// TestAnyPublicKey checks that no sntrup761 public key is rejected: the
// decoder is total (all-zero and all-ones keys are accepted).
func TestAnyPublicKey(t *testing.T) {
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := c.Init()[1158:]
	for _, b := range []byte{0x00, 0xff, 0x5a} {
		in := append(bytes.Repeat([]byte{b}, sntrup761.EncapsulationKeySize), x...)
		if _, _, err := sntrup761x25519.Respond(nil, in); err != nil {
			t.Errorf("public key of bytes %02x rejected: %v", b, err)
		}
	}
}

func TestTamperedCiphertext(t *testing.T) {
	s := stream("tamper", 3044+3044+191+32)
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	c0, _ := sntrup761x25519.NewClientWithKey(copyKey(t, dk), bytes.NewReader(s[len(s)-32:]))
	reply, kS, err := sntrup761x25519.Respond(nil, c0.Init())
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 500, 1006, 1007, 1038} {
		c, _ := sntrup761x25519.NewClientWithKey(copyKey(t, dk), bytes.NewReader(s[len(s)-32:]))
		bad := bytes.Clone(reply)
		bad[i] ^= 0x01
		kC, err := c.Finish(bad)
		if err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		if bytes.Equal(kC, kS) {
			t.Fatalf("byte %d: tampered ciphertext gives the same K", i)
		}
	}
	if kC, err := c0.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		t.Fatal("untampered reply does not give the server's K")
	}
}

func TestZeroClient(t *testing.T) {
	var c sntrup761x25519.Client
	if _, err := c.Finish(make([]byte, sntrup761x25519.ServerReplySize)); err == nil {
		t.Error("Finish on a zero Client succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("Init on a zero Client did not panic")
		}
	}()
	c.Init()
}

// TestNewClientWithKey checks that a pooled key gives the same client as
// NewClient reading the same bytes, and a working exchange.
func TestNewClientWithKey(t *testing.T) {
	s := stream("with key", 3044+3044+191+32)
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := sntrup761x25519.NewClientWithKey(dk, bytes.NewReader(s[len(s)-32:]))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := sntrup761x25519.NewClient(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1.Init(), c2.Init()) {
		t.Fatal("NewClientWithKey and NewClient differ on the same key")
	}
	if _, err := sntrup761x25519.NewClientWithKey(nil, nil); err == nil {
		t.Error("nil key accepted")
	}
	if _, err := sntrup761x25519.NewClientWithKey(dk, bytes.NewReader(s[:31])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short randomness: %v", err)
	}

	pool := sntrup761.NewKeyPool(4)
	defer pool.Close()
	for range 5 {
		pk, err := pool.Get()
		if err != nil {
			t.Fatal(err)
		}
		c, err := sntrup761x25519.NewClientWithKey(pk, nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := sntrup761x25519.Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("pooled key: K differs (%v)", err)
		}
	}
}

// copyKey returns a copy of dk for NewClientWithKey, which takes ownership
// of its key and overwrites it when the key exchange is over.
func copyKey(t *testing.T, dk *sntrup761.DecapsulationKey) *sntrup761.DecapsulationKey {
	t.Helper()
	cp, err := sntrup761.NewDecapsulationKey(dk.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return cp
}
