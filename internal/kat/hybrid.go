package kat

// The NIST-curve hybrids (mlkem768nistp256-sha256, mlkem1024nistp384-sha384)
// and their parts: an Exchange is one way to run a method, the runners in
// hybrid_ssh.go, hybrid_mlkem.go and hybrid_ecdh.go check the vector files
// of these methods on Exchanges and ML-KEM implementations
// (hybrid.KEM). They take a TB: the methods' tests pass their
// *testing.T (through internal/hybridtest, with their own files and
// implementations), vectors.Run a recorder (RunSSHHybrid and the other
// Run functions in hybrid_run.go).

import (
	"crypto"
	"io"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// Client is a method's client after NewClient.
type Client interface {
	Init() []byte
	Finish(serverReply []byte) ([]byte, error)
}

// Exchange is one way to run a method: through its public API or through
// the shared engine with a fixed ML-KEM backend.
type Exchange struct {
	Label     string // for test names: "public", "circl", "std" (crypto/mlkem), "baseline"
	Name      string // SSH name
	Hash      crypto.Hash
	Curve     hybrid.Curve
	NewClient func(rand io.Reader) (Client, error)
	Respond   func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)
	// NewClientWithKeys and RespondWithKeys are the explicit-key constructors.
	NewClientWithKeys func(seed, private []byte) (Client, error)
	RespondWithKeys   func(clientInit, m, private []byte) (serverReply, k []byte, err error)
	// IgnoresReader says that NewClient and Respond never read the reader
	// passed to them (a NIST-curve hybrid in FIPS 140-3 mode): the
	// runners then check that, and take the byte-exact values from the
	// explicit-key constructors.
	IgnoresReader bool
}

type engineClient struct {
	m *hybrid.Method
	c hybrid.Client
}

func (c *engineClient) Init() []byte                     { return c.m.Init(&c.c) }
func (c *engineClient) Finish(sr []byte) ([]byte, error) { return c.m.Finish(&c.c, sr) }

// withKeys builds a client of the method m from explicit secrets, the
// known answers' form: the KEM key (an ML-KEM seed d || z or expanded key,
// an sntrup761 encoding) and the classical private key.
func withKeys(m *hybrid.Method, kemKey, private []byte) (Client, error) {
	c := &engineClient{m: m}
	if err := m.NewClientWithKeys(&c.c, kemKey, private); err != nil {
		return nil, err
	}
	return c, nil
}

// FromMethod runs m (a copy of a method's engine, typically with KEM set
// to one backend) as an Exchange.
func FromMethod(label, name string, m *hybrid.Method) Exchange {
	return Exchange{
		Label: label, Name: name, Hash: m.Hash, Curve: m.Curve,
		NewClient: func(rand io.Reader) (Client, error) {
			c := &engineClient{m: m}
			if err := m.NewClient(&c.c, rand); err != nil {
				return nil, err
			}
			return c, nil
		},
		Respond: m.Respond,
		NewClientWithKeys: func(seed, private []byte) (Client, error) {
			return withKeys(m, seed, private)
		},
		RespondWithKeys: m.RespondWithKeys,
		IgnoresReader:   m.SelfDraws(strings.NewReader("")),
	}
}

// Backends returns the method's engine once per ML-KEM implementation
// (circl, crypto/mlkem), as Exchanges.
func Backends(name string, m hybrid.Method) []Exchange {
	var out []Exchange
	for _, k := range []hybrid.KEM{hybrid.Circl(m.Params), hybrid.Std(m.Params)} {
		mm := m
		mm.KEM = k
		out = append(out, FromMethod(k.Impl(), name, &mm))
	}
	return out
}
