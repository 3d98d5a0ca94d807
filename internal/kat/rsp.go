package kat

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// KEMKAT is one count of a NIST PQC "PQCgenKAT_kem" response file.
type KEMKAT struct {
	Count int
	Seed  []byte // 48-byte DRBG seed
	PK    []byte
	SK    []byte
	CT    []byte
	SS    []byte
}

// RSP is a parsed .rsp file: its header line (e.g. "# sntrup761") and
// counts in file order.
type RSP struct {
	Header string
	KATs   []KEMKAT
}

// ParseRSP parses a NIST KEM .rsp file. Every count must have all six
// fields, in any order; a file of more than maxLines lines is refused.
func ParseRSP(r io.Reader) (*RSP, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	out := new(RSP)
	var cur *KEMKAT
	seen := map[string]bool{}
	flush := func(line int) error {
		if cur == nil {
			return nil
		}
		for _, k := range []string{"seed", "pk", "sk", "ct", "ss"} {
			if !seen[k] {
				return fmt.Errorf("vectors: rsp line %d: count %d has no %s", line, cur.Count, k)
			}
		}
		out.KATs = append(out.KATs, *cur)
		cur, seen = nil, map[string]bool{}
		return nil
	}
	line := 0
	for sc.Scan() {
		line++
		if line > maxLines {
			return nil, fmt.Errorf("vectors: rsp file of more than %d lines", maxLines)
		}
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "#"):
			if line == 1 {
				out.Header = l
			}
			continue
		}
		k, v, ok := strings.Cut(l, " = ")
		if !ok {
			return nil, fmt.Errorf("vectors: rsp line %d: expected \"name = value\"", line)
		}
		if k == "count" {
			if err := flush(line); err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("vectors: rsp line %d: bad count: %v", line, err)
			}
			cur = &KEMKAT{Count: n}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("vectors: rsp line %d: %s before the first count", line, k)
		}
		b, err := hex.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("vectors: rsp line %d: %s: %v", line, k, err)
		}
		switch k {
		case "seed":
			cur.Seed = b
		case "pk":
			cur.PK = b
		case "sk":
			cur.SK = b
		case "ct":
			cur.CT = b
		case "ss":
			cur.SS = b
		default:
			return nil, fmt.Errorf("vectors: rsp line %d: unknown field %q", line, k)
		}
		seen[k] = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(line); err != nil {
		return nil, err
	}
	if len(out.KATs) == 0 {
		return nil, errors.New("vectors: rsp file has no counts")
	}
	return out, nil
}

// Format writes f in the exact layout of NIST's PQCgenKAT_kem: the header
// line, a blank line, then each count's six lines followed by a blank line,
// with upper-case hex.
func (f *RSP) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\n", f.Header)
	for _, k := range f.KATs {
		fmt.Fprintf(&b, "count = %d\n", k.Count)
		fmt.Fprintf(&b, "seed = %X\n", k.Seed)
		fmt.Fprintf(&b, "pk = %X\n", k.PK)
		fmt.Fprintf(&b, "sk = %X\n", k.SK)
		fmt.Fprintf(&b, "ct = %X\n", k.CT)
		fmt.Fprintf(&b, "ss = %X\n\n", k.SS)
	}
	return b.Bytes()
}
