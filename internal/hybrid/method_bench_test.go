package hybrid

import (
	"crypto"
	"crypto/rand"
	"testing"
	"time"
)

// BenchmarkDefaultReader measures one whole exchange (NewClient, Respond,
// Finish) with crypto/rand's Reader, as x/crypto/ssh passes it, for each
// method's curve and ML-KEM parameter set outside FIPS mode, on two paths
// of the default backend: reader reads the seed, m and the classical key
// from the reader and passes them in (NewClientFrom, RespondFrom); self
// lets the ML-KEM implementation and the curve draw them
// (Method.SelfDrawn). fips is what FIPS 140-3 mode runs (crypto/mlkem,
// self-drawn), for comparison. The paths alternate within every iteration,
// so that a busy machine slows them alike; each is reported as its own
// metric (reader-ns/op, ...) with the ratios self/reader and fips/reader.
// The faster of reader and self decides SelfDrawn for each method:
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
		paths := []struct {
			name string
			m    Method
		}{
			{"reader", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu}},
			{"self", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu, SelfDrawn: true}},
		}
		if c.cu.Name() != "X25519" {
			paths = append(paths, struct {
				name string
				m    Method
			}{"fips", Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu, SelfDrawn: true, KEM: Std(c.p)}})
		}
		b.Run("method="+c.name, func(b *testing.B) {
			total := make([]time.Duration, len(paths))
			i := 0
			for b.Loop() {
				for j := range paths {
					k := (i + j) % len(paths) // rotate the order
					m := &paths[k].m
					start := time.Now()
					var cl Client
					if err := m.NewClient(&cl, rand.Reader); err != nil {
						b.Fatal(err)
					}
					reply, _, err := m.Respond(rand.Reader, m.Init(&cl))
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
