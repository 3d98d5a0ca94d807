package mlkemhybrid

import (
	"crypto"
	"crypto/rand"
	"testing"
)

// BenchmarkDefaultReader measures one whole exchange (NewClient, Respond,
// Finish) with crypto/rand's Reader, as x/crypto/ssh passes it, on each
// curve and ML-KEM parameter set of the methods, outside FIPS mode: path=
// reader reads the seed, m and the classical key from the reader and
// passes them in (NewClientFrom, RespondFrom), path=self lets the ML-KEM
// implementation and the curve draw them (Method.SelfDrawn); both with the
// default backend. path=fips is what FIPS 140-3 mode runs (crypto/mlkem,
// self-drawn), for comparison. The faster of reader and self decides
// SelfDrawn for each method:
//
//	go test ./internal/mlkemhybrid -run '^$' -bench DefaultReader -count 6 > dr.txt
//	benchstat -col /path dr.txt
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
		for _, path := range []string{"reader", "self", "fips"} {
			m := Method{Prefix: c.name, Hash: c.h, Params: c.p, Curve: c.cu, SelfDrawn: path != "reader"}
			if path == "fips" {
				if c.cu.Name() == "X25519" {
					continue
				}
				m.KEM = Std(c.p)
			}
			b.Run("method="+c.name+"/path="+path, func(b *testing.B) {
				for b.Loop() {
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
				}
			})
		}
	}
}
