package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/vectors"
)

// fileTextBudget bounds, in bytes, each piece of text from a vector file
// that kat prints (its first failure, its error); file names are printed
// whole. Both go through sshwire.Printable: a file's name and contents
// are not to send escape sequences to the terminal or forge a line.
const fileTextBudget = 1024

// newKATFlags defines "pqkex kat"'s flag, -dir.
func newKATFlags(fs *flag.FlagSet) (dir *string) {
	return fs.String("dir", "", "run every vector file under `DIR` instead of the bundled vectors")
}

// runKAT implements "pqkex kat": it runs the known-answer vectors bundled
// in the binary or, with -dir, every vector file under a directory, and
// prints one line per file and then "N passed, M failed" (counting
// individual vectors). Files are recognised by content (vectors.Detect);
// other files are listed as skipped. It returns 1 if any vector failed,
// including a recognised file that does not parse, and if no vector ran
// at all (a run that checked nothing is not a success); 2 on usage errors.
func runKAT(args []string, stdout, stderr io.Writer) int {
	dir, _, code, done := parseVerb("kat", newKATFlags, args, stdout, stderr)
	if done {
		return code
	}

	fsys := bundledVectors()
	label := func(p string) string { return p }
	if *dir != "" {
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

	var passed, failed, skipped int
	results := vectors.RunFS(fsys)
	text := func(s string) string { return sshwire.Printable(s, fileTextBudget) }
	for _, r := range results {
		name := sshwire.Printable(label(r.File), 0)
		passed += r.Passed
		failed += r.Failed
		switch {
		case r.Skipped != "":
			skipped++
			fmt.Fprintf(stdout, "skip  %s  %s\n", name, text(r.Skipped))
		case r.Err != nil && r.Format == "":
			fmt.Fprintf(stdout, "FAIL  %s  cannot read: %s\n", name, text(r.Err.Error()))
		case r.Err != nil:
			fmt.Fprintf(stdout, "FAIL  %s  %s  %s\n", name, r.Format, text(r.Err.Error()))
		case r.Failed > 0:
			fmt.Fprintf(stdout, "FAIL  %s  %s  %d of %d failed: first failure %s\n", name, r.Format, r.Failed, r.Passed+r.Failed, text(r.Failures[0]))
		default:
			fmt.Fprintf(stdout, "ok    %s  %s  %s\n", name, r.Format, katVectors(r.Passed))
		}
	}

	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	switch {
	case failed > 0:
		return 1
	case passed == 0:
		where := "the bundled vectors"
		if *dir != "" {
			where = *dir
		}
		if len(results) == 0 {
			fmt.Fprintf(stderr, "pqkex kat: no vector ran: %s holds no file\n", where)
		} else {
			fmt.Fprintf(stderr, "pqkex kat: no vector ran: none of the %d files under %s is in a format pqkex runs (each is listed as skipped above)\n", skipped, where)
		}
		return 1
	}
	return 0
}

// bundledVectors is the set kat runs without -dir (a variable for the
// command's tests, which check its output and exit codes on a smaller
// set: vectors.TestBundled runs the bundled files).
var bundledVectors = vectors.Bundled

// katVectors is "1 vector" or "N vectors".
func katVectors(n int) string {
	if n == 1 {
		return "1 vector"
	}
	return fmt.Sprintf("%d vectors", n)
}
