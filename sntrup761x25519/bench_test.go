package sntrup761x25519_test

import (
	"testing"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// The benchmarks have the same names as those of package mlkem768x25519,
// so the two methods compare with
//
//	go test ./mlkem768x25519 ./sntrup761x25519 -run '^$' -bench . -count 6 > bench.txt
//	benchstat -filter '/impl:pqkex' -col pkg bench.txt

var sinkK []byte

func BenchmarkClientInit(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			c, err := sntrup761x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = c.Init()
		}
	})
}

// BenchmarkClientInitPooled is ClientInit with keys generated in batches
// of 32, as a sntrup761.KeyPool makes them, through NewClientWithKey. The
// batches come from sntrup761.GenerateKeys in the measured goroutine, so
// that ns/op includes their amortized cost: a KeyPool generates in its own
// goroutine, which a second core would take out of the measured time.
func BenchmarkClientInitPooled(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		var keys []*sntrup761.DecapsulationKey
		for b.Loop() {
			if len(keys) == 0 {
				var err error
				if keys, err = sntrup761.GenerateKeys(32); err != nil {
					b.Fatal(err)
				}
			}
			dk := keys[0]
			keys = keys[1:]
			c, err := sntrup761x25519.NewClientWithKey(dk, nil)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = c.Init()
		}
	})
}

func BenchmarkRespond(b *testing.B) {
	c, err := sntrup761x25519.NewClient(nil)
	if err != nil {
		b.Fatal(err)
	}
	init := c.Init()
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			_, k, err := sntrup761x25519.Respond(nil, init)
			if err != nil {
				b.Fatal(err)
			}
			sinkK = k
		}
	})
}

func BenchmarkFinish(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			c, err := sntrup761x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := sntrup761x25519.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if sinkK, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkExchange(b *testing.B) {
	b.Run("impl=pqkex", func(b *testing.B) {
		for b.Loop() {
			c, err := sntrup761x25519.NewClient(nil)
			if err != nil {
				b.Fatal(err)
			}
			reply, _, err := sntrup761x25519.Respond(nil, c.Init())
			if err != nil {
				b.Fatal(err)
			}
			if sinkK, err = c.Finish(reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}
