package vectors

import (
	"bytes"
	"errors"
	"fmt"
)

// Format is a vector file format that Detect recognises and Run runs.
type Format string

// The formats of the bundled vector files (testdata/README.md).
const (
	FormatSNTRUP761KAT       Format = "sntrup761-nist-kat"         // NIST PQCgenKAT_kem .rsp, header "# sntrup761"
	FormatSSHMLKEM768X25519  Format = "ssh-mlkem768x25519-sha256"  // OpenSSH-generated exchanges
	FormatSSHSNTRUP761X25519 Format = "ssh-sntrup761x25519-sha512" // OpenSSH-generated exchanges
	FormatACVPMLKEMKeyGen    Format = "acvp-mlkem-keygen"          // ACVP keyGen, prompt joined with results
	FormatACVPMLKEMEncDec    Format = "acvp-mlkem-encapdecap"      // ACVP encapDecap, prompt joined with results
	FormatWycheproofMLKEM    Format = "wycheproof-mlkem"           // the four Wycheproof ML-KEM schemas
	FormatCCTVMLKEMModulus   Format = "cctv-mlkem-modulus"         // one hex encapsulation key per line, gzipped
	FormatCCTVMLKEMCase      Format = "cctv-mlkem-case"            // "name = hex" lines (strcmp, unlucky)
	FormatMLKEMAccumulated   Format = "mlkem-accumulated"          // accumulated pseudo-random test recipes
	FormatRFC7748X25519      Format = "rfc7748-x25519"             // RFC 7748 sections 5.2 and 6.1
	FormatWycheproofXDH      Format = "wycheproof-xdh"             // Wycheproof XDH (xdh_comp_schema_v1)
)

// Result is the outcome of running one vector file. Passed and Failed
// count individual vectors; Failures has one line per failed vector (its
// identifier and the first difference found), in file order. A file that
// was recognised but does not parse has Err set and counts as one failed
// vector. A file that is not run at all has Skipped set and no vectors.
type Result struct {
	File     string
	Format   Format
	Passed   int
	Failed   int
	Failures []string
	Skipped  string
	Err      error
}

// AccumulatedTests is the number of accumulated ML-KEM tests Run performs
// for an accumulated recipe file.
const AccumulatedTests = 10000

// Run detects the format of a vector file from its content (Detect) and
// checks every vector in it against pqkex with that format's Run function:
// the accumulated ML-KEM recipes for AccumulatedTests tests, RFC 7748's
// iterations up to 1000. A file that Detect does not accept is skipped, as
// is one whose vectors are all for a parameter set or curve that pqkex
// does not implement. name only labels the result.
func Run(name string, data []byte) (r Result) {
	f, err := Detect(data)
	if err != nil {
		return Result{File: name, Skipped: err.Error()}
	}
	defer func() {
		// A runner must not take a whole run down with it; a panic is a
		// failure of this file.
		if p := recover(); p != nil {
			r = Result{File: name, Format: f, Failed: 1, Err: fmt.Errorf("vectors: panic while running the file: %v", p)}
		}
	}()
	r = run(f, data)
	r.File, r.Format = name, f
	if r.Err != nil {
		r.Passed, r.Failed, r.Failures = 0, 1, nil
	} else if r.Skipped == "" && r.Passed+r.Failed == 0 {
		r.Err = errors.New("the file has no test vectors")
		r.Failed = 1
	}
	return r
}

func run(f Format, data []byte) Result {
	rd := bytes.NewReader(data)
	switch f {
	case FormatSNTRUP761KAT:
		v, err := ParseRSP(rd)
		if err != nil {
			return Result{Err: err}
		}
		return RunSNTRUP761KAT(v)
	case FormatSSHMLKEM768X25519, FormatSSHSNTRUP761X25519:
		v, err := ParseSSH(rd)
		if err != nil {
			return Result{Err: err}
		}
		return RunSSH(v)
	case FormatACVPMLKEMKeyGen:
		var v ACVPMLKEMKeyGen
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunACVPMLKEMKeyGen(&v)
	case FormatACVPMLKEMEncDec:
		var v ACVPMLKEMEncapDecap
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunACVPMLKEMEncapDecap(&v)
	case FormatWycheproofMLKEM:
		var v WycheproofMLKEM
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunWycheproofMLKEM(&v)
	case FormatCCTVMLKEMModulus:
		keys, err := ParseHexLines(rd, isGzip(data))
		if err != nil {
			return Result{Err: err}
		}
		return RunCCTVMLKEMModulus(keys)
	case FormatCCTVMLKEMCase:
		kv, err := ParseKeyValues(rd)
		if err != nil {
			return Result{Err: err}
		}
		return RunCCTVMLKEMCase(kv)
	case FormatMLKEMAccumulated:
		var v MLKEMAccumulated
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunMLKEMAccumulated(&v, AccumulatedTests)
	case FormatRFC7748X25519:
		var v RFC7748X25519
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunRFC7748X25519(&v, false)
	case FormatWycheproofXDH:
		var v WycheproofXDH
		if err := ParseJSON(rd, &v); err != nil {
			return Result{Err: err}
		}
		return RunWycheproofXDH(&v)
	}
	return Result{Err: fmt.Errorf("vectors: no runner for format %q", f)}
}

// record counts one vector: passed if err is nil, failed otherwise.
func (r *Result) record(id string, err error) {
	if err == nil {
		r.Passed++
		return
	}
	r.Failed++
	r.Failures = append(r.Failures, id+": "+err.Error())
}

// equal returns an error naming what if got and want differ.
func equal(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s differs", what)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
