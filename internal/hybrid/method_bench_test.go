package hybrid

import (
	"crypto"
	"crypto/rand"
	"io"
	"testing"
	"time"
)

// BenchmarkDefaultReader measures one whole exchange (NewClient, Respond,
// Finish) with crypto/rand's Reader, as x/crypto/ssh passes it, for each
// method's curve and ML-KEM parameter set outside FIPS mode, on two paths
// of the default backend: reader reads the seed, m and the classical key
// from the reader and passes them in (NewClientFrom, RespondFrom); self
// lets the ML-KEM implementation and the curve draw them (the path of an
// approved method in FIPS 140-3 mode). fips is what FIPS 140-3 mode runs
// (crypto/mlkem, self-drawn), for comparison. The paths alternate within
// every iteration, so that a busy machine slows them alike; each is
// reported as its own metric (reader-ns/op, ...) with the ratios
// self/reader and fips/reader. Self is what NewClient and Respond run for
// the default source (Method.drawsOwn), reader what they run for any
// other reader:
//
//	go test ./internal/hybrid -run '^$' -bench DefaultReader -count 10 > dr.txt
//	benchstat dr.txt
func BenchmarkDefaultReader(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Params
		cu   Curve
		h    crypto.Hash
	}{
		{"mlkem768nistp256", MLKEM768, P256(), crypto.SHA256},
		{"mlkem1024nistp384", MLKEM1024, P384(), crypto.SHA384},
		{"mlkem768x25519", MLKEM768, X25519(), crypto.SHA256},
	} {
		type path struct {
			name string
			m    Method
			self bool
		}
		paths := []path{
			{"reader", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu}, false},
			{"self", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu}, true},
		}
		if c.cu.Name() != "X25519" {
			paths = append(paths, path{"fips", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu, KEM: Std(c.p)}, true})
		}
		b.Run("method="+c.name, func(b *testing.B) {
			total := make([]time.Duration, len(paths))
			i := 0
			for b.Loop() {
				for j := range paths {
					k := (i + j) % len(paths) // rotate the order
					m, self := &paths[k].m, paths[k].self
					start := time.Now()
					var cl Client
					newClient, respond := func() error { return m.NewClientFrom(&cl, rand.Reader) }, m.RespondFrom
					if self {
						newClient = func() error { return m.newClientSelf(&cl) }
						respond = func(_ io.Reader, ci []byte) ([]byte, []byte, error) { return m.respondSelf(ci) }
					}
					if err := newClient(); err != nil {
						b.Fatal(err)
					}
					reply, _, err := respond(rand.Reader, m.Init(&cl))
					if err != nil {
						b.Fatal(err)
					}
					if sink, err = m.Finish(&cl, reply); err != nil {
						b.Fatal(err)
					}
					total[k] += time.Since(start)
				}
				i++
			}
			for k, p := range paths {
				b.ReportMetric(float64(total[k].Nanoseconds())/float64(i), p.name+"-ns/op")
				if k > 0 {
					b.ReportMetric(float64(total[k])/float64(total[0]), p.name+"/reader")
				}
			}
		})
	}
}
