// The dudect check of the public SSH layer: the client's Finish (the
// decapsulation of the server's ciphertext plus X25519) on valid and
// invalid ciphertexts, and the server's Respond on fixed and random
// randomness, for both hybrid methods. The sntrup761 core is checked in
// detail by sntrup761/internal/core (TestDudect there). A long run:
//
//	PQKEX_LONG=1 go test -run TestDudectPublic -timeout 0 -v ./internal/testkit/dudect

package dudect_test

import (
	"bytes"
	cryptorand "crypto/rand"
	"io"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/dudect"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

const (
	x25519Size     = 32
	sntrupRandSize = 3044 // the r of sntrup761 encapsulation
)

// respondFunc is the Respond function of a method package.
type respondFunc func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)

// finisher is a client of either method.
type finisher interface {
	Init() []byte
	Finish([]byte) ([]byte, error)
}

// finishTarget measures Finish of a client made by newClient from the
// fixed randomness seed (the same client each time; untimed, in Load) on
// replies from respond: class 0 a valid reply (pool of 256), class 1 the
// same with the ciphertext replaced by random bytes (implicit rejection),
// keeping the valid X25519 share.
func finishTarget[C finisher](t *testing.T, replySize int, seed []byte, newClient func(io.Reader) (C, error), respond respondFunc) dudect.Target {
	var r bytes.Reader
	fresh := func() finisher {
		r.Reset(seed)
		c, err := newClient(&r)
		if err != nil {
			panic(err)
		}
		return c
	}
	rng := dudect.NewRNG()
	init := fresh().Init()
	pool := make([][]byte, 256)
	for i := range pool {
		var err error
		if pool[i], _, err = respond(nil, init); err != nil {
			t.Fatal(err)
		}
	}
	replies := make([][]byte, 1000)
	for i := range replies {
		replies[i] = make([]byte, replySize)
	}
	clients := make([]finisher, len(replies))
	return dudect.Target{
		Slots: len(replies),
		Prepare: func(i, class int) {
			copy(replies[i], pool[rng.IntN(len(pool))])
			if class == 1 {
				dudect.Fill(rng, replies[i][:replySize-x25519Size])
			}
			clients[i] = nil
		},
		Load: func(i int) { clients[i] = fresh() },
		Run: func(i int) {
			if _, err := clients[i].Finish(replies[i]); err != nil {
				panic(err)
			}
		},
	}
}

// respondTarget measures Respond on a fixed C_INIT (of a client from
// newClient) with class 0 a fixed random stream and class 1 fresh random
// streams of seedLen bytes.
func respondTarget[C finisher](t *testing.T, seedLen int, newClient func(io.Reader) (C, error), respond respondFunc) dudect.Target {
	c, err := newClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	init := c.Init()
	rng := dudect.NewRNG()
	fixed := make([]byte, seedLen)
	dudect.Fill(rng, fixed)
	seeds := make([][]byte, 1000)
	readers := make([]bytes.Reader, len(seeds))
	for i := range seeds {
		seeds[i] = make([]byte, seedLen)
	}
	return dudect.Target{
		Slots: len(seeds),
		Prepare: func(i, class int) {
			dudect.Fill(rng, seeds[i])
			if class == 0 {
				copy(seeds[i], fixed)
			}
			readers[i].Reset(seeds[i])
		},
		Run: func(i int) {
			if _, _, err := respond(&readers[i], init); err != nil {
				panic(err)
			}
		},
	}
}

var publicCases = []dudect.Case{
	{
		Name:  "sntrup761x25519/Finish/valid-vs-random-ct",
		About: "one client key pair; class 0 a valid S_REPLY, class 1 random ciphertext bytes with a valid X25519 share",
		Setup: func(t *testing.T) dudect.Target {
			dk, err := sntrup761.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			priv := make([]byte, x25519Size)
			cryptorand.Read(priv)
			// Finish forgets dk in the Client but leaves dk itself
			// intact, so one key serves every client here.
			newClient := func(r io.Reader) (*sntrup761x25519.Client, error) {
				return sntrup761x25519.NewClientWithKey(dk, r)
			}
			return finishTarget(t, sntrup761x25519.ServerReplySize, priv, newClient, sntrup761x25519.Respond)
		},
	},
	{
		Name:  "sntrup761x25519/Respond/fixed-vs-random",
		About: "one C_INIT; class 0 a fixed 3044+32-byte random stream, class 1 fresh random streams",
		Setup: func(t *testing.T) dudect.Target {
			return respondTarget(t, sntrupRandSize+x25519Size, sntrup761x25519.NewClient, sntrup761x25519.Respond)
		},
	},
	{
		Name:  "mlkem768x25519/Finish/valid-vs-random-ct",
		About: "one client key pair (fixed 96-byte seed); class 0 a valid S_REPLY, class 1 random ciphertext bytes with a valid X25519 share",
		Setup: func(t *testing.T) dudect.Target {
			seed := make([]byte, 64+x25519Size)
			cryptorand.Read(seed)
			return finishTarget(t, mlkem768x25519.ServerReplySize, seed, mlkem768x25519.NewClient, mlkem768x25519.Respond)
		},
	},
	{
		Name:  "mlkem768x25519/Respond/fixed-vs-random",
		About: "one C_INIT; class 0 a fixed 32+32-byte random stream, class 1 fresh random streams",
		Setup: func(t *testing.T) dudect.Target {
			return respondTarget(t, 32+x25519Size, mlkem768x25519.NewClient, mlkem768x25519.Respond)
		},
	},
}

func TestDudectPublic(t *testing.T) { dudect.RunCases(t, publicCases) }
