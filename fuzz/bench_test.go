package fuzz

import "testing"

//lint:ignore U1000 storing results keeps the benchmarked calls from being optimized away
var sink []byte

// BenchmarkMethods runs each method's steps (benchMethod): for example
//
//	go test ./fuzz -run '^$' -bench 'Methods/mlkem768nistp256' -count 6
func BenchmarkMethods(b *testing.B) {
	for _, m := range methods {
		b.Run(m.Name, func(b *testing.B) { benchMethod(b, m.Name) })
	}
}

// benchMethod runs the steps of the method named name as sub-benchmarks named
// impl=<label> (the public API, the engine on each KEM implementation, the
// baseline where there is one): ClientInit (NewClient and Init), Respond,
// Finish and Exchange (all three). Compare them with benchstat -col /impl.
func benchMethod(b *testing.B, name string) {
	m := lookup(name)
	exs := m.exchanges()
	if m.Baseline != nil {
		exs = append(exs, m.Baseline(m))
	}
	for _, step := range []string{"ClientInit", "Respond", "Finish", "Exchange"} {
		b.Run(step, func(b *testing.B) {
			for _, ex := range exs {
				b.Run("impl="+ex.Label, func(b *testing.B) { benchStep(b, ex, step) })
			}
		})
	}
}

func benchStep(b *testing.B, ex Exchange, step string) {
	check := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	c0, err := ex.NewClient(nil)
	check(err)
	init := c0.Init()
	for b.Loop() {
		if step == "Respond" {
			_, sink, err = ex.Respond(nil, init)
			check(err)
			continue
		}
		if step == "Finish" {
			b.StopTimer()
		}
		c, err := ex.NewClient(nil)
		check(err)
		if sink = c.Init(); step == "ClientInit" {
			continue
		}
		reply, _, err := ex.Respond(nil, sink)
		check(err)
		b.StartTimer()
		sink, err = c.Finish(reply)
		check(err)
	}
}
