package hybridtest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// CheckProvenance checks that every file in dir is listed in dir's
// README.md with the SHA-256 of its exact bytes, and that every listed
// file is there. It returns the number of files checked.
func CheckProvenance(t *testing.T, dir string) int {
	t.Helper()
	readme, err := os.ReadFile(dir + "README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, r := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(string(readme), -1) {
		listed[r[1]] = r[2]
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		want, ok := listed[e.Name()]
		if !ok {
			t.Errorf("%s is not listed in %sREADME.md", e.Name(), dir)
			continue
		}
		b, err := os.ReadFile(dir + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: SHA-256 differs from %sREADME.md", e.Name(), dir)
		}
		delete(listed, e.Name())
		n++
	}
	for name := range listed {
		t.Errorf("%sREADME.md lists %s, which is missing", dir, name)
	}
	return n
}
