package hybridtest

import (
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
)

// Baseline is kat.Baseline: crypto/mlkem + crypto/ecdh + hash.Hash, what
// a straightforward Go implementation of a NIST-curve hybrid does.
func Baseline(name string) Exchange { return kat.Baseline(name) }

// CheckInterop runs a against b in both directions.
func CheckInterop(t *testing.T, a, b Exchange) {
	t.Helper()
	for _, p := range [][2]Exchange{{a, b}, {b, a}} {
		c, err := p[0].NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := p[1].Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || string(kC) != string(kS) {
			t.Fatalf("%s client, %s server: %v", p[0].Label, p[1].Label, err)
		}
	}
}

//lint:ignore U1000 storing results keeps the benchmarked calls from being optimized away
var sink []byte

// Bench runs the exchange's steps as sub-benchmarks named impl=<label>:
// ClientInit (NewClient + Init), Respond, Finish and Exchange (all three).
// Compare implementations with benchstat -col /impl.
func Bench(b *testing.B, exs ...Exchange) {
	for _, step := range []string{"ClientInit", "Respond", "Finish", "Exchange"} {
		b.Run(step, func(b *testing.B) {
			for _, ex := range exs {
				b.Run("impl="+ex.Label, func(b *testing.B) { benchStep(b, ex, step) })
			}
		})
	}
}

func benchStep(b *testing.B, ex Exchange, step string) {
	c0, err := ex.NewClient(nil)
	if err != nil {
		b.Fatal(err)
	}
	init := c0.Init()
	for b.Loop() {
		switch step {
		case "ClientInit":
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			sink = c.Init()
		case "Respond":
			_, k, err := ex.Respond(nil, init)
			if err != nil {
				b.Fatal(err)
			}
			sink = k
		case "Finish":
			b.StopTimer()
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := ex.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if sink, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		case "Exchange":
			c, err := ex.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := ex.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			if sink, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	}
}
