package fuzz

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
)

// TestMain fails a FIPS 140-3 rerun that is not in its mode
// (kat.RequireFIPSMode). In the fips140=only rerun (PQKEX_FIPS140=only;
// that mode refuses crypto/ecdh's X25519, the oracle of the X25519
// methods) the methods that are not approved do not apply: they leave the
// table that TestMethods runs, and their fuzz targets are skipped
// (onlyModeSkip), unless -skip was given. Every other test applies in
// every mode. (TestMethods' FIPS subtests run a child of this binary
// under fips140=only on their own, with the whole table.)
func TestMain(m *testing.M) {
	flag.Parse()
	if err := kat.RequireFIPSMode(); err != nil {
		fmt.Fprintln(os.Stderr, "fuzz:", err)
		os.Exit(1)
	}
	if os.Getenv("PQKEX_FIPS140") == "only" {
		if flag.Lookup("test.skip").Value.String() == "" {
			flag.Set("test.skip", onlyModeSkip())
		}
		methods = slices.DeleteFunc(methods, func(m *Method) bool { return !m.FIPS })
	}
	os.Exit(m.Run())
}

// onlyModeSkip matches the fuzz targets of the methods that are not
// approved (the table's FIPS field), Fuzz<PREFIX>...: a target of such a
// method named otherwise is not skipped, and fails loudly (lookup finds
// no method in the filtered table).
func onlyModeSkip() string {
	var targets []string
	for _, m := range methods {
		if !m.FIPS {
			targets = append(targets, "Fuzz"+strings.ToUpper(m.Prefix)+`\w*`)
		}
	}
	return `^(` + strings.Join(targets, "|") + `)$`
}
