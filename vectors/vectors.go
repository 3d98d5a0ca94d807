// Package vectors runs known-answer vector files against pqkex: NIST's
// sntrup761 KAT, OpenSSH-generated SSH exchanges for
// mlkem768x25519-sha256, sntrup761x25519-sha512 and
// mlkem768nistp256-sha256, PuTTY-generated ones for
// mlkem768nistp256-sha256 and mlkem1024nistp384-sha384 (edge cases
// judged by their strict verdict), ML-KEM-768 and ML-KEM-1024 files from
// ACVP, Wycheproof and CCTV, X25519 files from Wycheproof and RFC 7748,
// and Wycheproof's P-256 and P-384 ECDH files. Use it to check
// the vector files of another implementation against pqkex (a
// disagreement points at one of the two), or to rerun pqkex's own set.
//
// Detect recognises a file's format by its content, never by its name.
// Run checks every vector of one file against pqkex and returns a Result;
// RunFS does that for every file of a directory tree. Bundled is the set
// of files pqkex is tested with, embedded in the package with the
// README.md that records where each came from and its SHA-256. The
// command "pqkex kat" is RunFS over Bundled or a directory.
//
// A vector file is public test data: nothing in it is secret, and a file
// that is malformed, truncated or hostile makes Run report an error, never
// panic. A field of the wrong length fails its vector only; the file's
// other vectors still count. A gzipped file that decompresses to more
// than 64 MiB, or a line-based file (.rsp, CCTV's) of more than 20 000
// lines, fails as a whole, so no file runs unboundedly.
package vectors

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
)

// Format is a vector file format that Detect recognises and Run runs.
type Format string

// The formats of the bundled vector files (see Bundled's README.md).
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

	// The NIST-curve hybrids and their parts.
	FormatSSHMLKEM768NISTP256  Format = "ssh-mlkem768nistp256-sha256"  // OpenSSH- or PuTTY-generated exchanges
	FormatSSHMLKEM1024NISTP384 Format = "ssh-mlkem1024nistp384-sha384" // PuTTY-generated exchanges
	FormatACVPMLKEM1024KeyGen  Format = "acvp-mlkem1024-keygen"        // ACVP keyGen, ML-KEM-1024
	FormatACVPMLKEM1024EncDec  Format = "acvp-mlkem1024-encapdecap"    // ACVP encapDecap, ML-KEM-1024
	FormatWycheproofMLKEM1024  Format = "wycheproof-mlkem1024"         // the four Wycheproof ML-KEM schemas, ML-KEM-1024
	FormatCCTVMLKEM1024Modulus Format = "cctv-mlkem1024-modulus"       // 1568-byte hex keys, gzipped
	FormatCCTVMLKEM1024Case    Format = "cctv-mlkem1024-case"          // "name = hex" lines with ML-KEM-1024 sizes
	FormatMLKEM1024Accumulated Format = "mlkem1024-accumulated"        // accumulated recipes, 1568-byte ciphertexts
	FormatWycheproofECDHPoint  Format = "wycheproof-ecdh-ecpoint"      // Wycheproof ECDH, raw SEC1 points, P-256 / P-384
	FormatWycheproofECDH       Format = "wycheproof-ecdh"              // Wycheproof ECDH, DER public keys, P-256 / P-384
)

// Result is the outcome of running one vector file. Passed and Failed
// count individual vectors; Failures has one line per failed vector (its
// identifier and the first difference found), in file order, for the
// first 100 failed vectors. A file that
// was recognised but does not parse or cannot be read has Err set and
// counts as one failed vector. A file that is not run at all has Skipped
// set (the reason) and no vectors.
type Result struct {
	File     string
	Format   Format
	Passed   int
	Failed   int
	Failures []string
	Skipped  string
	Err      error
}

// Run detects the format of a vector file from its content (Detect) and
// checks every vector in it against pqkex: the accumulated ML-KEM recipes
// for 10 000 tests, RFC 7748's iterations up to 1000. A file that Detect
// does not accept is skipped, as is one whose vectors are all for a
// parameter set or curve that pqkex does not implement; a recognised file
// with no vectors fails. name only labels the result.
func Run(name string, data []byte) Result {
	return runFile(name, data)
}

func runFile(name string, data []byte) (r Result) {
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
	k := run(f, data)
	r = Result{File: name, Format: f, Passed: k.Passed, Failed: k.Failed, Failures: k.Failures, Skipped: k.Skipped, Err: k.Err}
	if r.Err != nil {
		r.Passed, r.Failed, r.Failures = 0, 1, nil
	} else if r.Skipped == "" && r.Passed+r.Failed == 0 {
		r.Err = errors.New("the file has no test vectors")
		r.Failed = 1
	}
	return r
}

// run runs the vectors of data, in format f, through the methods'
// public APIs and, for the ML-KEM files, both ML-KEM implementations.
func run(f Format, data []byte) kat.Result {
	switch f {
	case FormatSNTRUP761KAT:
		v, err := kat.ParseRSP(bytes.NewReader(data))
		if err != nil {
			return kat.Result{Err: err}
		}
		return kat.RunSNTRUP761KAT(v)
	case FormatSSHMLKEM768X25519, FormatSSHSNTRUP761X25519, FormatSSHMLKEM768NISTP256, FormatSSHMLKEM1024NISTP384:
		var head struct{ Algorithm string }
		json.Unmarshal(data, &head) // Detect read it
		ex, ok := kat.Public(head.Algorithm)
		if !ok {
			return kat.Result{Err: fmt.Errorf("vectors: no method %q", head.Algorithm)}
		}
		return kat.Record(func(t kat.TB) { kat.RunSSHFile(t, string(f), data, ex) })
	case FormatRFC7748X25519:
		return runJSON(data, func(v *kat.RFC7748X25519) kat.Result { return kat.RunRFC7748X25519(v, false) })
	case FormatWycheproofXDH, FormatWycheproofECDHPoint, FormatWycheproofECDH:
		return kat.RunWycheproofDHFile(data)
	}
	// The ML-KEM files, on both implementations and through the methods
	// of the parameter set.
	params, exs := hybrid.MLKEM768, []kat.Exchange{kat.MustPublic(mlkem768x25519.Name), kat.MustPublic(mlkem768nistp256.Name)}
	if strings.Contains(string(f), "1024") {
		params, exs = hybrid.MLKEM1024, []kat.Exchange{kat.MustPublic(mlkem1024nistp384.Name)}
	}
	ts := kat.Targets(params, exs...)
	var runner func(t kat.TB)
	switch f {
	case FormatACVPMLKEMKeyGen, FormatACVPMLKEM1024KeyGen, FormatACVPMLKEMEncDec, FormatACVPMLKEM1024EncDec:
		runner = func(t kat.TB) { kat.RunACVP(t, string(f), data, ts...) }
	case FormatWycheproofMLKEM, FormatWycheproofMLKEM1024:
		runner = func(t kat.TB) { kat.RunWycheproof(t, string(f), data, ts...) }
	case FormatCCTVMLKEMModulus, FormatCCTVMLKEM1024Modulus:
		runner = func(t kat.TB) { kat.RunCCTVModulus(t, string(f), data, ts...) }
	case FormatCCTVMLKEMCase, FormatCCTVMLKEM1024Case:
		runner = func(t kat.TB) { kat.RunCCTVCase(t, string(f), data, ts...) }
	case FormatMLKEMAccumulated, FormatMLKEM1024Accumulated:
		runner = func(t kat.TB) {
			if kat.RunAccumulated(t, string(f), data, kat.AccumulatedTests, hybrid.Circl(params), hybrid.Std(params)) == 0 {
				t.Errorf("no published hash for %d tests", kat.AccumulatedTests)
			}
		}
	default:
		return kat.Result{Err: fmt.Errorf("vectors: no runner for format %q", f)}
	}
	return kat.Record(runner)
}

// runJSON decodes a JSON vector file into a V and runs it.
func runJSON[V any](data []byte, runV func(*V) kat.Result) kat.Result {
	v := new(V)
	if err := json.Unmarshal(data, v); err != nil {
		return kat.Result{Err: fmt.Errorf("vectors: %v", err)}
	}
	return runV(v)
}

// MaxFileSize is the largest file RunFS reads; larger files are skipped.
// No vector file comes close.
const MaxFileSize = 64 << 20

// RunFS runs every file in fsys, walking it from its root in lexical
// order, and returns one Result per file, labelled with its path in fsys.
// Files that are not regular or are larger than MaxFileSize are skipped;
// a file or directory that cannot be read is a failure (Err set). Check
// that at least one file ran: RunFS of an empty tree returns no results,
// and of a tree with no vector file only skipped ones.
func RunFS(fsys fs.FS) []Result {
	var out []Result
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			out = append(out, Result{File: p, Failed: 1, Err: err})
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			out = append(out, Result{File: p, Skipped: "not a regular file"})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			out = append(out, Result{File: p, Failed: 1, Err: err})
			return nil
		}
		if info.Size() > MaxFileSize {
			out = append(out, Result{File: p, Skipped: fmt.Sprintf("larger than %d MiB, not a vector file", MaxFileSize>>20)})
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			out = append(out, Result{File: p, Failed: 1, Err: err})
			return nil
		}
		out = append(out, Run(p, data))
		return nil
	})
	return out
}

//go:embed testdata
var bundled embed.FS

// Bundled returns the vector files pqkex is tested with, at the root of
// the returned file system, README.md, which records each file's origin,
// how it was made or changed, its licence and its SHA-256, and the licence
// texts the files' licences require (LICENSE.*). RunFS(Bundled())
// runs them all in seconds. A program that does not call Bundled does not
// carry the files.
func Bundled() fs.FS {
	sub, err := fs.Sub(bundled, "testdata")
	if err != nil {
		panic(err) // the pattern above guarantees the directory
	}
	return sub
}
