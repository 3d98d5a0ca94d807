//go:build ignore

// xcrypto-releases prints the golang.org/x/crypto releases that sshkex
// reports as verified (sshkex.VerifiedXCrypto, "golang.org/x/crypto
// vOLD to vNEW"), one a line from the oldest to the newest, for .ci/run's
// x/crypto matrix: so the range and the loop cannot drift apart, and the
// shell reads no Go source.
//
//	go run .ci/xcrypto-releases.go
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pqkex/pqkex/sshkex"
)

func main() {
	f := strings.Fields(sshkex.VerifiedXCrypto)
	if len(f) != 4 || f[0] != "golang.org/x/crypto" || f[2] != "to" {
		fail("sshkex.VerifiedXCrypto is %q, not \"golang.org/x/crypto vOLD to vNEW\"", sshkex.VerifiedXCrypto)
	}
	lo, hi := minor(f[1]), minor(f[3])
	if lo > hi {
		fail("sshkex.VerifiedXCrypto %q: the oldest is newer than the newest", sshkex.VerifiedXCrypto)
	}
	for m := lo; m <= hi; m++ {
		fmt.Printf("v0.%d.0\n", m)
	}
}

// minor returns N of a release v0.N.0.
func minor(v string) int {
	s, ok := strings.CutPrefix(v, "v0.")
	s, ok2 := strings.CutSuffix(s, ".0")
	n, err := strconv.Atoi(s)
	if !ok || !ok2 || err != nil {
		fail("%q is not a release v0.N.0", v)
	}
	return n
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "xcrypto-releases: "+format+"\n", args...)
	os.Exit(1)
}
