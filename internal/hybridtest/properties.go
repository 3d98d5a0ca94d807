package hybridtest

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// ErrorHasNoSecrets checks that err starts with prefix + ": ", names who
// ("client's C_INIT", "server's P-256", ...) and contains no 8-byte run of
// any of the given values, raw or in hex.
func ErrorHasNoSecrets(t *testing.T, err error, prefix, who string, values ...[]byte) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error (want one about the %s value)", who)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix+": ") {
		t.Errorf("error %q lacks the prefix %q", msg, prefix)
	}
	if !strings.Contains(msg, who) {
		t.Errorf("error %q does not say it is the %s value", msg, who)
	}
	for _, v := range values {
		for i := 0; i+8 <= len(v); i += 8 {
			if strings.Contains(msg, hex.EncodeToString(v[i:i+8])) || strings.Contains(msg, string(v[i:i+8])) {
				t.Errorf("error %q contains input bytes", msg)
				return
			}
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// ignoredReader checks, for an Exchange that ignores the caller's reader
// (FIPS 140-3 mode), that a failing reader is never called: NewClient and
// Respond succeed and the two sides agree.
func ignoredReader(t *testing.T, ex Exchange) {
	t.Helper()
	var calls atomic.Int64
	r := countingErrReader{&calls}
	c, err := ex.NewClient(r)
	if err != nil {
		t.Fatalf("NewClient with an ignored reader: %v", err)
	}
	reply, kS, err := ex.Respond(r, c.Init())
	if err != nil {
		t.Fatalf("Respond with an ignored reader: %v", err)
	}
	if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		t.Fatalf("Finish: %v", err)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the ignored reader was called %d times", n)
	}
}

// countingErrReader counts its calls and fails each.
type countingErrReader struct{ n *atomic.Int64 }

func (r countingErrReader) Read([]byte) (int, error) {
	r.n.Add(1)
	return 0, errors.New("read from an ignored reader")
}

// RunProperties checks what both NIST-curve hybrid methods promise, on ex:
// round trips, K's encoding, Init's copy, Finish once only, the
// randomness order and amount (seed, candidates; m, candidates), errors
// from short or failing readers, the explicit-key constructors, rejection of
// every wrong length, of bad points and unreduced encapsulation keys with
// errors that name the side and hold no input, and implicit rejection of
// tampered ciphertexts. prefix is the package name, ekSize the ML-KEM
// encapsulation key (and ciphertext offset) size.
func RunProperties(t *testing.T, ex Exchange, prefix string, ekSize, ctSize int) {
	cu := ex.Curve
	ptSize := cu.PublicKeySize()
	initSize, replySize := ekSize+ptSize, ctSize+ptSize
	kSize := 4 + ex.Hash.Size()

	t.Run("RoundTrip", func(t *testing.T) {
		for i := range 10 {
			c, err := ex.NewClient(nil)
			if err != nil {
				t.Fatal(err)
			}
			init := c.Init()
			if len(init) != initSize || init[ekSize] != 4 {
				t.Fatalf("C_INIT has %d bytes, point form %x", len(init), init[ekSize])
			}
			init[0] ^= 0xff
			if c.Init()[0] == init[0] {
				t.Fatal("Init returns the Client's own buffer")
			}
			init[0] ^= 0xff
			reply, kS, err := ex.Respond(nil, init)
			if err != nil {
				t.Fatal(err)
			}
			if len(reply) != replySize || reply[ctSize] != 4 {
				t.Fatalf("S_REPLY has %d bytes", len(reply))
			}
			kC, err := c.Finish(reply)
			if err != nil || !bytes.Equal(kC, kS) {
				t.Fatalf("exchange %d: %v, K equal %v", i, err, bytes.Equal(kC, kS))
			}
			if len(kC) != kSize || !bytes.Equal(kC[:4], []byte{0, 0, 0, byte(kSize - 4)}) {
				t.Fatalf("K = %x..., want an SSH string of %d bytes", kC[:8], kSize-4)
			}
			if _, err := c.Finish(reply); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("second Finish: %v", err)
			}
			if !bytes.Equal(c.Init(), init) {
				t.Fatal("C_INIT changed after Finish")
			}
		}
	})

	t.Run("RandomnessOrder", func(t *testing.T) {
		if ex.IgnoresReader {
			ignoredReader(t, ex)
			return
		}
		fb := cu.PrivateKeySize()
		cs := Stream(prefix+"|order|client", 64+fb)
		r := bytes.NewReader(cs)
		c1, err := ex.NewClient(r)
		if err != nil || r.Len() != 0 {
			t.Fatalf("NewClient: %v, %d bytes unread", err, r.Len())
		}
		c2, err := ex.NewClientWithKeys(cs[:64], cs[64:])
		if err != nil || !bytes.Equal(c1.Init(), c2.Init()) {
			t.Fatalf("NewClient does not read seed then %s key (%v)", cu.Name(), err)
		}
		// Rejected candidates: all-ones (not below n) and zero, then a
		// valid one; each is read whole.
		rej := append(append(bytes.Repeat([]byte{0xff}, fb), make([]byte, fb)...), cs[64:]...)
		r = bytes.NewReader(append(bytes.Clone(cs[:64]), rej...))
		c3, err := ex.NewClient(r)
		if err != nil || r.Len() != 0 || !bytes.Equal(c3.Init(), c1.Init()) {
			t.Fatalf("candidate rejection: %v, %d unread", err, r.Len())
		}
		ss := Stream(prefix+"|order|server", 32+fb)
		r = bytes.NewReader(ss)
		r1, k1, err := ex.Respond(r, c1.Init())
		if err != nil || r.Len() != 0 {
			t.Fatalf("Respond: %v, %d unread", err, r.Len())
		}
		r2, k2, err := ex.RespondWithKeys(c1.Init(), ss[:32], ss[32:])
		if err != nil || !bytes.Equal(r1, r2) || !bytes.Equal(k1, k2) {
			t.Fatalf("Respond does not read m then %s key (%v)", cu.Name(), err)
		}
		if k, err := c2.Finish(r1); err != nil || !bytes.Equal(k, k1) {
			t.Fatalf("Finish: %v", err)
		}
		// Short and failing readers are errors, not panics or weak keys.
		if _, err := ex.NewClient(bytes.NewReader(cs[:len(cs)-1])); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("NewClient on a short stream: %v", err)
		}
		if _, _, err := ex.Respond(bytes.NewReader(ss[:len(ss)-1]), c1.Init()); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Respond on a short stream: %v", err)
		}
		errRand := errors.New("no randomness today")
		if _, err := ex.NewClient(io.MultiReader(bytes.NewReader(cs[:10]), errReader{errRand})); !errors.Is(err, errRand) {
			t.Errorf("NewClient error %v does not wrap the reader's", err)
		}
		// A reader that never yields a valid scalar ends in an error.
		if _, err := ex.NewClient(bytes.NewReader(append(bytes.Clone(cs[:64]), bytes.Repeat([]byte{0xff}, 100*fb)...))); err == nil {
			t.Error("NewClient accepted 100 out-of-range candidates")
		}
	})

	t.Run("TestConstructors", func(t *testing.T) {
		seed := Stream(prefix+"|ctor", 64)
		priv := Stream(prefix+"|ctor|ec", cu.PrivateKeySize())
		if _, err := ex.NewClientWithKeys(seed[:63], priv); err == nil {
			t.Error("63-byte seed accepted")
		}
		if _, err := ex.NewClientWithKeys(seed, priv[1:]); err == nil {
			t.Error("short private key accepted")
		}
		if _, err := ex.NewClientWithKeys(seed, make([]byte, len(priv))); err == nil {
			t.Error("zero private key accepted")
		}
		if _, err := ex.NewClientWithKeys(seed, bytes.Repeat([]byte{0xff}, len(priv))); err == nil {
			t.Error("private key above n accepted")
		}
		c, err := ex.NewClientWithKeys(seed, priv)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ex.RespondWithKeys(c.Init(), seed[:31], priv); err == nil {
			t.Error("31-byte m accepted")
		}
		if _, _, err := ex.RespondWithKeys(c.Init(), seed[:32], make([]byte, len(priv))); err == nil {
			t.Error("zero server key accepted")
		}
	})

	c0, err := ex.NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c0.Init()
	reply, _, err := ex.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("RejectLengths", func(t *testing.T) {
		for _, n := range []int{0, 1, ekSize, ekSize + 33, initSize - 1, initSize + 1, ekSize + 2*ptSize - 1, 2 * initSize} {
			in := make([]byte, n)
			copy(in, init)
			_, _, err := ex.Respond(nil, in)
			ErrorHasNoSecrets(t, err, prefix, "client's C_INIT", in)
			if want := "has " + strconv.Itoa(n) + " bytes, want " + strconv.Itoa(initSize); err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		for _, n := range []int{0, ctSize, ctSize + 33, replySize - 1, replySize + 1} {
			c, err := ex.NewClient(nil)
			if err != nil {
				t.Fatal(err)
			}
			in := make([]byte, n)
			copy(in, reply)
			_, err = c.Finish(in)
			ErrorHasNoSecrets(t, err, prefix, "server's S_REPLY", in)
			if _, err := c.Finish(reply); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Errorf("Finish after a failed Finish: %v", err)
			}
		}
	})

	t.Run("RejectPoints", func(t *testing.T) {
		pt := init[ekSize:]
		fs := cu.PrivateKeySize()
		bad := map[string][]byte{
			"zero":       make([]byte, ptSize),
			"04||0":      append([]byte{4}, make([]byte, 2*fs)...),
			"not on":     append(bytes.Clone(pt[:ptSize-1]), pt[ptSize-1]^1),
			"compressed": append(append([]byte{2 + pt[ptSize-1]&1}, pt[1:1+fs]...), make([]byte, fs)...),
			"hybrid":     append([]byte{6 + pt[ptSize-1]&1}, pt[1:]...),
			"x = p+x":    append([]byte{4}, append(bytes.Repeat([]byte{0xff}, fs), pt[1+fs:]...)...),
		}
		for name, p := range bad {
			in := append(bytes.Clone(init[:ekSize]), p...)
			t.Run(name, func(t *testing.T) {
				_, _, err := ex.Respond(nil, in)
				ErrorHasNoSecrets(t, err, prefix, "client's "+cu.Name()+" public key", in)
				c, err := ex.NewClient(nil)
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Finish(append(bytes.Clone(reply[:ctSize]), p...))
				ErrorHasNoSecrets(t, err, prefix, "server's "+cu.Name()+" public key", reply)
			})
		}
	})

	t.Run("RejectEncapsulationKey", func(t *testing.T) {
		// First 12-bit coefficient set to q = 3329, the smallest value the
		// FIPS 203 section 7.2 check rejects, then to 4095; q-1 is fine.
		for _, v := range []uint16{3329, 4095} {
			in := bytes.Clone(init)
			in[0] = byte(v)
			in[1] = in[1]&0xf0 | byte(v>>8)
			_, _, err := ex.Respond(nil, in)
			ErrorHasNoSecrets(t, err, prefix, "client's ML-KEM", in)
			if err != nil && !strings.Contains(err.Error(), "encapsulation key is invalid") {
				t.Errorf("error %q is not about the encapsulation key", err)
			}
		}
		in := bytes.Clone(init)
		in[0], in[1] = 0x00, in[1]&0xf0|0x0d
		if _, _, err := ex.Respond(nil, in); err != nil {
			t.Errorf("coefficient q-1 rejected: %v", err)
		}
	})

	t.Run("TamperedCiphertext", func(t *testing.T) {
		for _, i := range []int{0, ctSize / 2, ctSize - 1} {
			c, err := ex.NewClient(nil)
			if err != nil {
				t.Fatal(err)
			}
			r, kS, err := ex.Respond(nil, c.Init())
			if err != nil {
				t.Fatal(err)
			}
			r[i] ^= 0x01
			kC, err := c.Finish(r)
			if err != nil {
				t.Fatalf("byte %d: %v", i, err)
			}
			if bytes.Equal(kC, kS) {
				t.Fatalf("byte %d: tampered ciphertext gives the same K", i)
			}
		}
	})
}
