package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/kexhash"
)

// mpintOf is RFC 4251 §5's mpint of the unsigned big-endian d, written
// from math/big rather than kexhash so that kEncodingsDiffer is checked
// against an independent encoder.
func mpintOf(d []byte) []byte {
	b := new(big.Int).SetBytes(d).Bytes()
	if len(b) > 0 && b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// TestKEncodingsDifferExhaustive compares kEncodingsDiffer with the two
// encodings built independently, for every two-byte prefix of a SHA-256,
// SHA-384 and SHA-512 sized digest, each followed by bytes that do and do
// not continue a run of zeros; it also counts the prefixes on which the
// encodings agree (127·256 + 128 of 65 536: first byte 01-7f, or 00 then
// 80-ff), which is the probability maxHonest's bound rests on.
func TestKEncodingsDifferExhaustive(t *testing.T) {
	for _, size := range []int{32, 48, 64} {
		for _, tail := range []byte{0x00, 0x5a, 0xff} {
			agree := 0
			d := bytes.Repeat([]byte{tail}, size)
			for p := range 1 << 16 {
				d[0], d[1] = byte(p>>8), byte(p)
				k := append(binary.BigEndian.AppendUint32(nil, uint32(size)), d...)
				want := !bytes.Equal(mpintOf(d), k)
				if got := kEncodingsDiffer(k); got != want {
					t.Fatalf("digest of %d bytes starting %02x %02x (then %02x): kEncodingsDiffer = %v, the encodings differ: %v",
						size, d[0], d[1], tail, got, want)
				}
				if !want {
					agree++
				}
			}
			if wantAgree := 127*256 + 128; agree != wantAgree {
				t.Errorf("digest of %d bytes, tail %02x: the encodings agree on %d prefixes, want %d", size, tail, agree, wantAgree)
			}
		}
	}
	// kexhash's mpint, which the checks' diagnosis uses, agrees with math/big's.
	for _, d := range [][]byte{{0, 0x80, 1}, {0, 0x7f, 1}, {0x80}, {0x7f}, {0, 0, 0}} {
		if got, want := kexhash.Mpint(d), mpintOf(d); !bytes.Equal(got, want) {
			t.Errorf("kexhash.Mpint(%x) = %x, want %x", d, got, want)
		}
	}
}

// TestFindingsDocumented: every finding id is an anchor of
// docs/conformance.md's "Findings by id", with its severity, and every
// case that can fail has a finding.
func TestFindingsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Findings() {
		row := fmt.Sprintf("| <a id=%q></a>`%s` | %s | %s |", f.ID, f.ID, f.Severity, f.Title)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/conformance.md has no row %q", row)
		}
	}
	for _, m := range methods {
		for _, c := range serverCases(m) {
			if _, ok := FindingOf(c.id); !ok {
				t.Errorf("server case %s has no finding", c.id)
			}
		}
		for _, c := range clientCases(m) {
			if _, ok := FindingOf(c.id); !ok && c.expect != ExpectEither {
				t.Errorf("client case %s has no finding", c.id)
			}
		}
	}
}
