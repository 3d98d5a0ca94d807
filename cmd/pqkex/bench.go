package main

import (
	"bufio"
	"crypto/ed25519"
	"crypto/fips140"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/vecarith"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sshkex"
)

// "pqkex bench": its flags and report (this file), the cases it measures
// (bench_cases.go), the primitives (bench_primitives.go), the timing
// (bench_measure.go, handshake.go) and the tables (bench_print.go).

// benchRow is one (method, implementation) row; the JSON schema is
// documented in the package doc (doc.go) and kept stable: every number is a JSON number
// (float64, one decimal) except Samples (an integer).
type benchRow struct {
	Method         string  `json:"method"`
	Impl           string  `json:"impl"`    // "pqkex", "x/crypto" or "baseline"
	Variant        string  `json:"variant"` // "" or "batch"
	ClientUS       float64 `json:"client_us"`
	ServerUS       float64 `json:"server_us"`
	KexUS          float64 `json:"kex_us"`
	KexPerS        float64 `json:"kex_per_s"`
	HandshakesPerS float64 `json:"handshakes_per_s"` // 0 for "baseline" rows: no SSH adapter
	Samples        int     `json:"samples"`          // timed rounds per figure; each figure is their median
	SpreadPct      float64 `json:"spread_pct"`       // largest (slowest - fastest round) / median of the row's three figures, in %

	// For the verdict: the crypto's and one handshake's fastest and
	// slowest rounds in µs (kex: client's plus server's), and their
	// spreads in %; 0 when not measured (then SpreadPct around the median
	// stands in).
	kexLo, kexHi, hsLo, hsHi float64
	kexSpread, hsSpread      float64
}

type benchPrimitive struct {
	Name      string  `json:"name"`
	US        float64 `json:"us"`
	Samples   int     `json:"samples"`
	SpreadPct float64 `json:"spread_pct"`
}

type benchReport struct {
	Go     string `json:"go"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	CPU    string `json:"cpu"`
	// SNTRUP761 names the arithmetic sntrup761 runs in this binary:
	// "avx2 (assembly)", "scalar (assembly build, AVX2 absent or turned off by GODEBUG)" or
	// "scalar" (internal/vecarith.Label).
	SNTRUP761 string `json:"sntrup761_arithmetic"`
	// FIPS140 is "on" or "only" in FIPS 140-3 mode, when the NIST-curve
	// hybrids run the Go Cryptographic Module's approved path.
	FIPS140    string           `json:"fips140,omitempty"`
	Rows       []benchRow       `json:"rows"`
	Primitives []benchPrimitive `json:"primitives"`
}

// benchFlags are "pqkex bench"'s flags.
type benchFlags struct {
	time    *time.Duration
	methods *string
	json    *bool
}

func newBenchFlags(fs *flag.FlagSet) *benchFlags {
	return &benchFlags{
		time:    fs.Duration("time", time.Second, "measuring time per figure"),
		methods: fs.String("methods", "", "comma-separated key exchanges to include, by any of their names (default: all; see -h)"),
		json:    fs.Bool("json", false, "print one JSON object instead of tables"),
	}
}

// runBench implements "pqkex bench".
func runBench(args []string, stdout, stderr io.Writer) int {
	opt, fs, code, done := parseVerb("bench", newBenchFlags, args, stdout, stderr)
	if done {
		return code
	}
	d, methods, asJSON := opt.time, opt.methods, opt.json
	if *d <= 0 {
		fmt.Fprintf(stderr, "pqkex bench: -time must be a positive duration such as 1s or 500ms, not %v\n", *d)
		fs.Usage()
		return 2
	}
	only, ok := listFlag("bench", *methods, nil, benchSelect, stderr)
	if !ok {
		return 2
	}
	want := func(m string) bool {
		return (len(only) == 0 || slices.Contains(only, m)) && (!fips140.Enabled() || sshwire.FIPSApprovedKEX(m))
	}
	if fips140.Enabled() {
		// x/crypto offers no X25519 key exchange for the handshakes in this
		// mode, and Register none of pqkex's X25519 hybrids.
		fmt.Fprintln(stderr, "pqkex bench: FIPS 140-3 mode: only key exchanges built on approved algorithms are measured")
	}

	// The steps, counted first for the progress line: an SSH row measures
	// three figures of -time each, a baseline row two, a primitive one.
	// On a terminal the line is rewritten in place; elsewhere (a pipe, a
	// CI log) each step is a line of its own, so that a run whose output
	// is piped still shows it is alive.
	prog := &benchProgress{d: *d, now: time.Now, w: stderr, lines: true}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		prog.lines = false
	}
	rowUnits := func(c benchCase) float64 {
		if c.impl == "baseline" {
			return 2
		}
		return 3
	}
	for _, c := range append(xcryptoCases(), pqkexCases()...) {
		if want(c.ex.Name) {
			prog.total++
			prog.unitsTotal += rowUnits(c)
		}
	}
	for _, p := range primitives(fips140.Enabled()) {
		if slices.ContainsFunc(p.methods, want) {
			prog.total++
			prog.unitsTotal++
		}
	}
	defer prog.end()

	rep := &benchReport{Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuName(), SNTRUP761: vecarith.Label(),
		Rows: []benchRow{}, Primitives: []benchPrimitive{}}
	if fips140.Enabled() {
		rep.FIPS140 = "on"
		if fips140.Enforced() {
			rep.FIPS140 = "only"
		}
	}
	hostKey := benchHostKey()

	// x/crypto's own key exchanges first: Register replaces x/crypto's
	// mlkem768x25519-sha256 in this process.
	for _, c := range xcryptoCases() {
		if !want(c.ex.Name) {
			continue
		}
		prog.step("x/crypto "+c.ex.Name, rowUnits(c))
		row := measureKex(c, *d)
		row.addHandshakes(measureHandshakes(c.ex.Name, hostKey, *d, 1))
		rep.Rows = append(rep.Rows, row)
	}
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(stderr, "pqkex bench:", err)
		return 1
	}
	// Full handshakes of the "batch" row take their keys from a KeyPool, as
	// a program would; its crypto row from keyBatches (see there).
	pool := sntrup761.NewKeyPool(batchSize)
	defer pool.Close()
	for _, c := range pqkexCases() {
		if !want(c.ex.Name) {
			continue
		}
		prog.step(strings.TrimSpace(c.impl+" "+c.ex.Name+" "+c.variant), rowUnits(c))
		row := measureKex(c, *d)
		if c.impl == "baseline" {
			rep.Rows = append(rep.Rows, row) // crypto only: it has no SSH adapter
			continue
		}
		minN := 1
		if c.variant == "batch" {
			sshkex.SetKeyPool(pool)
			minN = 2 * batchSize
		}
		row.addHandshakes(measureHandshakes(c.ex.Name, hostKey, *d, minN))
		sshkex.SetKeyPool(nil)
		rep.Rows = append(rep.Rows, row)
	}
	for _, p := range primitives(fips140.Enabled()) {
		if !slices.ContainsFunc(p.methods, want) {
			continue
		}
		prog.step(p.name, 1)
		st := measure(*d, p.f)
		rep.Primitives = append(rep.Primitives, benchPrimitive{Name: p.name, US: round1(st.median / p.per), Samples: st.rounds, SpreadPct: round1(st.spreadPct())})
	}
	prog.end()

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "pqkex bench:", err)
			return 1
		}
		return 0
	}
	printBench(stdout, rep)
	return 0
}

// batchSize is the key pool's batch for the "batch" row.
const batchSize = 32

// benchMethod is a key exchange bench measures, under its name in the
// table and the other names it is registered under.
type benchMethod struct {
	name    string
	aliases []string
}

var benchMethods = []benchMethod{
	{sshkex.KeyExchangeMLKEM768X25519, nil},
	{sshkex.KeyExchangeMLKEM768NISTP256, nil},
	{sshkex.KeyExchangeMLKEM1024NISTP384, nil},
	{sshkex.KeyExchangeSNTRUP761X25519, []string{sshkex.KeyExchangeSNTRUP761X25519OpenSSH}},
	{ssh.KeyExchangeCurve25519, []string{"curve25519-sha256@libssh.org"}},
	{ssh.KeyExchangeECDHP256, nil},
}

// benchSelect maps a -methods list to table names.
func benchSelect(list string) ([]string, error) {
	var out, known []string
	for _, m := range benchMethods {
		known = append(known, m.name)
		known = append(known, m.aliases...)
	}
	names := splitList(list)
	if len(names) == 0 {
		return nil, errors.New("-methods lists no key exchange")
	}
	for _, n := range names {
		i := slices.IndexFunc(benchMethods, func(m benchMethod) bool { return m.name == n || slices.Contains(m.aliases, n) })
		if i < 0 {
			return nil, fmt.Errorf("-methods: %q is not a key exchange bench measures (known: %s)", n, strings.Join(known, ","))
		}
		out = append(out, benchMethods[i].name)
	}
	return out, nil
}

func benchHostKey() ssh.Signer {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		panic(err)
	}
	return s
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// cpuName returns the processor model, where the OS tells.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
