package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestProvenance checks testdata/README.md's table against testdata:
// every bundled vector file is listed with the SHA-256 of its exact bytes
// and a License entry naming its licence and where the licence text is;
// every text an entry names exists; every licence text in testdata/ is
// named by some entry; every listed file exists.
func TestProvenance(t *testing.T) {
	readme, files := testdataFiles(t)
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| ([^|]*) \\| `([0-9a-f]{64})` \\|$").FindAllStringSubmatch(readme, -1)
	sums, licences := map[string]string{}, map[string]string{}
	for _, r := range rows {
		licences[r[1]], sums[r[1]] = r[2], r[3]
	}
	named := map[string]bool{}
	for _, e := range files {
		if isLicenseText(e.Name()) {
			continue
		}
		want, ok := sums[e.Name()]
		if !ok {
			t.Errorf("%s is not listed in testdata/README.md", e.Name())
			continue
		}
		delete(sums, e.Name())
		b, err := os.ReadFile("testdata/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: SHA-256 differs from testdata/README.md", e.Name())
		}
		texts, ok := licenseTexts(licences[e.Name()])
		if !ok {
			t.Errorf("%s: License entry %q is not \"LICENCE; text: `FILE`\" or \"LICENCE; text: none required\"", e.Name(), licences[e.Name()])
		}
		for _, p := range texts {
			named[path.Clean(p)] = true
			if info, err := os.Stat("testdata/" + p); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
				t.Errorf("%s: licence text %s is missing or empty (%v)", e.Name(), p, err)
			}
		}
	}
	for name := range sums {
		t.Errorf("testdata/README.md lists %s, which is missing", name)
	}
	for _, e := range files {
		if isLicenseText(e.Name()) && !named[e.Name()] {
			t.Errorf("licence text %s is named by no License entry in testdata/README.md", e.Name())
		}
	}
}

// testdataFiles returns testdata/README.md and the other files of
// testdata (the vector files and the licence texts).
func testdataFiles(t *testing.T) (readme string, files []os.DirEntry) {
	t.Helper()
	b, err := os.ReadFile("testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	all, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if !e.IsDir() && e.Name() != "README.md" {
			files = append(files, e)
		}
	}
	return string(b), files
}

// isLicenseText reports whether name, a file of testdata/, is a licence
// text shipped beside the vector files rather than a vector file.
func isLicenseText(name string) bool {
	return strings.HasPrefix(name, "LICENSE.")
}

// licenseTexts parses a License cell. It returns the licence texts it
// names (paths relative to testdata/, in backquotes after "text:"), or
// none if the cell says "text: none required"; ok is false if the cell
// does not have that form or names no licence before the text.
func licenseTexts(cell string) (texts []string, ok bool) {
	name, where, found := strings.Cut(cell, "; text: ")
	if !found || strings.TrimSpace(name) == "" {
		return nil, false
	}
	if where == "none required" {
		return nil, true
	}
	for _, f := range strings.Split(where, ", ") {
		p, isPath := strings.CutPrefix(f, "`")
		p, isPath2 := strings.CutSuffix(p, "`")
		if !isPath || !isPath2 || p == "" || strings.Contains(p, "`") {
			return nil, false
		}
		texts = append(texts, p)
	}
	return texts, true
}
