package kat

import (
	"crypto/fips140"
	"fmt"
	"os"
)

// RequireFIPSMode is for the TestMain of the packages that .ci/run reruns
// in FIPS 140-3 mode: when the environment variable PQKEX_FIPS140 names a
// mode ("on" or "only", as GODEBUG=fips140=... sets it), the process must
// run in that mode, so that a rerun that silently ran outside it fails
// instead of passing for the wrong reason. Without the variable it checks
// nothing.
func RequireFIPSMode() error {
	want := os.Getenv("PQKEX_FIPS140")
	var ok bool
	switch want {
	case "":
		return nil
	case "on":
		ok = fips140.Enabled() && !fips140.Enforced()
	case "only":
		ok = fips140.Enforced()
	default:
		return fmt.Errorf("PQKEX_FIPS140=%q: want on or only", want)
	}
	if !ok {
		return fmt.Errorf("PQKEX_FIPS140=%s, but this process runs with fips140 enabled %v, enforced %v (set GODEBUG=fips140=%s)", want, fips140.Enabled(), fips140.Enforced(), want)
	}
	return nil
}
