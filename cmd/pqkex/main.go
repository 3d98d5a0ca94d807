package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the pqkex command line args (without the program name): the
// verb of commands (commands.go) that args[0] names.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, args := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	if c := lookup(name); c != nil {
		return c.run(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "pqkex: unknown command %q\n\n%s", name, usage)
	return 2
}
