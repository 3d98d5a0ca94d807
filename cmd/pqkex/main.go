package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: pqkex <command> [flags]

commands:
  bench   measure every key exchange's crypto and full x/crypto/ssh handshakes
  scan    show what an SSH server offers and complete a post-quantum key exchange
  serve   run a small SSH server that tells each client its key exchange
  kat     run the bundled known-answer vectors (and -dir DIR)
  check   test another SSH server's or client's hybrid key exchange against the specifications
  version print pqkex's version

Run "pqkex <command> -h" for a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var code int
	switch cmd {
	case "bench":
		code = runBench(args, os.Stdout, os.Stderr)
	case "scan":
		code = runScan(args, os.Stdout, os.Stderr)
	case "serve":
		code = runServe(args, os.Stdout, os.Stderr)
	case "kat":
		code = runKAT(args, os.Stdout, os.Stderr)
	case "check":
		code = runCheck(args, os.Stdout, os.Stderr)
	case "version":
		code = runVersion(args, os.Stdout, os.Stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(os.Stdout, usage)
	default:
		fmt.Fprintf(os.Stderr, "pqkex: unknown command %q\n\n%s", cmd, usage)
		code = 2
	}
	os.Exit(code)
}

// parseFlags parses args. done reports that the command must return code
// now: 0 after -h (the usage goes to stdout: it was asked for), 2 after a
// bad flag (flag has printed the error and the usage on stderr).
// parseCommand sets flags' usage text (the lines, then the flags'
// defaults) and parses args with parseFlags; with nargs >= 0 it also
// requires exactly nargs arguments after the flags (usage and exit status
// 2 otherwise).
func parseCommand(flags *flag.FlagSet, args []string, stdout io.Writer, nargs int, usage ...string) (code int, done bool) {
	flags.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(flags.Output(), l)
		}
		flags.PrintDefaults()
	}
	if code, done := parseFlags(flags, args, stdout); done {
		return code, true
	}
	if nargs >= 0 && flags.NArg() != nargs {
		flags.Usage()
		return 2, true
	}
	return 0, false
}

func parseFlags(flags *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	stderr := flags.Output()
	flags.SetOutput(io.Discard) // print the error ourselves, then the usage where it belongs
	err := flags.Parse(args)
	flags.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		flags.SetOutput(stdout)
		flags.Usage()
		flags.SetOutput(stderr)
		return 0, true
	case err != nil:
		fmt.Fprintln(stderr, err)
		flags.Usage()
		return 2, true
	}
	return 0, false
}
