package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/pqkex/pqkex/mlkem768x25519"
)

// The verdict that ends bench's text output: every row's cost as a ratio
// to mlkem768x25519-sha256 (pqkex's, measured in the same run), the
// absolute cost per connection, and what that is next to a network round
// trip. A difference no larger than the two figures' spreads together is
// reported as "the same within the spread", never as a ranking.

// Round trips the verdict compares with: typical orders of magnitude, not
// measurements (said so in the output).
const (
	lanRTTus      = 200.0    // one round trip inside a data centre or LAN, µs
	internetRTTus = 20_000.0 // one round trip across a country, µs
	loginRTTs     = 4        // round trips before a login can run a command: TCP, key exchange, authentication, channel
)

// verdictRef returns the row the verdict compares with, and whether it is
// pqkex's mlkem768x25519-sha256.
func verdictRef(rows []benchRow) (benchRow, bool) {
	for _, r := range rows {
		if r.Method == mlkem768x25519.Name && r.Impl == "pqkex" && r.Variant == "" {
			return r, true
		}
	}
	for _, r := range rows {
		if r.Impl == "pqkex" && r.Variant == "" {
			return r, false
		}
	}
	return rows[0], false
}

// figure is a cost in µs: the median of the timed rounds, the fastest and
// slowest round, and the spread in %.
type figure struct{ median, lo, hi, spread float64 }

// newFigure is a figure; without the rounds' range (lo == 0) it is
// taken as the median ± half the spread.
func newFigure(median, lo, hi, spread float64) figure {
	if lo <= 0 || hi <= 0 {
		lo, hi = median*(1-spread/200), median*(1+spread/200)
	}
	return figure{median, lo, hi, spread}
}

// rowFigures returns a row's crypto per connection and its time per full
// handshake (median 0: not measured).
func rowFigures(r benchRow) (kex, hs figure) {
	kexSpread, hsSpread := r.kexSpread, r.hsSpread
	if kexSpread == 0 {
		kexSpread = r.SpreadPct
	}
	if hsSpread == 0 {
		hsSpread = r.SpreadPct
	}
	kex = newFigure(r.KexUS, r.kexLo, r.kexHi, kexSpread)
	if r.HandshakesPerS > 0 {
		hs = newFigure(1e6/r.HandshakesPerS, r.hsLo, r.hsHi, hsSpread)
	}
	return kex, hs
}

// costCompare describes a against the reference ref: "R× (+D µs)" when
// their rounds' ranges (fastest to slowest) do not overlap, "≈ (±S%)" (no
// clear difference, spread S%) when they do, so that noise never reads
// as a ranking. significant reports the former.
func costCompare(a, ref figure) (text string, significant bool) {
	if ref.median <= 0 || a.median <= 0 { // not measured
		return "", false
	}
	if a.lo <= ref.hi && ref.lo <= a.hi {
		return fmt.Sprintf("≈ (±%.0f%%)", math.Max(a.spread, ref.spread)), false
	}
	return fmt.Sprintf("%.1f× (%+.0f µs)", a.median/ref.median, a.median-ref.median), true
}

// us formats a cost in µs.
func us(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f µs", v)
	}
	return fmt.Sprintf("%.1f µs", v)
}

// implName is the row's implementation in parentheses.
func implName(r benchRow) string {
	if r.Variant != "" {
		return "(" + r.Impl + ", " + r.Variant + ")"
	}
	return "(" + r.Impl + ")"
}

// printBenchVerdict writes the verdict; nothing without rows.
func printBenchVerdict(w io.Writer, r *benchReport) {
	if len(r.Rows) == 0 {
		return
	}
	ref, isMLKEM := verdictRef(r.Rows)
	refKex, refHS := rowFigures(ref)
	para := func(s string) { printWrapped(w, s, "") }
	fmt.Fprintln(w)
	if isMLKEM {
		para("VERDICT: each key exchange against pqkex's mlkem768x25519-sha256, measured in this run: its crypto per " +
			"connection (client + server) and one full handshake (1 / hs/s), in µs, and × = its cost divided by the " +
			"reference's (above 1× costs more); ≈ (±S%) when the fastest-to-slowest rounds of the two overlap (spread S%): " +
			"no clear difference, no ranking.")
	} else {
		para(fmt.Sprintf("VERDICT: mlkem768x25519-sha256 (pqkex) was not measured in this run (-methods, or FIPS 140-3 mode); "+
			"each key exchange against %s %s instead: its crypto per connection (client + server) and one full handshake "+
			"(1 / hs/s), in µs, and × = its cost divided by the reference's (above 1× costs more); ≈ (±S%%) when the "+
			"fastest-to-slowest rounds of the two overlap (spread S%%): no clear difference, no ranking.", ref.Method, implName(ref)))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  key exchange\timpl\tcrypto µs\t× reference\thandshake µs\t× reference")
	worst, worstRow, anySignificant := 0.0, benchRow{}, false
	costliest, maxSpread := ref, 0.0
	for _, row := range r.Rows {
		kex, hs := rowFigures(row)
		maxSpread = math.Max(maxSpread, math.Max(kex.spread, hs.spread))
		// The closing lines are about the methods pqkex installs: its
		// own rows, not x/crypto's or the baselines.
		if row.Impl == "pqkex" && row.KexUS > costliest.KexUS {
			costliest = row
		}
		impl := row.Impl
		if row.Variant != "" {
			impl += " (" + row.Variant + ")"
		}
		kexText, cryptoText, hsUS, hsText := usNum(kex.median), "", "-", ""
		if hs.median > 0 {
			hsUS = usNum(hs.median)
		}
		if row == ref {
			cryptoText = "reference"
			if hs.median > 0 {
				hsText = "reference"
			}
		} else {
			var sig bool
			cryptoText, sig = costCompare(kex, refKex)
			if sig {
				anySignificant = true
				if d := kex.median - refKex.median; row.Impl == "pqkex" && d > worst {
					worst, worstRow = d, row
				}
			}
			if hs.median > 0 && refHS.median > 0 {
				hsText, _ = costCompare(hs, refHS)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", row.Method, impl, kexText, cryptoText, hsUS, hsText)
	}
	tw.Flush()

	what, cost, lead := "adds", worst, "The costliest of pqkex's methods here"
	if !anySignificant || worst <= 0 {
		if !anySignificant {
			para(fmt.Sprintf("In this run no key exchange's crypto differs clearly from the reference's (spreads up to %.0f%%): "+
				"too noisy to rank them; rerun with a longer -time on a quieter machine.", maxSpread))
		} else {
			para("None of pqkex's methods here costs clearly more crypto than the reference in this run.")
		}
		what, cost, worstRow, lead = "costs", costliest.KexUS, costliest, "For scale: the costliest of pqkex's methods here"
	}
	internetLogin, lanLogin := loginRTTs*internetRTTus, loginRTTs*lanRTTus
	text := fmt.Sprintf("%s, %s %s, %s %s of crypto per connection (client and server together). ", lead, worstRow.Method, implName(worstRow), what, us(cost))
	text += fmt.Sprintf("An SSH login waits for at least %d network round trips (TCP, key exchange, authentication, channel): "+
		"about %.0f ms across a country, %.1f ms inside a data centre (typical figures, not measured here). ", loginRTTs, internetLogin/1000, lanLogin/1000)
	text += fmt.Sprintf("%s is %.1f%% of the first and %.0f%% of the second, so ", us(cost), 100*cost/internetLogin, 100*cost/lanLogin)
	switch {
	case cost < lanLogin/10:
		text += "nobody will notice it, across the internet or inside a data centre."
	case cost < internetLogin/10:
		text += "across the internet nobody will notice it; inside a data centre it lengthens a login measurably."
	default:
		text += "it lengthens a login measurably even across the internet."
	}
	para(text)
	para("For CPU it matters where one machine makes or accepts many connections per second: the hs/s column is then the limit per core.")
}

// usNum formats a cost in µs without the unit (the column says it).
func usNum(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
