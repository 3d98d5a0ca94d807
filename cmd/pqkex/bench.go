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
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"crypto/ecdh"
	"crypto/mlkem"

	"github.com/cloudflare/circl/dh/x25519"
	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/internal/sntrupbridge"
	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

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
	// "scalar", or "avx2 (GOEXPERIMENT=simd)" for the optional vector path.
	SNTRUP761 string `json:"sntrup761_arithmetic"`
	// FIPS140 is "on" or "only" in FIPS 140-3 mode, when the NIST-curve
	// hybrids run the Go Cryptographic Module's approved path.
	FIPS140    string           `json:"fips140,omitempty"`
	Rows       []benchRow       `json:"rows"`
	Primitives []benchPrimitive `json:"primitives"`
}

// kexCase is the crypto of one key exchange: a client step before the
// server's reply (generate keys, C_INIT), the server's step, and the
// client's last step. The x/crypto cases do what x/crypto/ssh does.
type kexCase struct {
	method, impl, variant string
	client                func() (finish func([]byte), cInit []byte) // returns C_INIT and a finisher
	server                func(cInit []byte) []byte                  // returns S_REPLY
}

// runBench implements "pqkex bench".
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := fs.Duration("time", time.Second, "measuring time per figure")
	methods := fs.String("methods", "", "comma-separated key exchanges to include, by any of their names (default: all; see -h)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: pqkex bench [-time D] [-methods LIST] [-json]")
		fmt.Fprintln(w, "Measures each key exchange's crypto (client, server, whole exchange) and full")
		fmt.Fprintln(w, "x/crypto/ssh handshakes in this process, pqkex's and x/crypto's side by side,")
		fmt.Fprintln(w, "and the primitives they are made of. -methods takes these names (aliases in")
		fmt.Fprintln(w, "parentheses measure the same key exchange):")
		for _, m := range benchMethods {
			fmt.Fprintf(w, "  %s", m.name)
			if len(m.aliases) > 0 {
				fmt.Fprintf(w, " (%s)", strings.Join(m.aliases, ", "))
			}
			fmt.Fprintln(w)
		}
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() != 0 || *d <= 0 {
		fs.Usage()
		return 2
	}
	var only []string
	if *methods != "" {
		var err error
		if only, err = benchSelect(*methods); err != nil {
			fmt.Fprintln(stderr, "pqkex bench:", err)
			return 2
		}
	}
	want := func(m string) bool {
		return (len(only) == 0 || slices.Contains(only, m)) && (!fips140.Enabled() || sshwire.FIPSApprovedKEX(m))
	}
	if fips140.Enabled() {
		// x/crypto offers no X25519 key exchange for the handshakes in this
		// mode, and Register none of pqkex's X25519 hybrids.
		fmt.Fprintln(stderr, "pqkex bench: FIPS 140-3 mode: only key exchanges built on approved algorithms are measured")
	}

	progress := func(string) {}
	if isTerminal(os.Stderr) && !*asJSON {
		progress = func(s string) { fmt.Fprintf(stderr, "\r\033[K%s", s) }
		defer fmt.Fprint(stderr, "\r\033[K")
	}

	rep := &benchReport{Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuName(), SNTRUP761: sntrupbridge.Arithmetic(),
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
		if !want(c.method) {
			continue
		}
		progress("x/crypto " + c.method)
		row := measureKex(c, *d)
		row.addHandshakes(measureHandshakes(c.method, hostKey, *d, 1))
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
		if !want(c.method) {
			continue
		}
		progress(c.impl + " " + c.method + " " + c.variant)
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
		row.addHandshakes(measureHandshakes(c.method, hostKey, *d, minN))
		sshkex.SetKeyPool(nil)
		rep.Rows = append(rep.Rows, row)
	}
	for _, p := range primitives(fips140.Enabled()) {
		if !slices.ContainsFunc(p.methods, want) {
			continue
		}
		progress(p.name)
		st := measure(*d, p.f)
		rep.Primitives = append(rep.Primitives, benchPrimitive{Name: p.name, US: round1(st.median / p.per), Samples: st.rounds, SpreadPct: round1(st.spreadPct())})
	}
	progress("")

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

// noisy is the spread above which bench warns that a figure is noise as
// much as signal.
const noisy = 10.0

func printBench(w io.Writer, r *benchReport) {
	fmt.Fprintf(w, "%s %s/%s, %s\n", r.Go, r.GOOS, r.GOARCH, r.CPU)
	fmt.Fprintf(w, "sntrup761 arithmetic: %s\n\n", r.SNTRUP761)
	if len(r.Rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "key exchange\timplementation\tclient µs\tserver µs\tkex µs\tkex/s\thandshakes/s\tspread\t")
		for _, row := range r.Rows {
			impl := row.Impl
			if row.Variant != "" {
				impl += " (" + row.Variant + ")"
			}
			hs := fmt.Sprintf("%.0f", row.HandshakesPerS)
			if row.Impl == "baseline" {
				hs = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.0f\t%s\t%s\t\n", row.Method, impl, row.ClientUS, row.ServerUS, row.KexUS, row.KexPerS, hs, spread(row.SpreadPct))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if len(r.Primitives) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "primitive\tµs\tspread\t")
		for _, p := range r.Primitives {
			fmt.Fprintf(tw, "%s\t%.1f\t%s\t\n", p.Name, p.US, spread(p.SpreadPct))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	printBenchFooter(w, r)
}

func spread(pct float64) string {
	if pct > noisy {
		return fmt.Sprintf("%.0f%% !", pct)
	}
	return fmt.Sprintf("%.0f%%  ", pct) // aligned with the marked ones
}

// printBenchFooter explains every column, row and primitive printed.
func printBenchFooter(w io.Writer, r *benchReport) {
	samples := 0
	for _, row := range r.Rows {
		samples = max(samples, row.Samples)
	}
	for _, p := range r.Primitives {
		samples = max(samples, p.Samples)
	}
	fmt.Fprintf(w, "Each figure is the median of %d timed rounds (each round many calls); spread = (slowest - fastest round) / median,\n", samples)
	fmt.Fprintln(w, "the largest of a row's figures. Compare ratios within one run, not runs on different days.")
	if len(r.Rows) > 0 {
		fmt.Fprintln(w, "client = key generation and C_INIT, then the shared secret from S_REPLY; server = S_REPLY and its shared secret;")
		fmt.Fprintln(w, "kex = client + server, both sides' crypto for one exchange; handshakes/s = full x/crypto/ssh client+server")
		fmt.Fprintln(w, "handshakes in this process over an in-memory pipe (host key signature, key derivation, ciphers included).")
		impls := map[string]bool{}
		for _, row := range r.Rows {
			impls[row.Impl+"/"+row.Variant] = true
		}
		if impls["pqkex/"] && r.FIPS140 != "" {
			fmt.Fprintf(w, "pqkex = pqkex's NIST-curve hybrids as sshkex.Register installs them, here in FIPS 140-3 mode (fips140=%s):\n", r.FIPS140)
			fmt.Fprintln(w, "  the approved path only, crypto/mlkem's GenerateKey, randomized Encapsulate and Decapsulate and crypto/ecdh's")
			fmt.Fprintln(w, "  GenerateKey and ECDH (with the module's pairwise consistency tests), as in the baseline row.")
		} else if impls["pqkex/"] {
			fmt.Fprintln(w, "pqkex = pqkex's method packages, as sshkex.Register installs them: circl ML-KEM-768 and X25519 and pqkex's own")
			fmt.Fprintln(w, "  sntrup761 in the X25519 hybrids; circl ML-KEM-768/1024 and crypto/ecdh P-256/P-384 in the NIST-curve hybrids")
			fmt.Fprintln(w, "  (in FIPS 140-3 mode these use crypto/mlkem instead, which costs what the baseline row costs).")
		}
		if impls["baseline/"] {
			fmt.Fprintln(w, "baseline = what a straightforward Go implementation of a NIST-curve hybrid does: crypto/mlkem, crypto/ecdh and")
			fmt.Fprintln(w, "  crypto/sha256 or sha512, nothing else; crypto only (no SSH adapter, so no handshakes/s).")
		}
		if impls["pqkex/batch"] {
			fmt.Fprintf(w, "pqkex (batch) = the same, with the client's sntrup761 keys from a sntrup761.KeyPool (sshkex.SetKeyPool): keys\n")
			fmt.Fprintf(w, "  generated %d at a time sharing one inversion, each used once; the figure is the cost per key exchange.\n", batchSize)
		}
		if impls["x/crypto/"] {
			fmt.Fprintln(w, "x/crypto = the crypto x/crypto/ssh itself does for that key exchange (crypto/mlkem, x/crypto/curve25519, crypto/ecdsa).")
		}
	}
	explain := map[string]string{
		"sntrup761.GenerateKey":      "one sntrup761 key pair (the client's cost in sntrup761x25519)",
		"sntrup761.Encapsulate":      "sntrup761 encapsulation (server)",
		"sntrup761.Decapsulate":      "sntrup761 decapsulation (client)",
		"sntrup761.GenerateKeyBatch": fmt.Sprintf("per key, with sntrup761.GenerateKeys(%d), what a KeyPool does", batchSize),
		"mlkem768.GenerateKey":       "circl ML-KEM-768 key pair (client in mlkem768x25519)",
		"mlkem768.Encapsulate":       "circl ML-KEM-768 encapsulation (server)",
		"mlkem768.Decapsulate":       "circl ML-KEM-768 decapsulation (client)",
		"x25519.GenerateKey":         "circl X25519 key pair (the classical half of both hybrids)",
		"x25519.ECDH":                "circl X25519 shared secret",
		"mlkem1024.GenerateKey":      "circl ML-KEM-1024 key pair (client in mlkem1024nistp384)",
		"mlkem1024.Encapsulate":      "circl ML-KEM-1024 encapsulation (server)",
		"mlkem1024.Decapsulate":      "circl ML-KEM-1024 decapsulation (client)",
		"mlkem.GenerateKey768":       "crypto/mlkem ML-KEM-768 key pair (client in mlkem768nistp256 in FIPS 140-3 mode)",
		"mlkem.Encapsulate768":       "crypto/mlkem ML-KEM-768 randomized encapsulation (server, FIPS 140-3 mode)",
		"mlkem.Decapsulate768":       "crypto/mlkem ML-KEM-768 decapsulation (client, FIPS 140-3 mode)",
		"mlkem.GenerateKey1024":      "crypto/mlkem ML-KEM-1024 key pair (client in mlkem1024nistp384 in FIPS 140-3 mode)",
		"mlkem.Encapsulate1024":      "crypto/mlkem ML-KEM-1024 randomized encapsulation (server, FIPS 140-3 mode)",
		"mlkem.Decapsulate1024":      "crypto/mlkem ML-KEM-1024 decapsulation (client, FIPS 140-3 mode)",
		"p256.GenerateKey":           "crypto/ecdh P-256 key pair (the classical half of mlkem768nistp256)",
		"p256.ECDH":                  "crypto/ecdh P-256 shared secret, with the peer point's checks",
		"p384.GenerateKey":           "crypto/ecdh P-384 key pair (the classical half of mlkem1024nistp384)",
		"p384.ECDH":                  "crypto/ecdh P-384 shared secret, with the peer point's checks",
	}
	if len(r.Primitives) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range r.Primitives {
			fmt.Fprintf(tw, "%s\t%s\n", p.Name, explain[p.Name])
		}
		tw.Flush()
	}
	var loud []string
	for _, row := range r.Rows {
		if row.SpreadPct > noisy {
			loud = append(loud, row.Method+" "+row.Impl+" "+row.Variant)
		}
	}
	for _, p := range r.Primitives {
		if p.SpreadPct > noisy {
			loud = append(loud, p.Name)
		}
	}
	if len(loud) > 0 {
		fmt.Fprintf(w, "NOTE: %d figures (marked !) vary by more than %.0f%% between rounds: this machine is noisy; differences smaller\n", len(loud), noisy)
		fmt.Fprintln(w, "than the spread are not signal. Rerun with a longer -time, or use go test -bench -count 10 and benchstat.")
	}
}

// measureKex times the client's two steps together and the server's step.
func measureKex(c kexCase, d time.Duration) benchRow {
	_, cInit := c.client()
	sReply := c.server(cInit)
	minN := 1
	if c.variant == "batch" {
		minN = 2 * batchSize // whole pool refills in every round
	}
	client := measureMin(d, minN, func() {
		finish, _ := c.client()
		finish(sReply) // implicit rejection costs the same as success
	})
	server := measure(d, func() { c.server(cInit) })
	kex := client.median + server.median
	return benchRow{Method: c.method, Impl: c.impl, Variant: c.variant,
		ClientUS: round1(client.median), ServerUS: round1(server.median), KexUS: round1(kex), KexPerS: round1(1e6 / kex),
		Samples: client.rounds, SpreadPct: round1(max(client.spreadPct(), server.spreadPct()))}
}

// addHandshakes records a handshake measurement in the row.
func (r *benchRow) addHandshakes(h stat) {
	r.HandshakesPerS = round1(1e6 / h.median)
	r.SpreadPct = max(r.SpreadPct, round1(h.spreadPct()))
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

// stat is a timing: the median µs per call over rounds rounds, and the
// fastest and slowest round.
type stat struct {
	median, min, max float64
	rounds           int
}

// spreadPct is (slowest - fastest) / median in percent.
func (s stat) spreadPct() float64 { return 100 * (s.max - s.min) / s.median }

// benchRounds is the number of timed rounds per figure.
const benchRounds = 5

// measure times f over benchRounds rounds that together take about d.
func measure(d time.Duration, f func()) stat { return measureMin(d, 1, f) }

// measureMin is measure with at least minN calls per round: for an
// amortized cost (a key pool that refills every 32 calls) each round must
// span whole refill periods.
func measureMin(d time.Duration, minN int, f func()) stat {
	f() // warm up
	round := d / benchRounds
	n := minN
	var samples []float64
	for len(samples) < benchRounds {
		start := time.Now()
		for range n {
			f()
		}
		el := time.Since(start)
		if el < round/4 && len(samples) == 0 {
			n *= 4 // calibrate the batch size first
			continue
		}
		samples = append(samples, float64(el.Nanoseconds())/float64(n)/1e3)
		if el < round && n < 1<<30 {
			n = max(minN, int(float64(n)*float64(round)/float64(max(el, 1))))
			n = (n + minN - 1) / minN * minN
		}
	}
	sort.Float64s(samples)
	return stat{median: samples[benchRounds/2], min: samples[0], max: samples[benchRounds-1], rounds: benchRounds}
}

// keyBatches hands out keys from batches of sntrup761.GenerateKeys made in
// the calling goroutine, so that the "batch" row's client µs includes the
// amortized generation cost. A KeyPool generates in its own goroutine,
// which on a second core would take that cost out of the measured time.
type keyBatches struct{ keys []*sntrup761.DecapsulationKey }

func (k *keyBatches) get() (*sntrup761.DecapsulationKey, error) {
	if len(k.keys) == 0 {
		keys, err := sntrup761.GenerateKeys(batchSize)
		if err != nil {
			return nil, err
		}
		k.keys = keys
	}
	dk := k.keys[0]
	k.keys = k.keys[1:]
	return dk, nil
}

// exchangeCase measures a NIST-curve hybrid through kat.Exchange: the
// method package's API, or the standard-library baseline.
func exchangeCase(ex kat.Exchange, impl string) kexCase {
	mustOK := func(err error) {
		if err != nil {
			panic(err) // crypto/rand never fails; the inputs are our own
		}
	}
	return kexCase{
		method: ex.Name, impl: impl,
		client: func() (func([]byte), []byte) {
			c, err := ex.NewClient(nil)
			mustOK(err)
			return func(r []byte) { _, err := c.Finish(r); mustOK(err) }, c.Init()
		},
		server: func(ci []byte) []byte { r, _, err := ex.Respond(nil, ci); mustOK(err); return r },
	}
}

// nistCases are both NIST-curve hybrids, pqkex's and the baseline's.
func nistCases() []kexCase {
	var out []kexCase
	for _, name := range []string{mlkem768nistp256.Name, mlkem1024nistp384.Name} {
		out = append(out, exchangeCase(kat.MustPublic(name), "pqkex"), exchangeCase(kat.Baseline(name), "baseline"))
	}
	return out
}

func pqkexCases() []kexCase {
	batches := new(keyBatches)
	mustOK := func(err error) {
		if err != nil {
			panic(err) // crypto/rand never fails; the inputs are our own
		}
	}
	return append([]kexCase{
		{
			method: sshkex.KeyExchangeMLKEM768X25519, impl: "pqkex",
			client: func() (func([]byte), []byte) {
				c, err := mlkem768x25519.NewClient(nil)
				mustOK(err)
				return func(r []byte) { _, err := c.Finish(r); mustOK(err) }, c.Init()
			},
			server: func(ci []byte) []byte { r, _, err := mlkem768x25519.Respond(nil, ci); mustOK(err); return r },
		},
		{
			method: sshkex.KeyExchangeSNTRUP761X25519, impl: "pqkex",
			client: func() (func([]byte), []byte) {
				c, err := sntrup761x25519.NewClient(nil)
				mustOK(err)
				return func(r []byte) { _, err := c.Finish(r); mustOK(err) }, c.Init()
			},
			server: func(ci []byte) []byte { r, _, err := sntrup761x25519.Respond(nil, ci); mustOK(err); return r },
		},
		{
			method: sshkex.KeyExchangeSNTRUP761X25519, impl: "pqkex", variant: "batch",
			client: func() (func([]byte), []byte) {
				dk, err := batches.get()
				mustOK(err)
				c, err := sntrup761x25519.NewClientWithKey(dk, nil)
				mustOK(err)
				return func(r []byte) { _, err := c.Finish(r); mustOK(err) }, c.Init()
			},
			server: func(ci []byte) []byte { r, _, err := sntrup761x25519.Respond(nil, ci); mustOK(err); return r },
		},
	}, nistCases()...)
}

type primitive struct {
	name    string
	methods []string // the key exchanges it is part of; -methods filters on them
	per     float64  // operations per call of f
	f       func()
}

// primitives are the operations the measured key exchanges are made of:
// outside FIPS 140-3 mode those of pqkex's defaults (circl's ML-KEM), in
// FIPS mode (fips) those of the approved path the NIST-curve hybrids take
// there (crypto/mlkem's GenerateKey, randomized Encapsulate and
// Decapsulate; crypto/ecdh's GenerateKey, with its pairwise consistency
// test in that mode).
func primitives(fips bool) []primitive {
	p256a, _ := ecdh.P256().GenerateKey(rand.Reader)
	p256b, _ := ecdh.P256().GenerateKey(rand.Reader)
	p384a, _ := ecdh.P384().GenerateKey(rand.Reader)
	p384b, _ := ecdh.P384().GenerateKey(rand.Reader)
	p256 := []string{sshkex.KeyExchangeMLKEM768NISTP256}
	p384 := []string{sshkex.KeyExchangeMLKEM1024NISTP384}
	nist := []primitive{
		{"p256.GenerateKey", p256, 1, func() { ecdh.P256().GenerateKey(rand.Reader) }},
		{"p256.ECDH", p256, 1, func() { p256a.ECDH(p256b.PublicKey()) }},
		{"p384.GenerateKey", p384, 1, func() { ecdh.P384().GenerateKey(rand.Reader) }},
		{"p384.ECDH", p384, 1, func() { p384a.ECDH(p384b.PublicKey()) }},
	}
	if fips {
		return append(stdMLKEMPrimitives(p256, p384), nist...)
	}
	dk, _ := sntrup761.GenerateKey()
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	mpk, msk, _ := mlkem768.GenerateKeyPair(rand.Reader)
	mct := make([]byte, mlkem768.CiphertextSize)
	mss := make([]byte, mlkem768.SharedKeySize)
	mpk.EncapsulateTo(mct, mss, nil)
	bpk, bsk, _ := mlkem1024.GenerateKeyPair(rand.Reader)
	bct := make([]byte, mlkem1024.CiphertextSize)
	bpk.EncapsulateTo(bct, mss, nil)
	hybrid.ResetUpperState()
	var priv, pub, peer, shared x25519.Key
	rand.Read(priv[:])
	rand.Read(peer[:])
	x25519.KeyGen(&peer, &peer)
	sntrup := []string{sshkex.KeyExchangeSNTRUP761X25519}
	mlkem := []string{sshkex.KeyExchangeMLKEM768X25519}
	x := []string{sshkex.KeyExchangeMLKEM768X25519, sshkex.KeyExchangeSNTRUP761X25519} // x/crypto's curve25519-sha256 uses x/crypto/curve25519
	return append([]primitive{
		{"sntrup761.GenerateKey", sntrup, 1, func() { sntrup761.GenerateKey() }},
		{"sntrup761.Encapsulate", sntrup, 1, func() { ek.Encapsulate() }},
		{"sntrup761.Decapsulate", sntrup, 1, func() { dk.Decapsulate(ct) }},
		{"sntrup761.GenerateKeyBatch", sntrup, batchSize, func() { sntrup761.GenerateKeys(batchSize) }},
		// hybrid.ResetUpperState: as pqkex does after circl's AVX2 code.
		{"mlkem768.GenerateKey", mlkem, 1, func() { mlkem768.GenerateKeyPair(rand.Reader); hybrid.ResetUpperState() }},
		{"mlkem768.Encapsulate", mlkem, 1, func() { mpk.EncapsulateTo(mct, mss, nil); hybrid.ResetUpperState() }},
		{"mlkem768.Decapsulate", mlkem, 1, func() { msk.DecapsulateTo(mss, mct); hybrid.ResetUpperState() }},
		{"x25519.GenerateKey", x, 1, func() { rand.Read(priv[:]); x25519.KeyGen(&pub, &priv) }},
		{"x25519.ECDH", x, 1, func() { x25519.Shared(&shared, &priv, &peer) }},
		{"mlkem1024.GenerateKey", p384, 1, func() { mlkem1024.GenerateKeyPair(rand.Reader); hybrid.ResetUpperState() }},
		{"mlkem1024.Encapsulate", p384, 1, func() { bpk.EncapsulateTo(bct, mss, nil); hybrid.ResetUpperState() }},
		{"mlkem1024.Decapsulate", p384, 1, func() { bsk.DecapsulateTo(mss, bct); hybrid.ResetUpperState() }},
	}, nist...)
}

// stdMLKEMPrimitives are crypto/mlkem's operations, as the NIST-curve
// hybrids call them in FIPS 140-3 mode.
func stdMLKEMPrimitives(p256, p384 []string) []primitive {
	dk768, _ := mlkem.GenerateKey768()
	ek768 := dk768.EncapsulationKey()
	_, ct768 := ek768.Encapsulate()
	dk1024, _ := mlkem.GenerateKey1024()
	ek1024 := dk1024.EncapsulationKey()
	_, ct1024 := ek1024.Encapsulate()
	return []primitive{
		{"mlkem.GenerateKey768", p256, 1, func() { mlkem.GenerateKey768() }},
		{"mlkem.Encapsulate768", p256, 1, func() { ek768.Encapsulate() }},
		{"mlkem.Decapsulate768", p256, 1, func() { dk768.Decapsulate(ct768) }},
		{"mlkem.GenerateKey1024", p384, 1, func() { mlkem.GenerateKey1024() }},
		{"mlkem.Encapsulate1024", p384, 1, func() { ek1024.Encapsulate() }},
		{"mlkem.Decapsulate1024", p384, 1, func() { dk1024.Decapsulate(ct1024) }},
	}
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
