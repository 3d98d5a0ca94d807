package vectors

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// isLicenseText reports whether name, a file of testdata/, is a licence
// text shipped beside the vector files rather than a vector file.
func isLicenseText(name string) bool {
	return strings.HasPrefix(name, "LICENSE.")
}

// licenseEntries returns, for every row of the provenance table in readme,
// the file it lists and its License cell ("NAME; text: WHERE").
func licenseEntries(readme string) map[string]string {
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| ([^|]*) \\| `[0-9a-f]{64}` \\|$").FindAllStringSubmatch(readme, -1)
	out := map[string]string{}
	for _, r := range rows {
		out[r[1]] = r[2]
	}
	return out
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

// TestLicenses checks the License column of testdata/README.md: every
// bundled file has an entry naming its licence and where the licence text
// is, every text it names exists, and every licence text in testdata/ is
// named by some entry.
func TestLicenses(t *testing.T) {
	readme, err := os.ReadFile("testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	entries := licenseEntries(string(readme))
	files, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, e := range files {
		if e.IsDir() || e.Name() == "README.md" || isLicenseText(e.Name()) {
			continue
		}
		cell, ok := entries[e.Name()]
		if !ok {
			t.Errorf("%s has no License entry in testdata/README.md", e.Name())
			continue
		}
		texts, ok := licenseTexts(cell)
		if !ok {
			t.Errorf("%s: License entry %q is not \"LICENCE; text: `FILE`\" or \"LICENCE; text: none required\"", e.Name(), cell)
			continue
		}
		for _, p := range texts {
			named[path.Clean(p)] = true
			if info, err := os.Stat("testdata/" + p); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
				t.Errorf("%s: licence text %s is missing or empty (%v)", e.Name(), p, err)
			}
		}
	}
	for _, e := range files {
		if isLicenseText(e.Name()) && !named[e.Name()] {
			t.Errorf("licence text %s is named by no License entry in testdata/README.md", e.Name())
		}
	}
}
