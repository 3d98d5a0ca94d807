package kat

import (
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// Client is a method's client after NewClient.
type Client interface {
	Init() []byte
	Finish(serverReply []byte) ([]byte, error)
}

// Exchange is one way to run a method: through its public API, or through
// the shared engine with a fixed KEM backend. The runners check vector
// files on Exchanges.
type Exchange struct {
	Label  string         // for test names: "public", "circl", "std" (crypto/mlkem), "pqkex", "baseline"
	Name   string         // SSH name
	Method *hybrid.Method // the method's description (hash, curve, KEM)
	// NewClient and Respond are the method's constructors (public API or
	// engine).
	NewClient func(rand io.Reader) (Client, error)
	Respond   func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)
	// NewClientWithKeys and RespondWithKeys are the explicit-key
	// constructors (the engine's: the public API has none): the KEM key
	// (ML-KEM seed d || z or expanded key, sntrup761 encoding), the KEM
	// randomness m, the classical private key.
	NewClientWithKeys func(kemKey, private []byte) (Client, error)
	RespondWithKeys   func(clientInit, m, private []byte) (serverReply, k []byte, err error)
	// IgnoresReader says that NewClient and Respond never read the reader
	// passed to them (a NIST-curve hybrid in FIPS 140-3 mode,
	// hybrid.Method.SelfDraws; the public APIs call the engine's NewClient
	// and Respond): the runners then check that, and take the byte-exact
	// values from the explicit-key constructors.
	IgnoresReader bool
}

type engineClient struct {
	m *hybrid.Method
	c hybrid.Client
}

func (c *engineClient) Init() []byte                     { return c.m.Init(&c.c) }
func (c *engineClient) Finish(sr []byte) ([]byte, error) { return c.m.Finish(&c.c, sr) }

// withKeys builds a client of the method m from explicit secrets, the
// known answers' form.
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
		Label: label, Name: name, Method: m,
		NewClient: func(rand io.Reader) (Client, error) {
			c := &engineClient{m: m}
			if err := m.NewClient(&c.c, rand); err != nil {
				return nil, err
			}
			return c, nil
		},
		Respond:           m.Respond,
		NewClientWithKeys: func(kemKey, private []byte) (Client, error) { return withKeys(m, kemKey, private) },
		RespondWithKeys:   m.RespondWithKeys,
		IgnoresReader:     m.SelfDraws(),
	}
}

// Backends returns the method's engine once per KEM implementation
// (ML-KEM: circl and crypto/mlkem; sntrup761: pqkex's), as Exchanges.
func Backends(name string, m hybrid.Method) []Exchange {
	kems := []hybrid.KEM{m.KEM}
	if m.KEM == nil {
		kems = []hybrid.KEM{hybrid.Circl(m.Params), hybrid.Std(m.Params)}
	}
	var out []Exchange
	for _, k := range kems {
		mm := m
		mm.KEM = k
		out = append(out, FromMethod(k.Impl(), name, &mm))
	}
	return out
}

// The methods' SSH names (and sntrup761x25519's alias); TestMethodNames
// checks them against the method packages' Name constants.
const (
	nameMLKEM768X25519    = "mlkem768x25519-sha256"
	nameSNTRUP761X25519   = "sntrup761x25519-sha512"
	aliasSNTRUP761X25519  = "sntrup761x25519-sha512@openssh.com"
	nameMLKEM768NISTP256  = "mlkem768nistp256-sha256"
	nameMLKEM1024NISTP384 = "mlkem1024nistp384-sha384"
)

// engine returns the engine of the method named name, or nil.
func engine(name string) *hybrid.Method {
	switch name {
	case nameMLKEM768X25519:
		return &hybrid.MLKEM768X25519
	case nameSNTRUP761X25519, aliasSNTRUP761X25519:
		return &hybrid.SNTRUP761X25519
	case nameMLKEM768NISTP256:
		return &hybrid.MLKEM768NISTP256
	case nameMLKEM1024NISTP384:
		return &hybrid.MLKEM1024NISTP384
	}
	return nil
}

// Public returns a method package's exported API, its NewClient and
// Respond, as an Exchange of the method named name (its SSH name, or
// sntrup761x25519's alias); the explicit-key constructors, which the
// public API does not have, are the engine's (the method's description,
// which the package wraps). This package imports no method package (it
// stands below them: internal/layering): its callers, vectors, the
// command and the tests, pass each package's functions in, as
// crypto/hpke takes the KEM it runs. It panics if name is not one of
// pqkex's methods.
func Public[C Client](name string, newClient func(rand io.Reader) (C, error),
	respond func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)) Exchange {
	m := engine(name)
	if m == nil {
		panic(fmt.Sprintf("kat: %q is not a pqkex method", name))
	}
	ex := FromMethod("public", name, m)
	ex.NewClient = func(r io.Reader) (Client, error) {
		c, err := newClient(r)
		if err != nil {
			return nil, err // not a non-nil interface holding a nil *Client
		}
		return c, nil
	}
	ex.Respond = respond
	return ex
}

// Methods are the methods' public APIs (Public), which Run checks the
// SSH exchanges, the ML-KEM files and the DH files against: one each, in
// the order the runners take them.
type Methods []Exchange

// Get returns the public API of the method named name (its SSH name, or
// sntrup761x25519's alias, which the result then carries), or an error if
// ms has none.
func (ms Methods) Get(name string) (Exchange, error) {
	if m := engine(name); m != nil {
		for _, ex := range ms {
			if ex.Method == m {
				ex.Name = name
				return ex, nil
			}
		}
	}
	return Exchange{}, fmt.Errorf("vectors: no method %q among the methods given to the runners", name)
}
