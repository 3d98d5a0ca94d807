package fuzz

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/internal/kat"
)

// Client and Exchange are internal/kat's: one way to run a method.
type (
	Client   = kat.Client
	Exchange = kat.Exchange
)

// exchangeAcrossBackends runs one whole exchange of the method m with the
// client on each backend and the server on the other (circl client with a
// crypto/mlkem server, and back): both sides must derive the same K.
func exchangeAcrossBackends(t *testing.T, name string, m hybrid.Method) {
	t.Helper()
	b := kat.Backends(name, m)
	for _, pair := range [][2]Exchange{{b[0], b[1]}, {b[1], b[0]}} {
		c, err := pair[0].NewClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, kS, err := pair[1].Respond(nil, c.Init())
		if err != nil {
			t.Fatal(err)
		}
		if kC, err := c.Finish(reply); err != nil || string(kC) != string(kS) {
			t.Fatalf("%s client, %s server: %v", pair[0].Label, pair[1].Label, err)
		}
	}
}
