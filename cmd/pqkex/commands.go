package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one of pqkex's verbs, described once. The top-level usage
// lists its name and summary; "pqkex help NAME" and "pqkex NAME -h" print
// its synopsis, long description and flags; doc.go lists its synopsis
// and summary (TestDocMatchesCommands keeps doc.go true to this table).
// The details beyond that are in docs/usage.md, "The pqkex command".
type command struct {
	name     string
	summary  string   // one line: the top-level usage and doc.go
	synopsis []string // each a whole "pqkex NAME ..." line
	long     []string // the lines under the synopsis in the verb's usage
	// nargs is how many arguments the verb takes after its flags:
	// exactly nargs, or any number if nargs < 0 (the verb checks them).
	nargs int
	// flags defines the verb's flags on fs: the constructor the verb
	// itself runs, so that "pqkex help NAME" lists the same flags.
	flags func(fs *flag.FlagSet)
	// run parses args and runs the verb, returning its exit status.
	run func(args []string, stdout, stderr io.Writer) int
}

// commands are pqkex's verbs, in the order the usage lists them.
// They are set in init: the verbs look themselves up in the table.
var commands []*command

// usage is the top-level usage, made from commands.
var usage string

func init() {
	methods := []string{"-methods takes these names (aliases in parentheses measure the same key exchange):"}
	for _, m := range benchMethods {
		line := "  " + m.name
		if len(m.aliases) > 0 {
			line += " (" + strings.Join(m.aliases, ", ") + ")"
		}
		methods = append(methods, line)
	}
	commands = []*command{{
		name:     "bench",
		summary:  "measure every key exchange's crypto and full x/crypto/ssh handshakes",
		synopsis: []string{"pqkex bench [-time D] [-methods LIST] [-json]"},
		long: append([]string{
			"Measures each key exchange's crypto (client, server, whole exchange) and full",
			"x/crypto/ssh handshakes in this process, pqkex's and x/crypto's side by side,",
			"and the primitives they are made of; the tables end with a verdict. Exit status",
			"2 on a usage error.",
		}, methods...),
		flags: func(fs *flag.FlagSet) { newBenchFlags(fs) },
		run:   runBench,
	}, {
		name:     "scan",
		summary:  "show what an SSH server offers and complete a post-quantum key exchange",
		synopsis: []string{"pqkex scan [-kex LIST] [-timeout D] [-json] HOST[:PORT]"},
		long: []string{
			"Lists the server's key exchanges, completes one with pqkex's PQ-first client (never authenticating) and reports it.",
			"Exit status 0 when a post-quantum key exchange was negotiated (or the server offers one -kex did not list),",
			"3 when the server offers none a current client uses (none, or only pre-standard ones), 1 when scan could",
			"not complete (a refusal, not SSH, a failed key exchange: the message says which), 2 on a usage error.",
		},
		nargs: 1,
		flags: func(fs *flag.FlagSet) { newScanFlags(fs) },
		run:   runScan,
	}, {
		name:     "serve",
		summary:  "run a small SSH server that tells each client its key exchange",
		synopsis: []string{"pqkex serve [-listen ADDR] [-kex LIST] [-hostkey FILE] [-allow-remote] [limits]"},
		long: []string{
			"Accepts any user without real authentication and answers every command with kex=<negotiated key exchange>.",
			"A test server for SSH clients' key exchanges, not a login service. The limits keep it serving",
			"other sources while one source floods it; they are named after their OpenSSH counterparts.",
			"SIGTERM or SIGINT stops it: exit status 0, or 1 if connections are still being closed 5 s later.",
		},
		flags: func(fs *flag.FlagSet) { newServeFlags(fs) },
		run:   runServe,
	}, {
		name:     "kat",
		summary:  "run the bundled known-answer vectors (and -dir DIR)",
		synopsis: []string{"pqkex kat [-dir DIR]"},
		long: []string{
			"Runs the bundled known-answer vectors, or every file under DIR in one of their formats",
			"(recognised by content), against pqkex. Exit status 1 if any vector fails or none ran.",
		},
		flags: func(fs *flag.FlagSet) { newKATFlags(fs) },
		run:   runKAT,
	}, {
		name:    "check",
		summary: "test another SSH server's or client's hybrid key exchange against the specifications",
		synopsis: []string{
			"pqkex check [-kex LIST] [-timeout D] [-pause D] [-deadline D] [-ident LINE] [-identity FILE [-user NAME]] [-soak N] [-baseline FILE] [-junit FILE] [-case LIST] [-transcript DIR] [-json] [-v] HOST[:PORT]...",
			"pqkex check -listen ADDR [-run COMMAND] [-kex LIST] [-hostkey FILE] [-client-addr IP] [-client-version LINE] [-allow-remote] [-timeout D] [-idle D] [-case LIST] [-transcript DIR] [-json] [-v]",
		},
		long: []string{
			"Checks another SSH implementation's hybrid post-quantum key exchange against the specifications:",
			"servers (HOST[:PORT], one or more), with one connection per case, or clients connecting to -listen ADDR, one connection per case.",
			"Exit status 0 when every case ran and conformed or its finding is accepted, 1 on a finding not accepted",
			"or a baseline entry that matches nothing, 3 when a case or the whole check could not run, 2 on a usage error.",
		},
		nargs: -1,
		flags: func(fs *flag.FlagSet) { newCheckFlags(fs) },
		run:   runCheck,
	}, {
		name:     "version",
		summary:  "print pqkex's version",
		synopsis: []string{"pqkex version"},
		long:     []string{"Prints pqkex's version (from the build information), the Go version and the golang.org/x/crypto version it was built with."},
		flags:    func(*flag.FlagSet) {},
		run:      runVersion,
	}, {
		name:     "help",
		summary:  "print this list, a command's usage and flags, or a check finding's write-up",
		synopsis: []string{"pqkex help [COMMAND | FINDING-ID | findings]"},
		long: []string{
			`Prints pqkex's commands or, given one, what "pqkex COMMAND -h" prints: its usage and flags.`,
			`Given a finding id of pqkex check (such as x25519-mask), prints its write-up: severity, clause, cases,`,
			`what to change, what it means and where it was seen; "pqkex help findings" lists the ids.`,
		},
		nargs: -1,
		flags: func(*flag.FlagSet) {},
		run:   runHelp,
	}}

	var b strings.Builder
	b.WriteString("usage: pqkex <command> [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-7s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun \"pqkex help <command>\" or \"pqkex <command> -h\" for a command's flags,\n\"pqkex help <finding-id>\" for a check finding's write-up (\"pqkex help findings\" lists them).\n")
	usage = b.String()
}

// lookup returns the verb named name, or nil.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// verb starts the verb named name: its table entry and a new FlagSet
// writing to stderr, whose usage is the verb's synopsis, long description
// and flags. Verbs with flags start with parseVerb.
func verb(name string, stderr io.Writer) (*command, *flag.FlagSet) {
	c := lookup(name)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for i, s := range c.synopsis {
			prefix := "usage: "
			if i > 0 {
				prefix = "       "
			}
			fmt.Fprintln(fs.Output(), prefix+s)
		}
		for _, l := range c.long {
			fmt.Fprintln(fs.Output(), l)
		}
		fs.PrintDefaults()
	}
	return c, fs
}

// parseVerb starts the verb named name (verb), defines its flags with
// newFlags and parses args (parse): it returns what newFlags returned and
// the FlagSet, and done reports that the verb must return code now.
func parseVerb[F any](name string, newFlags func(*flag.FlagSet) F, args []string, stdout, stderr io.Writer) (opt F, fs *flag.FlagSet, code int, done bool) {
	c, fs := verb(name, stderr)
	opt = newFlags(fs)
	code, done = c.parse(fs, args, stdout)
	return opt, fs, code, done
}

// help prints what "pqkex NAME -h" prints: the verb's usage and flags.
func (c *command) help(w io.Writer) {
	_, fs := verb(c.name, w)
	c.flags(fs)
	fs.Usage()
}

// parse parses args with fs (made by verb). done reports that the verb
// must return code now: 0 after -h (the usage goes to stdout: it was
// asked for), 2 after a bad flag or, with c.nargs >= 0, a wrong number of
// arguments (the error and the usage on stderr).
func (c *command) parse(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	stderr := fs.Output()
	fs.SetOutput(io.Discard) // print the error ourselves, then the usage where it belongs
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(stderr)
		return 0, true
	case err != nil:
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return 2, true
	case c.nargs >= 0 && fs.NArg() != c.nargs:
		fs.Usage()
		return 2, true
	}
	return 0, false
}

// runHelp implements "pqkex help [COMMAND]" (and "pqkex -h"): the usage
// on stdout, or COMMAND's, exit status 0; an unknown command or more than
// one is a usage error.
func runHelp(args []string, stdout, stderr io.Writer) int {
	c, fs := verb("help", stderr)
	if code, done := c.parse(fs, args, stdout); done {
		return code
	}
	switch {
	case fs.NArg() == 0:
		fmt.Fprint(stdout, usage)
		return 0
	case fs.NArg() == 1 && lookup(fs.Arg(0)) != nil:
		lookup(fs.Arg(0)).help(stdout)
		return 0
	case fs.NArg() == 1 && fs.Arg(0) == "findings":
		printFindingList(stdout)
		return 0
	case fs.NArg() == 1:
		if w, ok := readWriteUp(fs.Arg(0)); ok {
			w.print(stdout)
			return 0
		}
	}
	fmt.Fprintf(stderr, "pqkex help: %q is neither a command nor a finding id (\"pqkex help findings\" lists those)\n\n%s", strings.Join(fs.Args(), " "), usage)
	return 2
}
