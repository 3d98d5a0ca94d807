package sntrup761x25519_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

func TestAliasName(t *testing.T) {
	if sntrup761x25519.AliasName != "sntrup761x25519-sha512@openssh.com" {
		t.Errorf("AliasName = %q", sntrup761x25519.AliasName)
	}
}

// TestNewClientWithKey checks that a pooled key gives the same client as
// NewClient reading the same bytes, and a working exchange.
func TestNewClientWithKey(t *testing.T) {
	s := kat.Stream("with key", 3044+3044+191+32)
	dk, err := sntrup761test.GenerateKey(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := sntrup761x25519.NewClientWithKey(dk, bytes.NewReader(s[len(s)-32:]))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := sntrup761x25519.NewClient(bytes.NewReader(s))
	if err != nil || !bytes.Equal(c1.Init(), c2.Init()) {
		t.Fatalf("NewClientWithKey and NewClient differ on the same key (%v)", err)
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
		c, err2 := sntrup761x25519.NewClientWithKey(pk, nil)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		reply, kS, err := sntrup761x25519.Respond(nil, c.Init())
		kC, err2 := c.Finish(reply)
		if err != nil || err2 != nil || !bytes.Equal(kC, kS) {
			t.Fatalf("pooled key: K differs (%v, %v)", err, err2)
		}
	}
}

// BenchmarkClientInitPooled is ClientInit with keys generated in batches
// of 32, as a sntrup761.KeyPool makes them, through NewClientWithKey. The
// batches come from sntrup761.GenerateKeys in the measured goroutine, so
// that ns/op includes their amortized cost: a KeyPool generates in its own
// goroutine, which a second core would take out of the measured time.
func BenchmarkClientInitPooled(b *testing.B) {
	var keys []*sntrup761.DecapsulationKey
	for b.Loop() {
		if len(keys) == 0 {
			var err error
			if keys, err = sntrup761.GenerateKeys(32); err != nil {
				b.Fatal(err)
			}
		}
		c, err := sntrup761x25519.NewClientWithKey(keys[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		if keys = keys[1:]; len(c.Init()) != sntrup761x25519.ClientInitSize {
			b.Fatal("short C_INIT")
		}
	}
}

// TestNewClientWithZeroKey: the zero DecapsulationKey holds no key, and
// NewClientWithKey refuses it as it refuses nil.
func TestNewClientWithZeroKey(t *testing.T) {
	if _, err := sntrup761x25519.NewClientWithKey(&sntrup761.DecapsulationKey{}, nil); err == nil || err.Error() != "sntrup761x25519: NewClientWithKey needs a decapsulation key" {
		t.Errorf("zero key: %v", err)
	}
}
