package main

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"
)

// pqkexVersion returns the tool's version from the build information the
// Go toolchain embeds: "pqkex v1.2.3" for a binary built by "go install
// module@version", "pqkex devel <revision>" (12 hex digits, "+dirty" when
// the checkout had changes) for one built in a VCS checkout, and
// "pqkex devel" when neither is known (go test, -buildvcs=false).
func pqkexVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pqkex devel"
	}
	return versionFrom(bi)
}

// pseudoVersion matches a Go pseudo-version's timestamp and revision
// ("v0.0.0-20261205161200-b0701ce3f1ab"), which the toolchain stamps for
// a build in an untagged checkout.
var pseudoVersion = regexp.MustCompile(`[-.][0-9]{14}-[0-9a-f]{12}`)

// versionFrom is pqkexVersion for the given build information: a release
// version as it is; otherwise the VCS revision when there is one.
func versionFrom(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "(devel)" {
		v = ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	release := v != "" && !pseudoVersion.MatchString(v) && !strings.HasSuffix(v, "+dirty")
	switch {
	case release && !dirty:
		return "pqkex " + v
	case rev != "":
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		return "pqkex devel " + rev
	case v != "":
		return "pqkex " + v
	}
	return "pqkex devel"
}

// runVersion implements "pqkex version": the tool's version, the Go
// version that built it and the linked x/crypto.
func runVersion(args []string, stdout, stderr io.Writer) int {
	c, fs := verb("version", stderr)
	if code, done := c.parse(fs, args, stdout); done {
		return code
	}
	goVersion := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	fmt.Fprintf(stdout, "%s (%s, golang.org/x/crypto %s)\n", pqkexVersion(), goVersion, xcryptoVersion())
	return 0
}
