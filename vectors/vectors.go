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
	"embed"
	"fmt"
	"io/fs"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// methods are the four methods' exported APIs, which Run checks the
// files against.
var methods = kat.Methods{
	kat.Public(mlkem768x25519.Name, mlkem768x25519.NewClient, mlkem768x25519.Respond),
	kat.Public(sntrup761x25519.Name, sntrup761x25519.NewClient, sntrup761x25519.Respond),
	kat.Public(mlkem768nistp256.Name, mlkem768nistp256.NewClient, mlkem768nistp256.Respond),
	kat.Public(mlkem1024nistp384.Name, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond),
}

// Result is the outcome of running one vector file.
type Result struct {
	// File labels the file: Run's name, RunFS's path in its file system.
	File string
	// Format is the name of the file's format (Detect's), empty if none
	// was recognised.
	Format string
	// Passed and Failed count individual vectors. A file that was
	// recognised but does not parse or cannot be read counts as one
	// failed vector.
	Passed, Failed int
	// Failures has one line per failed vector (its identifier and the
	// first difference found), in file order, for the first 100 failed
	// vectors.
	Failures []string
	// Skipped, if set, is the reason the file was not run at all; it
	// then has no vectors.
	Skipped string
	// Err is set when a recognised file does not parse or the file
	// cannot be read.
	Err error
}

// result converts the internal runners' result.
func result(r kat.Result) Result {
	return Result{File: r.File, Format: r.Format, Passed: r.Passed, Failed: r.Failed,
		Failures: r.Failures, Skipped: r.Skipped, Err: r.Err}
}

// Detect recognises the format of a vector file by its content, never by
// its name, and returns the format's name: sntrup761-nist-kat (NIST
// PQCgenKAT_kem .rsp, header "# sntrup761"); ssh-mlkem768x25519-sha256,
// ssh-sntrup761x25519-sha512, ssh-mlkem768nistp256-sha256 and
// ssh-mlkem1024nistp384-sha384 (OpenSSH- or PuTTY-generated exchanges);
// acvp-mlkem-keygen, acvp-mlkem-encapdecap, acvp-mlkem1024-keygen and
// acvp-mlkem1024-encapdecap (ACVP, prompt joined with results);
// wycheproof-mlkem and wycheproof-mlkem1024 (the four Wycheproof ML-KEM
// schemas); cctv-mlkem-modulus and cctv-mlkem1024-modulus (one hex
// encapsulation key per line, gzipped); cctv-mlkem-case and
// cctv-mlkem1024-case ("name = hex" lines); mlkem-accumulated and
// mlkem1024-accumulated (accumulated pseudo-random test recipes);
// rfc7748-x25519 (RFC 7748 sections 5.2 and 6.1); wycheproof-xdh (X25519);
// wycheproof-ecdh-ecpoint and wycheproof-ecdh (P-256 and P-384, raw SEC1
// points and DER public keys). These names are stable.
//
// Detect looks only at what identifies a format (a .rsp header and its
// "count = " lines, the JSON files' top-level fields, the key names of
// CCTV's "name = hex" files, the length of a hex line), so a recognised
// file may still fail to parse. It returns an error saying why the file
// is not run if it is in none of the formats, or in one of them but for an
// algorithm or parameter set that pqkex does not implement (for example
// ML-KEM-512, or Wycheproof ECDH on P-521).
func Detect(data []byte) (format string, err error) { return kat.Detect(data) }

// Run detects the format of a vector file from its content (Detect) and
// checks every vector in it against pqkex: the accumulated ML-KEM recipes
// for 10 000 tests, RFC 7748's iterations up to 1000. A file that Detect
// does not accept is skipped, as is one whose vectors are all for a
// parameter set or curve that pqkex does not implement; a recognised file
// with no vectors fails. name only labels the result.
func Run(name string, data []byte) Result { return result(methods.Run(name, data)) }

// maxFileSize is the largest file RunFS reads; larger files are skipped.
// No vector file comes close.
const maxFileSize = 64 << 20

// RunFS runs every file in fsys, walking it from its root in lexical
// order, and returns one Result per file, labelled with its path in fsys.
// Files that are not regular or are larger than 64 MiB are skipped; a
// file or directory that cannot be read is a failure (Err set). Check
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
		if info.Size() > maxFileSize {
			out = append(out, Result{File: p, Skipped: fmt.Sprintf("larger than %d MiB, not a vector file", maxFileSize>>20)})
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
