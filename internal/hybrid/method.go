package hybrid

import (
	"bytes"
	"crypto"
	"crypto/fips140"
	"fmt"
	"io"
)

// Method is one hybrid method. Its fields are fixed at package init.
type Method struct {
	// Prefix starts every error: the Go package name of the method.
	Prefix string
	// Hash is the method's HASH (K, exchange hash, key derivation).
	Hash crypto.Hash
	// Params is the ML-KEM parameter set.
	Params Params
	// Curve is the classical half.
	Curve Curve
	// KEM, if set, fixes the ML-KEM implementation (tests and
	// benchmarks); nil means Default(Params) at every call, so FIPS
	// 140-3 mode always gets crypto/mlkem.
	KEM KEM
	// Expanded, if set, loads an expanded decapsulation key for the
	// explicit-key constructor (mlkem768x25519's known answers; circl only).
	Expanded func(dk []byte) (DecapsulationKey, error)
	// Approved says that every algorithm of the method is approved in
	// FIPS 140-3 (the NIST-curve hybrids). In FIPS 140-3 mode such a
	// method's NewClient, NewClientWithKEMKey and Respond draw every
	// secret inside the ML-KEM and curve implementations (crypto/mlkem's
	// GenerateKey and Encapsulate, crypto/ecdh's GenerateKey) and never
	// read the caller's reader. Every method, in any mode, does the same
	// for the default source (IsDefault: nil or crypto/rand's Reader);
	// given another reader, outside FIPS 140-3 mode or for a method not
	// approved, they read the secrets from that reader and pass them in
	// (NewClientFrom, RespondFrom), the path the known answers check.
	// NewClientFrom and RespondFrom called directly read the reader in
	// every mode.
	Approved bool
}

// SelfDraws reports whether NewClient and Respond draw their secrets
// inside the ML-KEM and curve implementations (nil seed and m,
// Curve.Generate) whatever reader they are given, instead of reading them
// from the caller's reader (NewClientFrom, RespondFrom): an approved
// method in FIPS 140-3 mode.
func (m *Method) SelfDraws() bool { return m.Approved && fips140.Enabled() }

// drawsOwn is where NewClient, NewClientWithKEMKey and Respond decide,
// once per call, where the secrets come from: from the implementations'
// own generation (a nil reader below this point: crypto/mlkem's
// GenerateKey and Encapsulate, sntrup761 and the X25519 key reading
// crypto/rand themselves, crypto/ecdh's GenerateKey) if m.SelfDraws() or
// rand is the default source, else from rand. No layer below compares
// readers.
func (m *Method) drawsOwn(rand io.Reader) bool { return m.SelfDraws() || IsDefault(rand) }

// Backend is the KEM implementation the method runs on now: KEM if set,
// else Default(Params) (crypto/mlkem in FIPS 140-3 mode).
func (m *Method) Backend() KEM {
	if m.KEM != nil {
		return m.KEM
	}
	return Default(m.Params)
}

// ClientInitSize is the size of C_INIT.
func (m *Method) ClientInitSize() int {
	return m.Backend().EncapsulationKeySize() + m.Curve.PublicKeySize()
}

// ServerReplySize is the size of S_REPLY.
func (m *Method) ServerReplySize() int {
	return m.Backend().CiphertextSize() + m.Curve.PublicKeySize()
}

const kemSecretSize = 32 // K_PQ for every ML-KEM parameter set

// Client holds a client's ephemeral secrets between C_INIT and S_REPLY.
// Its zero value is "not created by NewClient".
type Client struct {
	dk       DecapsulationKey // nil once Finish was called
	ec       ClassicalKey
	init     []byte
	finished bool
}

// NewClient generates the client's keys. If m.SelfDraws() or rand is the
// default source (nil or crypto/rand's Reader), the KEM and the curve draw
// them (from the Go Cryptographic Module in FIPS 140-3 mode where it
// implements them: crypto/mlkem, crypto/ecdh); otherwise it is
// NewClientFrom(c, rand).
func (m *Method) NewClient(c *Client, rand io.Reader) error {
	if !m.drawsOwn(rand) {
		return m.NewClientFrom(c, rand)
	}
	return m.newClientSelf(c)
}

// newClientSelf is NewClient with the KEM's and the curve's own key
// generation.
func (m *Method) newClientSelf(c *Client) error {
	dk, err := m.Backend().NewDecapsulationKey(nil)
	if err != nil {
		return fmt.Errorf("%s: %s key generation: %w", m.Prefix, m.Backend().Name(), err)
	}
	return m.setKeysSelf(c, dk)
}

// NewClientFrom generates the client's keys from rand (crypto/rand if
// nil), as the known answers do, in every mode: the KEM's key generation
// randomness (KEM.GenerateKey: for ML-KEM the 64-byte seed d || z), then
// the classical private key (Curve.GenerateKey). Not an approved service.
func (m *Method) NewClientFrom(c *Client, rand io.Reader) error {
	r := NewRand(rand, m.Prefix)
	dk, err := m.Backend().GenerateKey(r)
	if err != nil {
		if r.Failed() {
			return r.Wrap(err)
		}
		return fmt.Errorf("%s: %s key generation: %w", m.Prefix, m.Backend().Name(), err)
	}
	return m.setKeysFrom(c, dk, r)
}

// NewClientWithKEMKey is NewClient with a ready KEM key (used for this
// key exchange only, for example one from a sntrup761.KeyPool): only the
// classical private key is generated, by the curve (as NewClient decides)
// or read from rand. The Client owns dk from then on.
func (m *Method) NewClientWithKEMKey(c *Client, dk DecapsulationKey, rand io.Reader) error {
	if !m.drawsOwn(rand) {
		return m.setKeysFrom(c, dk, NewRand(rand, m.Prefix))
	}
	return m.setKeysSelf(c, dk)
}

// setKeysSelf generates the classical private key with the curve's own
// key generation and sets c's keys. It clears dk if that fails.
func (m *Method) setKeysSelf(c *Client, dk DecapsulationKey) error {
	ec, err := m.Curve.Generate()
	if err != nil {
		dk.Clear()
		return fmt.Errorf("%s: %s key generation: %w", m.Prefix, m.Curve.Name(), err)
	}
	m.setKeys(c, dk, ec)
	return nil
}

// setKeysFrom reads the classical private key from r whatever the mode
// (NewClientFrom's second part, NewClientWithKEMKey's for a caller's
// reader) and sets c's keys. It clears dk if the read fails.
func (m *Method) setKeysFrom(c *Client, dk DecapsulationKey, r *Rand) error {
	ec, err := m.Curve.GenerateKey(r)
	if err != nil {
		dk.Clear()
		return err
	}
	m.setKeys(c, dk, ec)
	return nil
}

// NewClientWithKeys is NewClient from explicit secrets (explicit-key
// constructors): kemKey is the 64-byte seed d || z, or an expanded
// decapsulation key if m.Expanded is set; ecPrivate is the classical
// private key.
func (m *Method) NewClientWithKeys(c *Client, kemKey, ecPrivate []byte) error {
	ec, err := m.Curve.NewKey(ecPrivate)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Prefix, err)
	}
	var dk DecapsulationKey
	switch {
	case m.Expanded != nil && len(kemKey) == ExpandedSize768:
		if dk, err = m.Expanded(kemKey); err != nil {
			err = fmt.Errorf("invalid %s decapsulation key", m.Backend().Name())
		}
	case m.Expanded != nil && len(kemKey) != 64:
		err = fmt.Errorf("%s key has %d bytes, want 64 or %d", m.Backend().Name(), len(kemKey), ExpandedSize768)
	case kemKey == nil:
		err = fmt.Errorf("%s: no KEM key", m.Prefix)
	default:
		dk, err = m.Backend().NewDecapsulationKey(kemKey) // checks the length
	}
	if err != nil {
		ec.Clear()
		return fmt.Errorf("%s: %w", m.Prefix, err)
	}
	m.setKeys(c, dk, ec)
	return nil
}

func (m *Method) setKeys(c *Client, dk DecapsulationKey, ec ClassicalKey) {
	ekSize := m.Backend().EncapsulationKeySize()
	*c = Client{dk: dk, ec: ec, init: make([]byte, m.ClientInitSize())}
	dk.EncapsulationKey(c.init[:ekSize])
	ec.PublicKey(c.init[ekSize:])
}

// Init returns a copy of C_INIT. It panics if c was not made by NewClient.
func (m *Method) Init(c *Client) []byte {
	if c.init == nil {
		panic(m.Prefix + ": Client not created by NewClient")
	}
	return append([]byte(nil), c.init...)
}

// Finish processes S_REPLY and returns K. It may be called once: it clears
// the client's secrets whether or not it succeeds.
func (m *Method) Finish(c *Client, serverReply []byte) ([]byte, error) {
	if c.finished {
		return nil, fmt.Errorf("%s: Finish called twice on the same Client", m.Prefix)
	}
	if c.dk == nil {
		return nil, fmt.Errorf("%s: Client not created by NewClient", m.Prefix)
	}
	defer c.clear()
	ctSize := m.Backend().CiphertextSize()
	if want := m.ServerReplySize(); len(serverReply) != want {
		return nil, fmt.Errorf("%s: server's S_REPLY has %d bytes, want %d", m.Prefix, len(serverReply), want)
	}
	var kPQ [kemSecretSize]byte
	var kCLBuf [48]byte
	kCL := kCLBuf[:m.Curve.SecretSize()]
	defer clear(kPQ[:])
	defer clear(kCL)
	// Constant time in the secrets: the point checks look only at public
	// bytes, the scalar multiplications (circl X25519, crypto/ecdh) and the
	// decapsulation below are constant time, and K is a fixed-length
	// concatenation hashed whole. An early return reveals only that the
	// public S_REPLY was malformed.
	if err := c.ec.ECDH(kCL, serverReply[ctSize:]); err != nil {
		return nil, fmt.Errorf("%s: server's %s public key %v", m.Prefix, m.Curve.Name(), err)
	}
	// The length is exact; a bad ciphertext yields the implicit-rejection
	// key (FIPS 203 Algorithm 18), not an error.
	c.dk.Decapsulate(kPQ[:], serverReply[:ctSize])
	return SharedSecret(m.Hash, kPQ[:], kCL), nil
}

func (c *Client) clear() {
	if c.dk != nil {
		c.dk.Clear()
		c.dk = nil
	}
	if c.ec != nil {
		c.ec.Clear()
		c.ec = nil
	}
	c.finished = true
}

// Respond is the server side: it checks C_INIT and returns S_REPLY and
// K. If m.SelfDraws() or rand is the default source, the KEM and the
// curve draw the encapsulation randomness and the classical key (the
// module's randomized ML-KEM.Encaps, and crypto/ecdh's GenerateKey, in
// FIPS 140-3 mode); otherwise it is RespondFrom.
func (m *Method) Respond(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	if !m.drawsOwn(rand) {
		return m.RespondFrom(rand, clientInit)
	}
	return m.respondSelf(clientInit)
}

// respondSelf is Respond with the KEM's own encapsulation randomness and
// the curve's own key generation.
func (m *Method) respondSelf(clientInit []byte) (serverReply, k []byte, err error) {
	ek, err := m.parseInit(clientInit)
	if err != nil {
		return nil, nil, err
	}
	var kPQ [kemSecretSize]byte
	defer clear(kPQ[:])
	serverReply, err = m.encapsulate(ek, &kPQ, nil)
	if err != nil {
		return nil, nil, err
	}
	ec, err := m.Curve.Generate()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s key generation: %w", m.Prefix, m.Curve.Name(), err)
	}
	return m.respond(clientInit, serverReply, &kPQ, ec)
}

// RespondFrom is Respond reading from rand (crypto/rand if nil) as the
// known answers do: the KEM's encapsulation randomness (RandomnessSize
// bytes: ML-KEM's 32-byte m, read by the KEM), then the classical private
// key. Not an approved service.
func (m *Method) RespondFrom(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error) {
	ek, err := m.parseInit(clientInit)
	if err != nil {
		return nil, nil, err
	}
	r := NewRand(rand, m.Prefix)
	var kPQ [kemSecretSize]byte
	defer clear(kPQ[:])
	if serverReply, err = m.encapsulate(ek, &kPQ, r); err != nil {
		if r.Failed() {
			return nil, nil, r.Wrap(err)
		}
		return nil, nil, err
	}
	ec, err := m.Curve.GenerateKey(r)
	if err != nil {
		return nil, nil, err
	}
	return m.respond(clientInit, serverReply, &kPQ, ec)
}

// RespondWithKeys is Respond with explicit m and classical private key
// (explicit-key constructors).
func (m *Method) RespondWithKeys(clientInit, mRand, ecPrivate []byte) (serverReply, k []byte, err error) {
	if want := m.Backend().RandomnessSize(); len(mRand) != want {
		return nil, nil, fmt.Errorf("%s: m has %d bytes, want %d", m.Prefix, len(mRand), want)
	}
	ec, err := m.Curve.NewKey(ecPrivate)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.Prefix, err)
	}
	ek, err := m.parseInit(clientInit)
	if err != nil {
		ec.Clear()
		return nil, nil, err
	}
	var kPQ [kemSecretSize]byte
	defer clear(kPQ[:])
	if serverReply, err = m.encapsulate(ek, &kPQ, bytes.NewReader(mRand)); err != nil {
		ec.Clear()
		return nil, nil, err
	}
	return m.respond(clientInit, serverReply, &kPQ, ec)
}

// parseInit checks C_INIT's length and the encapsulation key (FIPS 203
// section 7.2).
func (m *Method) parseInit(clientInit []byte) (EncapsulationKey, error) {
	if want := m.ClientInitSize(); len(clientInit) != want {
		return nil, fmt.Errorf("%s: client's C_INIT has %d bytes, want %d", m.Prefix, len(clientInit), want)
	}
	kem := m.Backend()
	ek, err := kem.ParseEncapsulationKey(clientInit[:kem.EncapsulationKeySize()])
	if err != nil {
		// The only possible failure at this length is the modulus check.
		return nil, fmt.Errorf("%s: client's %s encapsulation key is invalid (a coefficient is not reduced modulo q, FIPS 203 section 7.2)", m.Prefix, kem.Name())
	}
	return ek, nil
}

// encapsulate encapsulates to ek with the randomness read from r (the
// KEM's own if nil), returning a new S_REPLY with the ciphertext in place
// and kPQ set.
func (m *Method) encapsulate(ek EncapsulationKey, kPQ *[kemSecretSize]byte, r io.Reader) ([]byte, error) {
	kem := m.Backend()
	serverReply := make([]byte, m.ServerReplySize())
	if err := ek.Encapsulate(serverReply[:kem.CiphertextSize()], kPQ[:], r); err != nil {
		return nil, fmt.Errorf("%s: %s encapsulation: %w", m.Prefix, kem.Name(), err)
	}
	return serverReply, nil
}

// respond finishes the server's side once S_REPLY holds the ciphertext:
// it checks the client's public key, computes K_CL with ec, appends our
// public key and returns S_REPLY and K.
func (m *Method) respond(clientInit, serverReply []byte, kPQ *[kemSecretSize]byte, ec ClassicalKey) ([]byte, []byte, error) {
	defer ec.Clear()
	kem := m.Backend()
	ekSize, ctSize := kem.EncapsulationKeySize(), kem.CiphertextSize()
	var kCLBuf [48]byte
	kCL := kCLBuf[:m.Curve.SecretSize()]
	defer clear(kCL)
	// As in Finish: only public bytes decide the errors; the secret
	// operations are constant time.
	if err := ec.ECDH(kCL, clientInit[ekSize:]); err != nil {
		return nil, nil, fmt.Errorf("%s: client's %s public key %v", m.Prefix, m.Curve.Name(), err)
	}
	ec.PublicKey(serverReply[ctSize:])
	return serverReply, SharedSecret(m.Hash, kPQ[:], kCL), nil
}
