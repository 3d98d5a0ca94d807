package kat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// format is one vector file format: its name, which Detect returns and
// Result.Format reports (stable: package vectors documents them), and how
// a file of it runs. To add a format: a format here, the case that
// recognises it in detect (detect.go), its runner, and the file in
// vectors/testdata with its provenance and its vector count in vectors'
// TestBundled.
type format struct {
	name string
	run  func(ms Methods, name string, data []byte) Result
}

// The formats of the bundled vector files (vectors/testdata/README.md).
var (
	sntrup761KAT        = &format{"sntrup761-nist-kat", runRSP}                             // NIST PQCgenKAT_kem .rsp, header "# sntrup761"
	sshMLKEM768X25519   = &format{"ssh-mlkem768x25519-sha256", runSSH}                      // OpenSSH-generated exchanges
	sshSNTRUP761X25519  = &format{"ssh-sntrup761x25519-sha512", runSSH}                     // OpenSSH-generated exchanges
	rfc7748X25519       = &format{"rfc7748-x25519", runRFC7748}                             // RFC 7748 sections 5.2 and 6.1
	wycheproofXDH       = &format{"wycheproof-xdh", runWycheproofDH}                        // Wycheproof XDH (xdh_comp_schema_v1)
	acvpMLKEM768KeyGen  = &format{"acvp-mlkem-keygen", mlkemFile(hybrid.MLKEM768, RunACVP)} // ACVP keyGen, prompt joined with results
	acvpMLKEM768EncDec  = &format{"acvp-mlkem-encapdecap", mlkemFile(hybrid.MLKEM768, RunACVP)}
	wycheproofMLKEM768  = &format{"wycheproof-mlkem", mlkemFile(hybrid.MLKEM768, RunWycheproof)}    // the four Wycheproof ML-KEM schemas
	cctvMLKEM768Modulus = &format{"cctv-mlkem-modulus", mlkemFile(hybrid.MLKEM768, RunCCTVModulus)} // one hex encapsulation key per line, gzipped
	cctvMLKEM768Case    = &format{"cctv-mlkem-case", mlkemFile(hybrid.MLKEM768, RunCCTVCase)}       // "name = hex" lines (strcmp, unlucky)
	mlkem768Accumulated = &format{"mlkem-accumulated", accumulated(hybrid.MLKEM768)}                // accumulated pseudo-random test recipes

	// The NIST-curve hybrids and their parts.
	sshMLKEM768NISTP256  = &format{"ssh-mlkem768nistp256-sha256", runSSH}  // OpenSSH- or PuTTY-generated exchanges
	sshMLKEM1024NISTP384 = &format{"ssh-mlkem1024nistp384-sha384", runSSH} // PuTTY-generated exchanges
	acvpMLKEM1024KeyGen  = &format{"acvp-mlkem1024-keygen", mlkemFile(hybrid.MLKEM1024, RunACVP)}
	acvpMLKEM1024EncDec  = &format{"acvp-mlkem1024-encapdecap", mlkemFile(hybrid.MLKEM1024, RunACVP)}
	wycheproofMLKEM1024  = &format{"wycheproof-mlkem1024", mlkemFile(hybrid.MLKEM1024, RunWycheproof)}
	cctvMLKEM1024Modulus = &format{"cctv-mlkem1024-modulus", mlkemFile(hybrid.MLKEM1024, RunCCTVModulus)} // 1568-byte hex keys, gzipped
	cctvMLKEM1024Case    = &format{"cctv-mlkem1024-case", mlkemFile(hybrid.MLKEM1024, RunCCTVCase)}       // "name = hex" lines with ML-KEM-1024 sizes
	mlkem1024Accumulated = &format{"mlkem1024-accumulated", accumulated(hybrid.MLKEM1024)}                // 1568-byte ciphertexts
	wycheproofECDHPoint  = &format{"wycheproof-ecdh-ecpoint", runWycheproofDH}                            // raw SEC1 points, P-256 / P-384
	wycheproofECDH       = &format{"wycheproof-ecdh", runWycheproofDH}                                    // DER public keys, P-256 / P-384
)

// Detect recognises the format of a vector file by its content, never by
// its name, and returns the format's name. It looks only at what
// identifies a format (a .rsp header and its "count = " lines, the JSON
// files' top-level fields, the key names of CCTV's "name = hex" files,
// the length of a hex line), so a recognised file may still fail to
// parse. It returns an error saying why the file is not run if it is in
// none of the formats, or in one of them but for an algorithm or
// parameter set that pqkex does not implement.
func Detect(data []byte) (string, error) {
	f, err := detect(data)
	if err != nil {
		return "", err
	}
	return f.name, nil
}

// Run detects the format of a vector file and checks every vector in it
// against pqkex (the public API in ms of every method the format applies
// to; the ML-KEM files also on circl and crypto/mlkem alone). A file that
// Detect does not accept is skipped, as is one whose vectors are all for
// a parameter set or curve pqkex does not implement; a recognised file
// with no vectors fails, and so does one that panics a runner or needs a
// method ms does not have. name only labels the result.
func (ms Methods) Run(name string, data []byte) (r Result) {
	f, err := detect(data)
	if err != nil {
		return Result{File: name, Skipped: err.Error()}
	}
	defer func() {
		// A runner must not take a whole run down with it; a panic is a
		// failure of this file.
		if p := recover(); p != nil {
			r = Result{File: name, Format: f.name, Failed: 1, Err: fmt.Errorf("vectors: panic while running the file: %v", p)}
		}
	}()
	r = f.run(ms, f.name, data)
	r.File, r.Format = name, f.name
	if r.Err != nil {
		r.Passed, r.Failed, r.Failures = 0, 1, nil
	} else if r.Skipped == "" && r.Passed+r.Failed == 0 {
		r.Err = errors.New("the file has no test vectors")
		r.Failed = 1
	}
	return r
}

// runRSP runs a sntrup761 NIST KAT file.
func runRSP(_ Methods, _ string, data []byte) Result {
	v, err := ParseRSP(bytes.NewReader(data))
	if err != nil {
		return Result{Err: err}
	}
	return RunSNTRUP761KAT(v)
}

// runSSH runs an SSH vector file through its method's public API.
func runSSH(ms Methods, name string, data []byte) Result {
	var head struct{ Algorithm string }
	json.Unmarshal(data, &head) // detect read it
	ex, err := ms.Get(head.Algorithm)
	if err != nil {
		return Result{Err: err}
	}
	return Record(func(t TB) { RunSSHFile(t, name, data, ex) })
}

// runRFC7748 runs RFC 7748's X25519 vectors, up to 1000 iterations.
func runRFC7748(_ Methods, _ string, data []byte) Result {
	v := new(RFC7748X25519)
	if err := json.Unmarshal(data, v); err != nil {
		return Result{Err: fmt.Errorf("vectors: %v", err)}
	}
	return RunRFC7748X25519(v, false)
}

// publicTargets are the Targets of the ML-KEM files of params: circl and
// crypto/mlkem alone, and the public API in ms of every method on params.
func publicTargets(ms Methods, params hybrid.Params) ([]Target, error) {
	names := []string{nameMLKEM768X25519, nameMLKEM768NISTP256}
	if params == hybrid.MLKEM1024 {
		names = []string{nameMLKEM1024NISTP384}
	}
	var exs []Exchange
	for _, name := range names {
		ex, err := ms.Get(name)
		if err != nil {
			return nil, err
		}
		exs = append(exs, ex)
	}
	return Targets(params, exs...), nil
}

// mlkemFile runs an ML-KEM file of params with run on publicTargets.
func mlkemFile(params hybrid.Params, run func(t TB, name string, data []byte, ts ...Target) int) func(Methods, string, []byte) Result {
	return func(ms Methods, name string, data []byte) Result {
		ts, err := publicTargets(ms, params)
		if err != nil {
			return Result{Err: err}
		}
		return Record(func(t TB) { run(t, name, data, ts...) })
	}
}

// accumulated runs AccumulatedTests recipes of an accumulated file on
// both ML-KEM implementations of params (ShortVectors under Short).
func accumulated(params hybrid.Params) func(Methods, string, []byte) Result {
	return func(_ Methods, name string, data []byte) Result {
		n := AccumulatedTests
		if Short {
			n = ShortVectors
		}
		return Record(func(t TB) {
			if RunAccumulated(t, name, data, n, hybrid.Circl(params), hybrid.Std(params)) == 0 {
				t.Errorf("no published hash for %d tests", n)
			}
		})
	}
}
