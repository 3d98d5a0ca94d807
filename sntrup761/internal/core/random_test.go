package core

import (
	"bytes"
	"crypto/aes"
	"crypto/fips140"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/selfexec"
	"github.com/pqkex/pqkex/internal/vecarith"
)

// TestSystemRandomKeystream: fillKeystream writes the AES-256-CTR
// keystream with a zero initial counter block: block i of the list is
// AES(key, i), i a big-endian 128-bit integer, computed here one block at
// a time with crypto/aes's block cipher rather than its CTR mode.
func TestSystemRandomKeystream(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	var buf [randomBytes]byte
	fillKeystream(&buf, &key)
	block, err := aes.NewCipher(key[:])
	if err != nil {
		t.Fatal(err)
	}
	var ctr, want [aes.BlockSize]byte
	for i := 0; i < randomBytes; i += aes.BlockSize {
		binary.BigEndian.PutUint64(ctr[8:], uint64(i/aes.BlockSize))
		block.Encrypt(want[:], ctr[:])
		n := min(aes.BlockSize, randomBytes-i)
		if !bytes.Equal(buf[i:i+n], want[:n]) {
			t.Fatalf("block %d: %x, want AES(key, %d) = %x", i/aes.BlockSize, buf[i:i+n], i/aes.BlockSize, want[:n])
		}
	}
}

// TestSystemRandomFresh: two lists from systemRandom differ (a fixed or
// reused key would repeat them) and neither is all zeros.
func TestSystemRandomFresh(t *testing.T) {
	var a, b [randomBytes]byte
	systemRandom(&a)
	systemRandom(&b)
	if a == b || a == [randomBytes]byte{} {
		t.Fatalf("two lists: equal %v, the first all zeros %v", a == b, a == [randomBytes]byte{})
	}
}

// TestKeystreamChoice: keystream is on exactly where crypto/aes runs on the
// CPU's AES instructions outside FIPS 140-3 mode. Child processes check
// that GODEBUG=fips140=on, fips140=only and cpu.aes=off (which turns the
// AES instructions off for crypto/aes too) turn it off; in CI, on amd64
// with AVX2 (so with AES-NI too) it must be on.
func TestKeystreamChoice(t *testing.T) {
	if want := os.Getenv("PQKEX_TEST_KEYSTREAM"); want != "" {
		if got := map[bool]string{true: "on", false: "off"}[keystream]; got != want {
			t.Fatalf("keystream %s under GODEBUG=%s (fips140.Enabled %v, vecarith.AES %v), want %s",
				got, os.Getenv("GODEBUG"), fips140.Enabled(), vecarith.AES, want)
		}
		return
	}
	// vecarith.AVX2: amd64, not -tags purego, and a CPU as recent as CI's.
	if vecarith.AVX2 && !fips140.Enabled() && os.Getenv("CI") == "true" && !keystream {
		t.Fatal("CI's amd64 machines have AES-NI, but keystream is off")
	}
	for _, godebug := range []string{"fips140=on", "fips140=only", "cpu.aes=off"} {
		cmd, err := selfexec.Command("-test.run=^TestKeystreamChoice$", "-test.count=1")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "PQKEX_TEST_KEYSTREAM=off")
		out, err := cmd.CombinedOutput()
		if strings.HasPrefix(godebug, "fips140=") && strings.Contains(string(out), "incompatible with the purego build tag") {
			t.Logf("GODEBUG=%s: FIPS 140-3 mode cannot start in a -tags purego binary", godebug)
			continue
		}
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Errorf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
	}
}
