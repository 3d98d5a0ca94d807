package kat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// errUnknown is detect's answer for a file in none of the formats.
var errUnknown = errors.New("not a known vector format")

// sniffSize bounds how much of a file (after decompression) detect looks
// at for the line-based formats.
const sniffSize = 64 << 10

// detect recognises the format of a vector file by its content, never by
// its name. It looks only at what identifies a format (a .rsp header and
// its "count = " lines, the JSON files' top-level fields, the key names of
// CCTV's "name = hex" files, the length of a hex line), so a recognised
// file may still fail to parse. It returns an error saying why the file
// is not run if it is in none of the formats, or in one of them but for an
// algorithm or parameter set that pqkex does not implement (for example
// ML-KEM-512, or Wycheproof ECDH on P-521).
func detect(data []byte) (*format, error) {
	if isGzip(data) {
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, errUnknown
		}
		text, _ := io.ReadAll(io.LimitReader(z, sniffSize)) // keep what decompresses
		return detectHexLines(text)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return detectJSON(trimmed)
	}
	text := data[:min(len(data), sniffSize)]
	if f, err := detectRSP(text); err != errUnknown {
		return f, err
	}
	if f, err := detectKeyValues(text); err != errUnknown {
		return f, err
	}
	return detectHexLines(text)
}

func isGzip(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
}

// firstLines returns up to n non-empty, trimmed lines of text; the last
// one may be cut short.
func firstLines(text []byte, n int) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, len(text)+1)
	for len(out) < n && sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// detectRSP recognises a NIST PQCgenKAT_kem response file: a "# name"
// header line followed by "count = " blocks.
func detectRSP(text []byte) (*format, error) {
	lines := firstLines(text, 3)
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "#") ||
		!strings.HasPrefix(lines[1], "count = ") || !strings.HasPrefix(lines[2], "seed = ") {
		return nil, errUnknown
	}
	if lines[0] != "# sntrup761" {
		return nil, fmt.Errorf("NIST KEM .rsp file for %q, which pqkex does not implement", strings.TrimSpace(lines[0][1:]))
	}
	return sntrup761KAT, nil
}

// cctvNames are the field names of CCTV's single ML-KEM test cases.
var cctvNames = map[string]bool{"d": true, "z": true, "ek": true, "dk": true, "m": true, "c": true, "K": true}

// detectKeyValues recognises CCTV's "name = hex" ML-KEM test cases by
// their field names and values (at least 64 characters in all, the first
// value starting with 16 hex digits).
func detectKeyValues(text []byte) (*format, error) {
	lines := firstLines(text, 8)
	var values []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, " = ")
		if !ok || !cctvNames[k] {
			return nil, errUnknown
		}
		values = append(values, v)
	}
	if len(values) == 0 || len(values[0]) < 16 || !isHex(values[0][:16]) || len(strings.Join(values, "")) < 64 {
		return nil, errUnknown
	}
	// The parameter set by the length of a key or ciphertext (in hex):
	// ek and c have 1184 / 1088 bytes for ML-KEM-768, 1568 / 1568 for
	// ML-KEM-1024; dk 2400 / 3168. d, z, m and K are 32 bytes in both.
	for i, v := range values {
		switch len(v) / 2 {
		case 1184, 1088, 2400:
			return cctvMLKEM768Case, nil
		case 1568, 3168:
			return cctvMLKEM1024Case, nil
		case 32:
		default:
			if i == len(values)-1 {
				break // the last value may be cut short
			}
			return nil, fmt.Errorf("CCTV ML-KEM case with a %d-byte value (ML-KEM-512?), which pqkex does not implement", len(v)/2)
		}
	}
	return cctvMLKEM768Case, nil
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// detectHexLines recognises CCTV's modulus files by their first line, one
// hex-encoded ML-KEM encapsulation key (by its length and first digits).
func detectHexLines(text []byte) (*format, error) {
	lines := firstLines(text, 1)
	if len(lines) == 0 || len(lines[0]) < 16 || !isHex(lines[0][:16]) {
		return nil, errUnknown
	}
	switch len(lines[0]) {
	case 2 * 1184:
		return cctvMLKEM768Modulus, nil
	case 2 * 1568:
		return cctvMLKEM1024Modulus, nil
	case 2 * 800:
		return nil, fmt.Errorf("CCTV modulus keys of %d bytes (ML-KEM-512), which pqkex does not implement", len(lines[0])/2)
	}
	return nil, errUnknown
}

// jsonFields returns the names of the top-level fields of a JSON object
// and the values of those that are strings. It reads as far as the data
// parses, so a truncated or damaged file is still recognised by the
// fields before the damage.
func jsonFields(data []byte) (names map[string]bool, strs map[string]string) {
	names, strs = map[string]bool{}, map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return names, strs
	}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			break
		}
		names[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			strs[name] = s
		}
	}
	return names, strs
}

// wycheproofMLKEMSchemas are the schemas of the bundled Wycheproof ML-KEM
// files.
var wycheproofMLKEMSchemas = map[string]bool{
	"mlkem_test_schema.json":                      true,
	"mlkem_encaps_test_schema.json":               true,
	"mlkem_keygen_seed_test_schema.json":          true,
	"mlkem_semi_expanded_decaps_test_schema.json": true,
}

func detectJSON(data []byte) (*format, error) {
	names, strs := jsonFields(data)
	alg := strs["algorithm"]
	switch {
	case names["transcript"] && alg != "": // OpenSSH-generated SSH vectors
		switch alg {
		case nameMLKEM768X25519:
			return sshMLKEM768X25519, nil
		case nameSNTRUP761X25519, aliasSNTRUP761X25519:
			return sshSNTRUP761X25519, nil
		case nameMLKEM768NISTP256:
			return sshMLKEM768NISTP256, nil
		case nameMLKEM1024NISTP384:
			return sshMLKEM1024NISTP384, nil
		}
		return nil, fmt.Errorf("SSH vectors for %s, which pqkex does not implement", alg)
	case names["schema"] && alg != "": // Wycheproof
		schema := strs["schema"]
		switch {
		case alg == "ML-KEM" && wycheproofMLKEMSchemas[schema]:
			// The parameter set is a field of each test group.
			switch ps := groupField(data, "parameterSet"); ps {
			case "ML-KEM-768":
				return wycheproofMLKEM768, nil
			case "ML-KEM-1024":
				return wycheproofMLKEM1024, nil
			default:
				return nil, fmt.Errorf("a Wycheproof file of ML-KEM vectors for %q, which pqkex does not implement", ps)
			}
		case alg == "XDH" && schema == "xdh_comp_schema_v1.json":
			return wycheproofXDH, nil
		case alg == "ECDH" && (schema == "ecdh_ecpoint_test_schema_v1.json" || schema == "ecdh_test_schema_v1.json"):
			if c := groupField(data, "curve"); c != "secp256r1" && c != "secp384r1" {
				return nil, fmt.Errorf("a Wycheproof file of ECDH vectors for %q, a curve pqkex does not use", c)
			}
			if schema == "ecdh_ecpoint_test_schema_v1.json" {
				return wycheproofECDHPoint, nil
			}
			return wycheproofECDH, nil
		}
		return nil, fmt.Errorf("a Wycheproof file of %s vectors (%s), not a bundled format", alg, schema)
	case alg == "ML-KEM" && names["mode"]: // ACVP, prompt and results joined
		ps := strs["parameterSet"]
		if ps != "" && ps != "ML-KEM-768" && ps != "ML-KEM-1024" {
			return nil, fmt.Errorf("ACVP vectors for %s, which pqkex does not implement", ps)
		}
		switch strs["mode"] {
		case "keyGen":
			if ps == "ML-KEM-1024" {
				return acvpMLKEM1024KeyGen, nil
			}
			return acvpMLKEM768KeyGen, nil
		case "encapDecap":
			if ps == "ML-KEM-1024" {
				return acvpMLKEM1024EncDec, nil
			}
			return acvpMLKEM768EncDec, nil
		}
		return nil, fmt.Errorf("ACVP ML-KEM mode %q, not a bundled format", strs["mode"])
	case names["per_test_draws"]:
		// The recipes draw a random ciphertext of the parameter set's size.
		if bytes.Contains(data, []byte(`"1568 bytes: random ciphertext`)) {
			return mlkem1024Accumulated, nil
		}
		return mlkem768Accumulated, nil
	case names["section_5_2"] || names["section_5_2_iterated"] || names["section_6_1"]:
		return rfc7748X25519, nil
	}
	return nil, errUnknown
}

// groupFieldRE matches a string field of a JSON object.
var groupFieldRE = map[string]*regexp.Regexp{
	"parameterSet": regexp.MustCompile(`"parameterSet"\s*:\s*"([^"]*)"`),
	"curve":        regexp.MustCompile(`"curve"\s*:\s*"([^"]*)"`),
}

// groupField returns the value of the first string field name in the
// first sniffSize bytes of a Wycheproof file: that of its first test
// group (the header and notes before it have no such field). Read as text
// so that a file cut short is still recognised.
func groupField(data []byte, name string) string {
	i := bytes.Index(data, []byte(`"testGroups"`))
	if i < 0 {
		return ""
	}
	m := groupFieldRE[name].FindSubmatch(data[i:min(len(data), i+sniffSize)])
	if m == nil {
		return ""
	}
	return string(m[1])
}
