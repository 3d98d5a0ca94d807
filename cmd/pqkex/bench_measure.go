package main

import (
	"sort"
	"time"
)

// measureKex times the client's two steps together (NewClient and Init,
// then Finish) and the server's step (Respond).
func measureKex(c benchCase, d time.Duration) benchRow {
	cInit := c.client().Init()
	sReply := c.server(cInit)
	minN := 1
	if c.variant == "batch" {
		minN = 2 * batchSize // whole pool refills in every round
	}
	client := measureMin(d, minN, func() {
		cl := c.client()
		cl.Init()
		// Implicit rejection costs the same as success.
		if _, err := cl.Finish(sReply); err != nil {
			panic(err) // crypto/rand never fails; the inputs are our own
		}
	})
	server := measure(d, func() { c.server(cInit) })
	kex := client.median + server.median
	return benchRow{Method: c.ex.Name, Impl: c.impl, Variant: c.variant,
		ClientUS: round1(client.median), ServerUS: round1(server.median), KexUS: round1(kex), KexPerS: round1(1e6 / kex),
		Samples: client.rounds, SpreadPct: round1(max(client.spreadPct(), server.spreadPct())),
		kexLo: client.min + server.min, kexHi: client.max + server.max,
		kexSpread: max(client.spreadPct(), server.spreadPct())}
}

// addHandshakes records a handshake measurement in the row.
func (r *benchRow) addHandshakes(h stat) {
	r.HandshakesPerS = round1(1e6 / h.median)
	r.SpreadPct = max(r.SpreadPct, round1(h.spreadPct()))
	r.hsLo, r.hsHi, r.hsSpread = h.min, h.max, h.spreadPct()
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
