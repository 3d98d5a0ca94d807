package sshkex

import (
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
)

// The x/crypto releases whose internals CI verified against sshkex's
// mirrors: every release from verifiedOldest to verifiedNewest is built and
// run through the registration, handshake and host-key verification tests
// by .ci/run's x/crypto matrix, which reads these two lines. verifiedOldest
// is go.mod's requirement, the first release without known vulnerabilities
// in x/crypto/ssh; sshkex's mirrors also match releases back to v0.39.0, but
// pqkex does not offer users a known-vulnerable x/crypto.
const (
	verifiedOldest = "v0.52.0"
	verifiedNewest = "v0.59.0"
)

// supportedXCrypto names the verified range in messages.
const supportedXCrypto = "golang.org/x/crypto " + verifiedOldest + " to " + verifiedNewest

// xcryptoModule reports the golang.org/x/crypto module this binary was
// built with: its version, or the replacement's version when go.mod
// replaces it by another version; "" when it was replaced by a directory or
// cannot be told. how says which, for error messages.
//
// The Go command records dependencies in the build information of programs
// but not of test binaries of library packages; there the version is read
// from the source path the compiler recorded for x/crypto/ssh's code, which
// names the module cache directory golang.org/x/crypto@VERSION (also under
// -trimpath).
func xcryptoModule() (version, how string) {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, m := range info.Deps {
			if m.Path != "golang.org/x/crypto" {
				continue
			}
			if r := m.Replace; r != nil {
				if r.Path != m.Path || r.Version == "" {
					return "", "golang.org/x/crypto replaced by " + r.Path
				}
				return r.Version, "golang.org/x/crypto " + r.Version + " (a replacement)"
			}
			return m.Version, "golang.org/x/crypto " + m.Version
		}
	}
	return xcryptoFromSourcePath()
}

// xcryptoFromSourcePath reads x/crypto's version from the file name of one
// of its functions.
func xcryptoFromSourcePath() (version, how string) {
	f := runtime.FuncForPC(reflect.ValueOf(ssh.Marshal).Pointer())
	if f == nil {
		return "", "golang.org/x/crypto of unknown version"
	}
	file, _ := f.FileLine(f.Entry())
	file = filepath.ToSlash(file)
	const mod = "golang.org/x/crypto@"
	i := strings.LastIndex(file, mod)
	if i < 0 {
		return "", "golang.org/x/crypto from " + filepath.Dir(filepath.Dir(file)) + " (not a module version)"
	}
	v, _, _ := strings.Cut(file[i+len(mod):], "/")
	return v, "golang.org/x/crypto " + v
}

// belowFloor reports whether version (a release, pre-release or
// pseudo-version) is older than verifiedOldest, go.mod's requirement and
// the first x/crypto without known vulnerabilities in x/crypto/ssh: such a
// version can only come from a replace directive, and pqkex does not run on
// it whatever the checks say. The comparison uses the version's
// major.minor.patch; a pseudo-version of a later commit counts as its base
// release.
func belowFloor(version string) bool {
	core, _, _ := strings.Cut(version, "-")
	core, _, _ = strings.Cut(core, "+")
	v, ok := parseRelease(core)
	floor, _ := parseRelease(verifiedOldest)
	return ok && compareRelease(v, floor) < 0
}

// isVerified reports whether version is a release in the verified range.
func isVerified(version string) bool {
	return version != "" && releaseInRange(version, verifiedOldest, verifiedNewest)
}

// releaseInRange reports whether v is a release version vX.Y.Z (no
// pre-release or build suffix) with lo <= v <= hi.
func releaseInRange(v, lo, hi string) bool {
	pv, ok := parseRelease(v)
	if !ok {
		return false
	}
	plo, _ := parseRelease(lo)
	phi, _ := parseRelease(hi)
	return compareRelease(plo, pv) <= 0 && compareRelease(pv, phi) <= 0
}

func parseRelease(v string) ([3]int, bool) {
	var out [3]int
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return out, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

func compareRelease(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}
