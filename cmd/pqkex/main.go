package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage: pqkex <command> [flags]

commands:
  bench   measure every key exchange's crypto and full x/crypto/ssh handshakes
  scan    show what an SSH server offers and complete a post-quantum key exchange
  serve   run a small SSH server that tells each client its key exchange
  kat     run the bundled known-answer vectors (and -dir DIR)
  check   test another SSH server's or client's hybrid key exchange against the specifications
  version print pqkex's version

Run "pqkex help <command>" or "pqkex <command> -h" for a command's flags.
`

// commands are pqkex's verbs: each parses its own flags from args and
// returns the exit status.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"bench":   runBench,
	"scan":    runScan,
	"serve":   runServe,
	"kat":     runKAT,
	"check":   runCheck,
	"version": runVersion,
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the pqkex command line args (without the program name).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	if verb, ok := commands[cmd]; ok {
		return verb(args, stdout, stderr)
	}
	switch cmd {
	case "-h", "-help", "--help", "help":
		if len(args) == 0 {
			fmt.Fprint(stdout, usage)
			return 0
		}
		// "pqkex help VERB" is "pqkex VERB -h": the verb's usage and
		// flags on stdout, exit status 0.
		verb, ok := commands[args[0]]
		if !ok || len(args) > 1 {
			fmt.Fprintf(stderr, "pqkex help: unknown command %q\n\n%s", strings.Join(args, " "), usage)
			return 2
		}
		return verb([]string{"-h"}, stdout, stderr)
	}
	fmt.Fprintf(stderr, "pqkex: unknown command %q\n\n%s", cmd, usage)
	return 2
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
