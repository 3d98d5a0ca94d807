package kat

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/pqkex/pqkex/internal/hybrid"
)

// The Targets the ML-KEM files run on: a KEM alone, or a method's SSH
// messages.

// Target is one way to run an ML-KEM file's values. Each check returns an
// error for an output that differs from want or for rejected input; the
// runners decide from the case's verdict which of the two is right.
type Target interface {
	Label() string
	Params() string // "ML-KEM-768" or "ML-KEM-1024"
	// Expanded says whether key may be an expanded decapsulation key.
	Expanded() bool
	// KeyGen checks KeyGen_internal(seed) = ek (and the expanded dk, if
	// want and the target has it).
	KeyGen(seed, wantEK, wantDK []byte) error
	// Encaps checks Encaps_internal(ek, m) = (c, K).
	Encaps(ek, m, wantC, wantK []byte) error
	// Decaps checks that decapsulating c with key (a 64-byte seed or, if
	// Expanded, an expanded key) gives K.
	Decaps(key, c, wantK []byte) error
	// RejectsEK checks that an (unreduced) encapsulation key is refused.
	RejectsEK(ek []byte) error
}

// KEMTarget runs an ML-KEM implementation alone.
func KEMTarget(k hybrid.KEM) Target { return kemTarget{k} }

type kemTarget struct{ k hybrid.KEM }

func (t kemTarget) Label() string { return t.k.Impl() + " " + t.k.Name() }

func (t kemTarget) Params() string { return t.k.Name() }

func (t kemTarget) Expanded() bool { _, ok := t.k.(hybrid.ExpandedKEM); return ok }

func (t kemTarget) keyGen(seed []byte) (ek []byte, dk hybrid.DecapsulationKey, err error) {
	if len(seed) != 64 {
		return nil, nil, fmt.Errorf("seed has %d bytes", len(seed))
	}
	dk, err = t.k.NewDecapsulationKey(seed)
	if err != nil {
		return nil, nil, err
	}
	ek = make([]byte, t.k.EncapsulationKeySize())
	dk.EncapsulationKey(ek)
	return ek, dk, nil
}

func (t kemTarget) encaps(ek, m []byte) (c, key []byte, err error) {
	e, err := t.k.ParseEncapsulationKey(ek)
	if err != nil {
		return nil, nil, err
	}
	if len(m) != 32 {
		return nil, nil, fmt.Errorf("m has %d bytes", len(m))
	}
	c, key = make([]byte, t.k.CiphertextSize()), make([]byte, 32)
	return c, key, e.Encapsulate(c, key, bytes.NewReader(m))
}

func (t kemTarget) decaps(dk hybrid.DecapsulationKey, c []byte) ([]byte, error) {
	if len(c) != t.k.CiphertextSize() {
		return nil, fmt.Errorf("ciphertext has %d bytes", len(c))
	}
	key := make([]byte, 32)
	dk.Decapsulate(key, c)
	return key, nil
}

func (t kemTarget) KeyGen(seed, wantEK, wantDK []byte) error {
	ek, dk, err := t.keyGen(seed)
	if err != nil {
		return err
	}
	if !bytes.Equal(ek, wantEK) {
		return errors.New("ek differs")
	}
	if x, ok := t.k.(hybrid.ExpandedKEM); ok && wantDK != nil && !bytes.Equal(x.Expanded(dk), wantDK) {
		return errors.New("expanded dk differs")
	}
	return nil
}

func (t kemTarget) Encaps(ek, m, wantC, wantK []byte) error {
	c, key, err := t.encaps(ek, m)
	if err != nil {
		return err
	}
	if !bytes.Equal(c, wantC) || !bytes.Equal(key, wantK) {
		return errors.New("c or K differs")
	}
	return nil
}

func (t kemTarget) Decaps(key, c, wantK []byte) error {
	var dk hybrid.DecapsulationKey
	var err error
	if x, ok := t.k.(hybrid.ExpandedKEM); ok && len(key) != 64 {
		if len(key) != x.ExpandedSize() {
			return fmt.Errorf("expanded key has %d bytes", len(key))
		}
		dk, err = x.LoadExpanded(key)
	} else {
		_, dk, err = t.keyGen(key)
	}
	if err != nil {
		return err
	}
	got, err := t.decaps(dk, c)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, wantK) {
		return errors.New("the shared key K differs")
	}
	return nil
}

func (t kemTarget) RejectsEK(ek []byte) error {
	if len(ek) != t.k.EncapsulationKeySize() {
		return fmt.Errorf("%d-byte key", len(ek))
	}
	if _, err := t.k.ParseEncapsulationKey(ek); err == nil {
		return errors.New("unreduced key accepted")
	}
	return nil
}

// SSHTarget runs the ML-KEM values through a hybrid method's SSH messages
// (its explicit-key constructors), with a fixed classical key pair: ours
// (the client's or the server's) and the peer's public key. For X25519
// these are RFC 7748 section 6.1's (ours Alice's, the peer's Bob's), so
// K_CL is the RFC's shared secret.
func SSHTarget(ex Exchange) Target {
	f := classicalFixture(ex.Method.Curve)
	return sshTarget{ex, f}
}

type sshTarget struct {
	ex Exchange
	f  fixture
}

type fixture struct{ priv, pub, peer, shared []byte }

func classicalFixture(curve hybrid.Curve) fixture {
	if curve.Name() == "X25519" {
		return fixture{
			priv:   mustHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
			pub:    mustHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
			peer:   mustHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"),
			shared: mustHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"),
		}
	}
	// Two fixed scalars (every byte 1, every byte 2) through crypto/ecdh.
	cu := oracleCurves[curve.Name()]
	key := func(b byte) *ecdh.PrivateKey {
		k, err := cu.NewPrivateKey(bytes.Repeat([]byte{b}, curve.PrivateKeySize()))
		if err != nil {
			panic(err)
		}
		return k
	}
	ours, peer := key(1), key(2)
	shared, err := ours.ECDH(peer.PublicKey())
	if err != nil {
		panic(err)
	}
	return fixture{ours.Bytes(), ours.PublicKey().Bytes(), peer.PublicKey().Bytes(), shared}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func (t sshTarget) Label() string { return t.ex.Label + " " + t.ex.Name }

func (t sshTarget) Params() string { return t.ex.Method.Backend().Name() }

func (t sshTarget) Expanded() bool { return t.ex.Method.Expanded != nil }

func (t sshTarget) KeyGen(seed, wantEK, wantDK []byte) error {
	keys := [][]byte{seed}
	if wantDK != nil && t.Expanded() {
		keys = append(keys, wantDK)
	}
	for _, key := range keys {
		c, err := t.ex.NewClientWithKeys(key, t.f.priv)
		if err != nil {
			return err
		}
		if !bytes.Equal(c.Init(), cat(wantEK, t.f.pub)) {
			return errors.New("C_INIT is not ek || our public key")
		}
	}
	return nil
}

// errUnnamed marks a rejection whose error does not say what was wrong.
var errUnnamed = errors.New("the error names neither the client's value nor m")

func (t sshTarget) Encaps(ek, m, wantC, wantK []byte) error {
	reply, k, err := t.ex.RespondWithKeys(cat(ek, t.f.peer), m, t.f.priv)
	if err != nil && !strings.Contains(err.Error(), "client's ") && !strings.Contains(err.Error(), ": m has ") {
		return fmt.Errorf("%w: %v", errUnnamed, err)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(reply, cat(wantC, t.f.pub)) || !bytes.Equal(k, kexK(t.ex.Method.Hash, wantK, t.f.shared)) {
		return errors.New("S_REPLY is not c || our public key, or K is not string(HASH(K || K_CL))")
	}
	return nil
}

func (t sshTarget) Decaps(key, c, wantK []byte) error {
	cl, err := t.ex.NewClientWithKeys(key, t.f.priv)
	if err != nil {
		return err
	}
	k, err := cl.Finish(cat(c, t.f.peer))
	if err != nil {
		return err
	}
	if !bytes.Equal(k, kexK(t.ex.Method.Hash, wantK, t.f.shared)) {
		return errors.New("the client's K is not string(HASH(K || K_CL))")
	}
	return nil
}

func (t sshTarget) RejectsEK(ek []byte) error {
	_, _, err := t.ex.Respond(nil, cat(ek, t.f.peer))
	if err == nil || !strings.Contains(err.Error(), "client's ML-KEM") {
		return fmt.Errorf("respond: %v", err)
	}
	return nil
}

// Targets returns every KEM implementation and every Exchange whose KEM
// has the parameter set params as Targets.
func Targets(params hybrid.Params, exs ...Exchange) []Target {
	ts := []Target{KEMTarget(hybrid.Circl(params)), KEMTarget(hybrid.Std(params))}
	for _, ex := range exs {
		ts = append(ts, SSHTarget(ex))
	}
	return ts
}
