package main

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
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

	"github.com/cloudflare/circl/dh/x25519"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// benchRow is one (method, implementation) row; the JSON schema is
// documented in README.md and kept stable.
type benchRow struct {
	Method         string  `json:"method"`
	Impl           string  `json:"impl"`    // "pqkex" or "x/crypto"
	Variant        string  `json:"variant"` // "" or "batch"
	ClientUS       float64 `json:"client_us"`
	ServerUS       float64 `json:"server_us"`
	KexUS          float64 `json:"kex_us"`
	KexPerS        float64 `json:"kex_per_s"`
	HandshakesPerS float64 `json:"handshakes_per_s"`
}

type benchPrimitive struct {
	Name string  `json:"name"`
	US   float64 `json:"us"`
}

type benchReport struct {
	Go         string           `json:"go"`
	GOOS       string           `json:"goos"`
	GOARCH     string           `json:"goarch"`
	CPU        string           `json:"cpu"`
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
	methods := fs.String("methods", "", "comma-separated key exchanges to include (default: all)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pqkex bench [-time D] [-methods LIST] [-json]")
		fmt.Fprintln(stderr, "Measures each key exchange's crypto (client, server, whole exchange) and full")
		fmt.Fprintln(stderr, "x/crypto/ssh handshakes in this process, pqkex's and x/crypto's side by side.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *d <= 0 {
		fs.Usage()
		return 2
	}
	var only []string
	if *methods != "" {
		only = splitList(*methods)
		for _, m := range only {
			if !slices.Contains(benchMethods, m) {
				fmt.Fprintf(stderr, "pqkex bench: unknown method %q (known: %s)\n", m, strings.Join(benchMethods, ","))
				return 2
			}
		}
	}
	want := func(m string) bool { return len(only) == 0 || slices.Contains(only, m) }

	progress := func(string) {}
	if isTerminal(os.Stderr) && !*asJSON {
		progress = func(s string) { fmt.Fprintf(stderr, "\r\033[K%s", s) }
		defer fmt.Fprint(stderr, "\r\033[K")
	}

	rep := &benchReport{Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuName()}
	hostKey := benchHostKey()

	// x/crypto's own key exchanges first: Register replaces x/crypto's
	// mlkem768x25519-sha256 in this process.
	for _, c := range xcryptoCases() {
		if !want(c.method) {
			continue
		}
		progress("x/crypto " + c.method)
		row := measureKex(c, *d)
		row.HandshakesPerS = measureHandshakes(c.method, hostKey, *d, 1)
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
		progress("pqkex " + c.method + " " + c.variant)
		row := measureKex(c, *d)
		minN := 1
		if c.variant == "batch" {
			sshkex.SetKeyPool(pool)
			minN = 2 * batchSize
		}
		row.HandshakesPerS = measureHandshakes(c.method, hostKey, *d, minN)
		sshkex.SetKeyPool(nil)
		rep.Rows = append(rep.Rows, row)
	}
	for _, p := range primitives() {
		progress(p.name)
		rep.Primitives = append(rep.Primitives, benchPrimitive{Name: p.name, US: measure(*d, p.f) / p.per})
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

var benchMethods = []string{
	sshkex.KeyExchangeMLKEM768X25519,
	sshkex.KeyExchangeSNTRUP761X25519,
	ssh.KeyExchangeCurve25519,
	ssh.KeyExchangeECDHP256,
}

func printBench(w io.Writer, r *benchReport) {
	fmt.Fprintf(w, "%s %s/%s, %s\n\n", r.Go, r.GOOS, r.GOARCH, r.CPU)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "key exchange\timplementation\tclient µs\tserver µs\tkex µs\tkex/s\thandshakes/s\t")
	for _, row := range r.Rows {
		impl := row.Impl
		if row.Variant != "" {
			impl += " (" + row.Variant + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t\n", row.Method, impl, row.ClientUS, row.ServerUS, row.KexUS, row.KexPerS, row.HandshakesPerS)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "primitive\tµs\t")
	for _, p := range r.Primitives {
		fmt.Fprintf(tw, "%s\t%.1f\t\n", p.Name, p.US)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nkex = both sides' crypto for one exchange; handshakes = full x/crypto/ssh client+server handshakes in one process.")
}

// measureKex times the client's two steps together and the server's step.
func measureKex(c kexCase, d time.Duration) benchRow {
	_, cInit := c.client()
	sReply := c.server(cInit)
	minN := 1
	if c.variant == "batch" {
		minN = 2 * batchSize // whole pool refills in every round
	}
	clientUS := measureMin(d, minN, func() {
		finish, _ := c.client()
		finish(sReply) // implicit rejection costs the same as success
	})
	serverUS := measure(d, func() { c.server(cInit) })
	kex := clientUS + serverUS
	return benchRow{Method: c.method, Impl: c.impl, Variant: c.variant,
		ClientUS: round1(clientUS), ServerUS: round1(serverUS), KexUS: round1(kex), KexPerS: round1(1e6 / kex)}
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

// measure returns the median µs per call of f over five rounds that
// together take about d.
func measure(d time.Duration, f func()) float64 { return measureMin(d, 1, f) }

// measureMin is measure with at least minN calls per round: for an
// amortized cost (a key pool that refills every 32 calls) each round must
// span whole refill periods.
func measureMin(d time.Duration, minN int, f func()) float64 {
	f() // warm up
	round := d / 5
	n := minN
	var samples []float64
	for len(samples) < 5 {
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
	return samples[2]
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

func pqkexCases() []kexCase {
	batches := new(keyBatches)
	mustOK := func(err error) {
		if err != nil {
			panic(err) // crypto/rand never fails; the inputs are our own
		}
	}
	return []kexCase{
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
	}
}

type primitive struct {
	name string
	per  float64 // operations per call of f
	f    func()
}

func primitives() []primitive {
	dk, _ := sntrup761.GenerateKey()
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	mpk, msk, _ := mlkem768.GenerateKeyPair(rand.Reader)
	mct := make([]byte, mlkem768.CiphertextSize)
	mss := make([]byte, mlkem768.SharedKeySize)
	mpk.EncapsulateTo(mct, mss, nil)
	hybrid.ResetUpperState()
	var priv, pub, peer, shared x25519.Key
	rand.Read(priv[:])
	rand.Read(peer[:])
	x25519.KeyGen(&peer, &peer)
	return []primitive{
		{"sntrup761.GenerateKey", 1, func() { sntrup761.GenerateKey() }},
		{"sntrup761.Encapsulate", 1, func() { ek.Encapsulate() }},
		{"sntrup761.Decapsulate", 1, func() { dk.Decapsulate(ct) }},
		{"sntrup761.GenerateKeyBatch", batchSize, func() { sntrup761.GenerateKeys(batchSize) }},
		// hybrid.ResetUpperState: as pqkex does after circl's AVX2 code.
		{"mlkem768.GenerateKey", 1, func() { mlkem768.GenerateKeyPair(rand.Reader); hybrid.ResetUpperState() }},
		{"mlkem768.Encapsulate", 1, func() { mpk.EncapsulateTo(mct, mss, nil); hybrid.ResetUpperState() }},
		{"mlkem768.Decapsulate", 1, func() { msk.DecapsulateTo(mss, mct); hybrid.ResetUpperState() }},
		{"x25519.GenerateKey", 1, func() { rand.Read(priv[:]); x25519.KeyGen(&pub, &priv) }},
		{"x25519.ECDH", 1, func() { x25519.Shared(&shared, &priv, &peer) }},
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
