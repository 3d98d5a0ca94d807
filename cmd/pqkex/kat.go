package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pqkex/pqkex/vectors"
)

// maxVectorFile bounds the files kat reads; no vector file comes close.
const maxVectorFile = 64 << 20

// runKAT implements "pqkex kat": it runs the known-answer vectors bundled
// in the binary or, with -dir, every vector file under a directory, and
// prints one line per file and then "N passed, M failed" (counting
// individual vectors). Files are recognised by content (vectors.Detect);
// other files are listed as skipped. It returns 1 if any vector failed,
// including a recognised file that does not parse, and 2 on usage errors.
func runKAT(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("kat", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dir := flags.String("dir", "", "run every vector file under `DIR` instead of the bundled vectors")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: pqkex kat [-dir DIR]")
		fmt.Fprintln(stderr, "Runs the bundled known-answer vectors, or every file under DIR in one of their formats")
		fmt.Fprintln(stderr, "(recognised by content), against pqkex. Exit status 1 if any vector fails.")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 0 {
		flags.Usage()
		return 2
	}

	var fsys fs.FS
	label := func(p string) string { return p }
	if *dir == "" {
		sub, err := fs.Sub(vectors.Bundled, "testdata")
		if err != nil {
			fmt.Fprintln(stderr, "pqkex kat:", err)
			return 1
		}
		fsys = sub
	} else {
		st, err := os.Stat(*dir)
		if err != nil {
			fmt.Fprintln(stderr, "pqkex kat:", err)
			return 2
		}
		if !st.IsDir() {
			fmt.Fprintf(stderr, "pqkex kat: %s is not a directory\n", *dir)
			return 2
		}
		fsys = os.DirFS(*dir)
		label = func(p string) string { return filepath.Join(*dir, filepath.FromSlash(p)) }
	}

	var passed, failed int
	fail := func(name, msg string) {
		fmt.Fprintf(stdout, "FAIL  %s  %s\n", name, msg)
		failed++
	}
	// WalkDir visits each directory's entries in lexical order, so the
	// output is deterministic.
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		name := label(p)
		switch {
		case err != nil:
			fail(name, "cannot read: "+err.Error())
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			fmt.Fprintf(stdout, "skip  %s  not a regular file\n", name)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			fail(name, "cannot read: "+err.Error())
			return nil
		}
		if info.Size() > maxVectorFile {
			fmt.Fprintf(stdout, "skip  %s  larger than %d MiB, not a vector file\n", name, maxVectorFile>>20)
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			fail(name, "cannot read: "+err.Error())
			return nil
		}
		r := vectors.Run(name, data)
		passed += r.Passed
		failed += r.Failed
		switch {
		case r.Skipped != "":
			fmt.Fprintf(stdout, "skip  %s  %s\n", name, r.Skipped)
		case r.Err != nil:
			fmt.Fprintf(stdout, "FAIL  %s  %s  %v\n", name, r.Format, r.Err)
		case r.Failed > 0:
			fmt.Fprintf(stdout, "FAIL  %s  %s  %d of %d failed: first failure %s\n", name, r.Format, r.Failed, r.Passed+r.Failed, r.Failures[0])
		default:
			fmt.Fprintf(stdout, "ok    %s  %s  %s\n", name, r.Format, katVectors(r.Passed))
		}
		return nil
	})

	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// katVectors is "1 vector" or "N vectors".
func katVectors(n int) string {
	if n == 1 {
		return "1 vector"
	}
	return fmt.Sprintf("%d vectors", n)
}
