package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// TestProvenance checks that every bundled vector file is listed in
// testdata/README.md with the SHA-256 of its exact bytes. (The licence
// texts beside them are checked by TestLicenses.)
func TestProvenance(t *testing.T) {
	readme, err := os.ReadFile("testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(string(readme), -1)
	listed := map[string]string{}
	for _, r := range rows {
		listed[r[1]] = r[2]
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" || isLicenseText(e.Name()) {
			continue
		}
		want, ok := listed[e.Name()]
		if !ok {
			t.Errorf("%s is not listed in testdata/README.md", e.Name())
			continue
		}
		b, err := os.ReadFile("testdata/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: SHA-256 differs from testdata/README.md", e.Name())
		}
		delete(listed, e.Name())
	}
	for name := range listed {
		t.Errorf("testdata/README.md lists %s, which is missing", name)
	}
}
