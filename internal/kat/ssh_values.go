package kat

import (
	"bytes"
	"crypto"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
)

// What the SSH runners check values with: crypto/ecdh and the KEM alone,
// the recorded randomness, and SSH's encodings written out.

// oracleECDH checks with crypto/ecdh that priv's shared secret with peer
// is want.
func oracleECDH(curve string, priv, peer, want []byte) error {
	if s, err := oracleShared(curve, priv, peer); err != nil || !bytes.Equal(s, want) {
		return errors.New("crypto/ecdh shared secret differs")
	}
	return nil
}

// oracleShared is crypto/ecdh's shared secret of priv and peer.
func oracleShared(curve string, priv, peer []byte) ([]byte, error) {
	cu := oracleCurves[curve]
	k, err := cu.NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	p, err := cu.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return k.ECDH(p)
}

// kemAlone checks the KEM half of an exchange with the KEM alone: key
// generation from the recorded calls gives ek, the file's private key
// (expanded ML-KEM key where the implementation loads one; sntrup761's
// encoding) has the same ek, encapsulation with the server's m gives ct
// and the key, and decapsulation of ct gives the key. The file's values
// are checked for length first: the KEM's Decapsulate and Encapsulate
// take only the right sizes.
func kemAlone(k hybrid.KEM, calls [][]byte, m, filePriv, wantEK, wantCT, wantK []byte) error {
	switch {
	case len(wantEK) != k.EncapsulationKeySize():
		return fmt.Errorf("client_kem_public_key has %d bytes, want %d", len(wantEK), k.EncapsulationKeySize())
	case len(wantCT) != k.CiphertextSize():
		return fmt.Errorf("kem_ciphertext has %d bytes, want %d", len(wantCT), k.CiphertextSize())
	case len(m) != k.RandomnessSize():
		return fmt.Errorf("the server's KEM random calls hold %d bytes, want %d", len(m), k.RandomnessSize())
	}
	r := &callReader{calls}
	dk, err := k.GenerateKey(r)
	if err != nil || len(r.calls) != 0 {
		return errors.New("key generation failed or left recorded calls unused")
	}
	keys := []hybrid.DecapsulationKey{dk}
	if x, ok := k.(hybrid.ExpandedKEM); ok {
		if !bytes.Equal(x.Expanded(dk), filePriv) {
			return errors.New("expanded decapsulation key differs")
		}
	} else if k.Name() == "sntrup761" {
		d2, err := k.NewDecapsulationKey(filePriv)
		if err != nil {
			return err
		}
		keys = append(keys, d2)
	}
	for _, d := range keys {
		ek, got := make([]byte, len(wantEK)), make([]byte, 32)
		d.EncapsulationKey(ek)
		d.Decapsulate(got, wantCT)
		if !bytes.Equal(ek, wantEK) || !bytes.Equal(got, wantK) {
			return errors.New("encapsulation key or decapsulated key differs")
		}
	}
	e, err := k.ParseEncapsulationKey(wantEK)
	if err != nil {
		return err
	}
	ct, key := make([]byte, len(wantCT)), make([]byte, 32)
	if err := e.Encapsulate(ct, key, bytes.NewReader(m)); err != nil || !bytes.Equal(ct, wantCT) || !bytes.Equal(key, wantK) {
		return errors.New("encapsulation differs")
	}
	return nil
}

// explicitKEMKey reads a KEM key generation's randomness from r and
// returns the key in the form the explicit-key constructors take: the
// ML-KEM seed d || z itself, sntrup761's encoded key (its key generation
// has no seed).
func explicitKEMKey(k hybrid.KEM, r io.Reader) ([]byte, error) {
	if k.Name() != "sntrup761" {
		seed := make([]byte, 64)
		_, err := io.ReadFull(r, seed)
		return seed, err
	}
	if r == nil {
		return nil, errors.New("no reader for the sntrup761 key")
	}
	dk, err := sntrup761test.GenerateKey(r)
	if err != nil {
		return nil, err
	}
	return dk.Bytes(), nil
}

// callReader returns each recorded random call's bytes from one Read, so
// the reader reproduces the generator's call pattern.
type callReader struct{ calls [][]byte }

func (r *callReader) Read(p []byte) (int, error) {
	if len(r.calls) == 0 {
		return 0, errors.New("recorded random calls exhausted")
	}
	c := r.calls[0]
	if len(p) != len(c) {
		return 0, errors.New("read size differs from the recorded call")
	}
	r.calls = r.calls[1:]
	return copy(p, c), nil
}

// shakeStream is the randomness of the SSH vector files' edge cases:
// SHAKE256 of the stream label, read sequentially.
func shakeStream(label string) io.Reader {
	s := sha3.NewSHAKE256()
	s.Write([]byte(label))
	return s
}

// Stream returns the first n bytes of shakeStream(label).
func Stream(label string, n int) []byte {
	out := make([]byte, n)
	shakeStream(label).Read(out)
	return out
}

// sshString appends the SSH string encoding of b, written out here rather
// than taken from kexhash.
func sshString(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// kexK is the K of a hybrid method, string(HASH(K_PQ || K_CL)), computed
// here rather than by the engine.
func kexK(h crypto.Hash, kPQ, kCL []byte) []byte {
	d := h.New()
	d.Write(kPQ)
	d.Write(kCL)
	return sshString(nil, d.Sum(nil))
}

// cat returns a new slice holding a then b.
func cat(a, b []byte) []byte { return append(bytes.Clone(a), b...) }
