package kat

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ACVPMLKEMKeyGen is an ACVP ML-KEM keyGen test group joined with its
// expected results: ML-KEM.KeyGen_internal(d, z) = (ek, dk), dk in its
// expanded form (2400 bytes for ML-KEM-768, 3168 for ML-KEM-1024).
type ACVPMLKEMKeyGen struct {
	ParameterSet string `json:"parameterSet"`
	Tests        []struct {
		TcID int `json:"tcId"`
		D    Hex `json:"d"`
		Z    Hex `json:"z"`
		EK   Hex `json:"ek"`
		DK   Hex `json:"dk"`
	} `json:"tests"`
}

// ACVPMLKEMEncapDecap is an ACVP ML-KEM encapDecap vector set:
// encapsulation tests ML-KEM.Encaps_internal(ek, m) = (k, c), and
// decapsulation tests of one expanded dk.
type ACVPMLKEMEncapDecap struct {
	ParameterSet  string `json:"parameterSet"`
	Encapsulation struct {
		Tests []struct {
			TcID int `json:"tcId"`
			EK   Hex `json:"ek"`
			M    Hex `json:"m"`
			C    Hex `json:"c"`
			K    Hex `json:"k"`
		} `json:"tests"`
	} `json:"encapsulation"`
	Decapsulation struct {
		DK    Hex `json:"dk"`
		Tests []struct {
			TcID int `json:"tcId"`
			C    Hex `json:"c"`
			K    Hex `json:"k"`
		} `json:"tests"`
	} `json:"decapsulation"`
}

// WycheproofMLKEM is any of Wycheproof's ML-KEM files (MLKEMTest,
// MLKEMEncapsTest, MLKEMKeyGen, MLKEMDecapsValidationTest). A field that a
// file does not have is nil.
type WycheproofMLKEM struct {
	Algorithm     string `json:"algorithm"`
	NumberOfTests int    `json:"numberOfTests"`
	TestGroups    []struct {
		Type         string `json:"type"`
		ParameterSet string `json:"parameterSet"`
		Source       struct {
			Name string `json:"name"`
		} `json:"source"`
		Tests []WycheproofMLKEMTest `json:"tests"`
	} `json:"testGroups"`
}

// WycheproofMLKEMTest is one Wycheproof ML-KEM test case. Seed is d || z;
// DK is an expanded decapsulation key; Result is "valid" or "invalid".
type WycheproofMLKEMTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Seed    Hex      `json:"seed"`
	EK      Hex      `json:"ek"`
	DK      Hex      `json:"dk"`
	M       Hex      `json:"m"`
	C       Hex      `json:"c"`
	K       Hex      `json:"K"`
	Result  string   `json:"result"`
}

// MLKEMAccumulated holds the recipes of mlkem768_accumulated.json: for
// each recipe ("cctv", "go") the expected hashes by number of tests.
type MLKEMAccumulated struct {
	Recipes map[string]struct {
		AbsorbedPerTest []string          `json:"absorbed_per_test"`
		Expected        map[string]string `json:"expected"`
	} `json:"recipes"`
}

// ParseJSON decodes a JSON vector file into v.
func ParseJSON(r io.Reader, v any) error {
	if err := json.NewDecoder(r).Decode(v); err != nil {
		return fmt.Errorf("vectors: %v", err)
	}
	return nil
}

// ParseHexLines reads one hex string per line (blank lines skipped), the
// format of CCTV's ML-KEM modulus files. If gzipped is true, r is first
// decompressed.
func ParseHexLines(r io.Reader, gzipped bool) ([][]byte, error) {
	if gzipped {
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("vectors: %v", err)
		}
		defer z.Close()
		r = z
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var out [][]byte
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		b, err := hex.DecodeString(l)
		if err != nil {
			return nil, fmt.Errorf("vectors: line %d: %v", line, err)
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vectors: %v", err)
	}
	return out, nil
}

// ParseKeyValues reads "name = hex" lines, the format of CCTV's single
// ML-KEM test cases. Names must not repeat.
func ParseKeyValues(r io.Reader) (map[string][]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	out := map[string][]byte{}
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, " = ")
		if !ok {
			return nil, fmt.Errorf("vectors: line %d: expected \"name = value\"", line)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("vectors: line %d: %s repeated", line, k)
		}
		b, err := hex.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("vectors: line %d: %s: %v", line, k, err)
		}
		out[k] = b
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vectors: %v", err)
	}
	return out, nil
}
