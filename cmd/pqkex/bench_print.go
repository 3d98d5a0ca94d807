package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// noisy is the spread above which bench warns that a figure is noise as
// much as signal.
const noisy = 10.0

func printBench(w io.Writer, r *benchReport) {
	fmt.Fprintf(w, "%s %s/%s, %s\n", r.Go, r.GOOS, r.GOARCH, r.CPU)
	fmt.Fprintf(w, "sntrup761 arithmetic: %s\n\n", r.SNTRUP761)
	if len(r.Rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "key exchange\timpl\tclient µs\tserver µs\tkex µs\tkex/s\ths/s\tspread\t")
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

// printBenchFooter explains every column, row and primitive printed,
// within textWidth columns.
func printBenchFooter(w io.Writer, r *benchReport) {
	samples := 0
	for _, row := range r.Rows {
		samples = max(samples, row.Samples)
	}
	for _, p := range r.Primitives {
		samples = max(samples, p.Samples)
	}
	para := func(s string) { printWrapped(w, s, "  ") }
	para(fmt.Sprintf("Each figure is the median of %d timed rounds (each round many calls); spread = (slowest - fastest round) / median, "+
		"the largest of a row's figures. Compare ratios within one run, not runs on different days.", samples))
	if len(r.Rows) > 0 {
		para("client = key generation and C_INIT, then the shared secret from S_REPLY; server = S_REPLY and its shared secret; " +
			"kex = client + server, both sides' crypto for one exchange; hs/s = full x/crypto/ssh client+server handshakes per " +
			"second in this process over an in-memory pipe (host key signature, key derivation, ciphers included).")
		impls := map[string]bool{}
		for _, row := range r.Rows {
			impls[row.Impl+"/"+row.Variant] = true
		}
		if impls["pqkex/"] && r.FIPS140 != "" {
			para(fmt.Sprintf("pqkex = pqkex's NIST-curve hybrids as sshkex.Register installs them, here in FIPS 140-3 mode (fips140=%s): "+
				"the approved path only, crypto/mlkem's GenerateKey, randomized Encapsulate and Decapsulate and crypto/ecdh's "+
				"GenerateKey and ECDH (with the module's pairwise consistency tests), as in the baseline row.", r.FIPS140))
		} else if impls["pqkex/"] {
			para("pqkex = pqkex's method packages, as sshkex.Register installs them: circl ML-KEM-768 and X25519 and pqkex's own " +
				"sntrup761 in the X25519 hybrids; circl ML-KEM-768/1024 and crypto/ecdh P-256/P-384 in the NIST-curve hybrids " +
				"(in FIPS 140-3 mode these use crypto/mlkem instead, which costs what the baseline row costs).")
		}
		if impls["baseline/"] {
			para("baseline = what a straightforward Go implementation of a NIST-curve hybrid does: crypto/mlkem, crypto/ecdh and " +
				"crypto/sha256 or sha512, nothing else; crypto only (no SSH adapter, so no hs/s).")
		}
		if impls["pqkex/batch"] {
			para(fmt.Sprintf("pqkex (batch) = the same, with the client's sntrup761 keys from a sntrup761.KeyPool (sshkex.SetKeyPool): "+
				"keys generated %d at a time sharing one inversion, each used once; the figure is the cost per key exchange.", batchSize))
		}
		if impls["x/crypto/"] {
			para("x/crypto = the crypto x/crypto/ssh itself does for that key exchange (crypto/mlkem, x/crypto/curve25519, crypto/ecdsa).")
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
		name := 0
		for _, p := range r.Primitives {
			name = max(name, len(p.Name))
		}
		for _, p := range r.Primitives {
			prefix := fmt.Sprintf("%-*s  ", name, p.Name)
			for i, l := range wrapText(explain[p.Name], textWidth-len(prefix), "") {
				if i > 0 {
					prefix = strings.Repeat(" ", len(prefix))
				}
				fmt.Fprintln(w, prefix+l)
			}
		}
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
		para(fmt.Sprintf("NOTE: %d figures (marked !) vary by more than %.0f%% between rounds: this machine is noisy; differences smaller "+
			"than the spread are not signal. Rerun with a longer -time, or use go test -bench -count 10 and benchstat.", len(loud), noisy))
	}
	printBenchVerdict(w, r)
}
