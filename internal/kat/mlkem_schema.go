package kat

import "encoding/json"

// acvpMLKEM is an ACVP ML-KEM vector set, prompt joined with the expected
// results: keyGen tests ML-KEM.KeyGen_internal(d, z) = (ek, dk), dk in
// its expanded form (2400 bytes for ML-KEM-768, 3168 for ML-KEM-1024);
// encapDecap tests ML-KEM.Encaps_internal(ek, m) = (k, c), and
// decapsulation tests of one expanded dk.
type acvpMLKEM struct {
	ParameterSet  string     `json:"parameterSet"`
	Tests         []acvpTest `json:"tests"` // keyGen
	Encapsulation struct {
		Tests []acvpTest `json:"tests"`
	} `json:"encapsulation"`
	Decapsulation struct {
		DK    Hex        `json:"dk"`
		Tests []acvpTest `json:"tests"`
	} `json:"decapsulation"`
}

type acvpTest struct {
	TcID                  int `json:"tcId"`
	D, Z, EK, DK, M, C, K Hex
}

// wycheproofFile is a Wycheproof file: one of the four ML-KEM schemas
// (MLKEMTest, MLKEMEncapsTest, MLKEMKeyGen, MLKEMDecapsValidationTest),
// XDH or ECDH (dh.go). A field that a file does not have is nil.
type wycheproofFile struct {
	TestGroups []struct {
		Type         string           `json:"type"`
		ParameterSet string           `json:"parameterSet"`
		Curve        string           `json:"curve"`
		Encoding     string           `json:"encoding"` // ECDH: "ecpoint" or "asn"
		Tests        []wycheproofTest `json:"tests"`
	} `json:"testGroups"`
}

// wycheproofTest is one Wycheproof test case: Seed is d || z, DK an
// expanded decapsulation key, Public the peer's key (raw, SEC1 or DER by
// the file's encoding); Result is "valid", "invalid" or "acceptable".
type wycheproofTest struct {
	TcID                    int `json:"tcId"`
	Comment, Result         string
	Flags                   []string
	Seed, EK, DK, M, C, K   Hex
	Public, Private, Shared Hex
}

// MLKEMAccumulated holds the recipes of mlkem768_accumulated.json: for
// each recipe ("cctv", "go") the expected hashes by number of tests.
type MLKEMAccumulated struct {
	Recipes map[string]struct {
		AbsorbedPerTest []string          `json:"absorbed_per_test"`
		Expected        map[string]string `json:"expected"`
	} `json:"recipes"`
}

// mustJSON decodes a JSON vector file or ends the run.
func mustJSON(t TB, name string, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
