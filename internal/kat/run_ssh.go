package kat

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/mlkem"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/pqkex/pqkex/internal/hybrid"
	"io"
	"strconv"
	"strings"

	"github.com/pqkex/pqkex/kexhash"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// The OpenSSH-generated SSH vectors, run through the method packages and
// kexhash: every exchange byte-exact (C_INIT, both payloads, S_REPLY, K,
// H, derived keys, the host key signature over H), each KEM half with the
// KEM alone, and every invalid or edge case with its documented outcome.

type sshClient interface {
	Init() []byte
	Finish(serverReply []byte) ([]byte, error)
}

// sshMethod describes one hybrid method for RunSSH.
type sshMethod struct {
	name              string
	hash              crypto.Hash
	initSize          int
	replySize         int
	kemPublicSize     int
	kemCiphertextSize int
	serverKEMRandom   int // bytes the server reads for the KEM before its X25519 key
	newClient         func(io.Reader) (sshClient, error)
	newClientKeys     func(kemKey, x25519Private []byte) (sshClient, error)
	respond           func(io.Reader, []byte) ([]byte, []byte, error)
	// clientKEMKey reads the client's KEM key generation randomness from
	// stream and returns its private key in the vector file's form,
	// computed with the KEM alone.
	clientKEMKey func(stream io.Reader) ([]byte, error)
	// checkKEM checks the KEM half of an exchange with the KEM alone.
	checkKEM func(tc *SSHTest) error
	// decapsulate decapsulates ct with a private key in the file's form,
	// with the KEM alone.
	decapsulate func(kemKey, ct []byte) ([]byte, error)
	// invalidKEMKey reports whether a KEM public key must be rejected, as
	// an independent implementation decides; nil if every key is valid.
	invalidKEMKey func(ek []byte) bool
}

var mlkemSSH = &sshMethod{
	name:              mlkem768x25519.Name,
	hash:              mlkem768x25519.Hash,
	initSize:          mlkem768x25519.ClientInitSize,
	replySize:         mlkem768x25519.ServerReplySize,
	kemPublicSize:     1184,
	kemCiphertextSize: 1088,
	serverKEMRandom:   32,
	newClient: func(r io.Reader) (sshClient, error) {
		c, err := mlkem768x25519.NewClient(r)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	newClientKeys: func(k, x []byte) (sshClient, error) {
		c, err := withKeys(&hybrid.MLKEM768X25519, k, x)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	respond: mlkem768x25519.Respond,
	clientKEMKey: func(stream io.Reader) ([]byte, error) {
		seed := make([]byte, 64)
		if _, err := io.ReadFull(stream, seed); err != nil {
			return nil, err
		}
		_, dk, _, _ := circlKeyFromSeed(seed)
		return dk, nil
	},
	checkKEM: func(tc *SSHTest) error {
		seed := Calls(tc.ClientRandomCalls, "mlkem768_keygen_seed_d_then_z")
		m := Calls(tc.ServerRandomCalls, "mlkem768_encaps_m")
		if len(seed) != 1 || len(m) != 1 {
			return errors.New("recorded ML-KEM random calls missing")
		}
		ek, dk, sk, ok := circlKeyFromSeed(seed[0])
		if !ok {
			return errors.New("ML-KEM seed rejected")
		}
		if err := firstErr(equal("ML-KEM encapsulation key", ek, tc.ClientKEMPublic),
			equal("ML-KEM decapsulation key", dk, tc.ClientKEMPrivate)); err != nil {
			return err
		}
		k, c, ok := circlEncaps(ek, m[0])
		if !ok {
			return errors.New("ML-KEM encapsulation failed")
		}
		if err := firstErr(equal("ML-KEM ciphertext", c, tc.KEMCiphertext),
			equal("ML-KEM encapsulated key", k, tc.KEMSharedSecret)); err != nil {
			return err
		}
		k, _ = circlDecaps(sk, tc.KEMCiphertext)
		return equal("ML-KEM decapsulated key", k, tc.KEMSharedSecret)
	},
	decapsulate: func(kemKey, ct []byte) ([]byte, error) {
		sk, ok := circlExpanded(kemKey)
		if !ok {
			return nil, errors.New("ML-KEM decapsulation key rejected")
		}
		k, ok := circlDecaps(sk, ct)
		if !ok {
			return nil, errors.New("ML-KEM ciphertext rejected")
		}
		return k, nil
	},
	invalidKEMKey: func(ek []byte) bool {
		_, err := mlkem.NewEncapsulationKey768(ek)
		return err != nil
	},
}

var sntrupSSH = &sshMethod{
	name:              sntrup761x25519.Name,
	hash:              sntrup761x25519.Hash,
	initSize:          sntrup761x25519.ClientInitSize,
	replySize:         sntrup761x25519.ServerReplySize,
	kemPublicSize:     sntrup761.EncapsulationKeySize,
	kemCiphertextSize: sntrup761.CiphertextSize,
	serverKEMRandom:   3044,
	newClient: func(r io.Reader) (sshClient, error) {
		c, err := sntrup761x25519.NewClient(r)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	newClientKeys: func(k, x []byte) (sshClient, error) {
		c, err := withKeys(&hybrid.SNTRUP761X25519, k, x)
		if err != nil {
			return nil, err
		}
		return c, nil
	},
	respond: sntrup761x25519.Respond,
	clientKEMKey: func(stream io.Reader) ([]byte, error) {
		dk, err := sntrup761test.GenerateKey(stream)
		if err != nil {
			return nil, err
		}
		return dk.Bytes(), nil
	},
	checkKEM: func(tc *SSHTest) error {
		client := &callReader{Calls(tc.ClientRandomCalls, "sntrup761_keygen_small_random_g",
			"sntrup761_keygen_short_random_f", "sntrup761_keygen_rho")}
		dk, err := sntrup761test.GenerateKey(client)
		if err != nil {
			return fmt.Errorf("sntrup761 key generation: %v", err)
		}
		if !client.done() {
			return errors.New("sntrup761 key generation left recorded random calls unused")
		}
		if err := firstErr(equal("sntrup761 decapsulation key", dk.Bytes(), tc.ClientKEMPrivate),
			equal("sntrup761 encapsulation key", dk.EncapsulationKey().Bytes(), tc.ClientKEMPublic)); err != nil {
			return err
		}
		server := &callReader{Calls(tc.ServerRandomCalls, "sntrup761_encaps_short_random_r")}
		ss, ct, err := sntrup761test.Encapsulate(dk.EncapsulationKey(), server)
		if err != nil {
			return fmt.Errorf("sntrup761 encapsulation: %v", err)
		}
		if err := firstErr(equal("sntrup761 ciphertext", ct, tc.KEMCiphertext),
			equal("sntrup761 encapsulated key", ss, tc.KEMSharedSecret)); err != nil {
			return err
		}
		ss, err = dk.Decapsulate(tc.KEMCiphertext)
		if err != nil {
			return err
		}
		return equal("sntrup761 decapsulated key", ss, tc.KEMSharedSecret)
	},
	decapsulate: func(kemKey, ct []byte) ([]byte, error) {
		dk, err := sntrup761.NewDecapsulationKey(kemKey)
		if err != nil {
			return nil, err
		}
		return dk.Decapsulate(ct)
	},
}

// sshMethods maps an SSH vector file's algorithm to its method.
var sshMethods = map[string]*sshMethod{
	mlkem768x25519.Name:       mlkemSSH,
	sntrup761x25519.Name:      sntrupSSH,
	sntrup761x25519.AliasName: sntrupSSH,
}

// RunSSH checks every exchange and every invalid or edge case of an SSH
// vector file generated with OpenSSH.
//
// Exchanges: the client and server are fed the recorded random calls and
// must produce Q_C, Q_S, both payloads and K byte for byte; K must be
// string(HASH(K_PQ || K_CL)) of the recorded intermediate secrets, which
// X25519 and the KEM alone must reproduce; H, the six derived keys and
// the host key signature over H must match. Edge cases: inputs OpenSSH
// rejects must be rejected for the documented reason; accepted ones must
// give OpenSSH's K, except that a peer X25519 key with bit 255 set must
// give the RFC 7748 value (K_ssh_string_if_bit255_masked).
func RunSSH(v *SSHFile) Result {
	m := sshMethods[v.Algorithm]
	if m == nil {
		return Result{Skipped: fmt.Sprintf("SSH vectors for %s, which pqkex does not implement", v.Algorithm)}
	}
	var r Result
	hostPriv, trErr := sshHostKey(&v.Transcript)
	for i := range v.Tests {
		tc := &v.Tests[i]
		err := trErr
		if err == nil {
			err = checkSSHExchange(m, &v.Transcript, hostPriv, tc)
		}
		r.record(tc.String(), err)
	}
	for i := range v.EdgeTests {
		tc := &v.EdgeTests[i]
		r.record("edge tcId "+strconv.Itoa(tc.TcID), checkSSHEdge(m, tc))
	}
	return r
}

// sshHostKey checks the transcript's host key (seed, public key and K_S
// blob agree) and returns the private key.
func sshHostKey(tr *SSHTranscript) (ed25519.PrivateKey, error) {
	if len(tr.HostKeySeed) != ed25519.SeedSize {
		return nil, errors.New("transcript: host key seed is not 32 bytes")
	}
	priv := ed25519.NewKeyFromSeed(tr.HostKeySeed)
	pub := priv.Public().(ed25519.PublicKey)
	if !bytes.Equal(pub, tr.HostKeyPublic) {
		return nil, errors.New("transcript: host key seed and public key differ")
	}
	if !bytes.Equal(tr.KS, sshString(sshString(nil, []byte("ssh-ed25519")), pub)) {
		return nil, errors.New("transcript: K_S is not the ssh-ed25519 blob of the host key")
	}
	return priv, nil
}

func checkSSHExchange(m *sshMethod, tr *SSHTranscript, hostPriv ed25519.PrivateKey, tc *SSHTest) error {
	// Client: every recorded random call, in order.
	calls, err := allCalls(tc.ClientRandomCalls)
	if err != nil {
		return err
	}
	cr := &callReader{calls}
	client, err := m.newClient(cr)
	if err != nil {
		return fmt.Errorf("client: %v", err)
	}
	if !cr.done() {
		return errors.New("the client left recorded random calls unused")
	}
	init := client.Init()
	if len(init) != m.initSize {
		return fmt.Errorf("C_INIT has %d bytes", len(init))
	}
	if err := firstErr(
		equal("C_INIT", init, tc.QC),
		equal("Q_C (KEM public key || X25519 public key)", tc.QC, cat(tc.ClientKEMPublic, tc.ClientX25519Pub)),
		equal("SSH_MSG_KEX_ECDH_INIT payload", tc.InitPayload, sshString([]byte{30}, init)),
	); err != nil {
		return err
	}

	// Server.
	calls, err = allCalls(tc.ServerRandomCalls)
	if err != nil {
		return err
	}
	sr := &callReader{calls}
	reply, kS, err := m.respond(sr, tc.QC)
	if err != nil {
		return fmt.Errorf("server: %v", err)
	}
	if !sr.done() {
		return errors.New("the server left recorded random calls unused")
	}
	if len(reply) != m.replySize {
		return fmt.Errorf("S_REPLY has %d bytes", len(reply))
	}
	if err := firstErr(
		equal("S_REPLY", reply, tc.QS),
		equal("Q_S (ciphertext || X25519 public key)", tc.QS, cat(tc.KEMCiphertext, tc.ServerX25519Pub)),
		equal("server K", kS, tc.K),
	); err != nil {
		return err
	}

	// Client finish.
	kC, err := client.Finish(tc.QS)
	if err != nil {
		return fmt.Errorf("client: %v", err)
	}
	if err := equal("client K", kC, tc.K); err != nil {
		return err
	}
	if _, err := client.Finish(tc.QS); err == nil {
		return errors.New("a second Finish succeeded")
	}

	// K's encoding and the intermediate secrets, with X25519 and the KEM
	// alone.
	if err := firstErr(
		equal("shared_secret_hash_input (K_PQ || K_CL)", tc.HashInput, cat(tc.KEMSharedSecret, tc.X25519Shared)),
		equal("shared_secret_hash", tc.SharedSecretHash, hashOf(m.hash, tc.HashInput)),
		equal("K_ssh_string (string of the hash)", tc.K, sshString(nil, tc.SharedSecretHash)),
	); err != nil {
		return err
	}
	x := Calls(tc.ClientRandomCalls, "x25519_client_private")
	xs := Calls(tc.ServerRandomCalls, "x25519_server_private")
	if len(x) != 1 || len(xs) != 1 || !bytes.Equal(x[0], tc.ClientX25519Priv) || !bytes.Equal(xs[0], tc.ServerX25519Priv) {
		return errors.New("X25519 private keys are not the recorded calls")
	}
	if err := firstErr(
		equal("client X25519 public key", circlPublic(tc.ClientX25519Priv), tc.ClientX25519Pub),
		equal("server X25519 public key", circlPublic(tc.ServerX25519Priv), tc.ServerX25519Pub),
	); err != nil {
		return err
	}
	for _, p := range [][2][]byte{{tc.ClientX25519Priv, tc.ServerX25519Pub}, {tc.ServerX25519Priv, tc.ClientX25519Pub}} {
		if s, low := circlX25519(p[0], p[1]); low || !bytes.Equal(s, tc.X25519Shared) {
			return errors.New("X25519 shared secret differs")
		}
	}
	if err := m.checkKEM(tc); err != nil {
		return err
	}

	// Exchange hash and key derivation (session_id = H): all six letters,
	// 128 bytes and shorter prefixes.
	H := kexhash.ExchangeHash(m.hash, []byte(tr.VC), []byte(tr.VS), tr.IC, tr.IS, tr.KS, init, reply, kC)
	if err := equal("exchange hash H", H, tc.H); err != nil {
		return err
	}
	if len(tc.DerivedKeys) != 6 {
		return fmt.Errorf("%d derived keys, want 6", len(tc.DerivedKeys))
	}
	for _, letter := range []byte("ABCDEF") {
		want := tc.DerivedKeys[string(letter)]
		if len(want) != 128 {
			return fmt.Errorf("derived key %c has %d bytes, want 128", letter, len(want))
		}
		for _, n := range []int{16, 32, 64, 100, 128} {
			if got := kexhash.DeriveKey(m.hash, kC, H, H, letter, n); !bytes.Equal(got, want[:n]) {
				return fmt.Errorf("derived key %c (%d bytes) differs", letter, n)
			}
		}
	}

	// The server's signature over H: it verifies with the host key and,
	// Ed25519 being deterministic, is reproducible.
	sig, ok := parseStrings(tc.SignatureBlob, 2)
	if !ok || string(sig[0]) != "ssh-ed25519" || len(sig[1]) != ed25519.SignatureSize {
		return errors.New("bad host key signature blob")
	}
	if !ed25519.Verify(hostPriv.Public().(ed25519.PublicKey), H, sig[1]) {
		return errors.New("host key signature over H does not verify")
	}
	want := sshString(sshString(sshString([]byte{31}, tr.KS), reply), tc.SignatureBlob)
	if err := firstErr(
		equal("signature over H", ed25519.Sign(hostPriv, H), sig[1]),
		equal("SSH_MSG_KEX_ECDH_REPLY payload", tc.ReplyPayload, want),
	); err != nil {
		return err
	}

	// The same exchange through the explicit-key test package.
	c2, err := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
	if err != nil {
		return fmt.Errorf("client from explicit keys: %v", err)
	}
	if err := equal("C_INIT from explicit keys", c2.Init(), tc.QC); err != nil {
		return err
	}
	k, err := c2.Finish(tc.QS)
	if err != nil {
		return fmt.Errorf("client from explicit keys: %v", err)
	}
	return equal("K from explicit keys", k, tc.K)
}

// edgeKind classifies an edge case by what is wrong with the input, from
// the input itself and an independent implementation (not pqkex's code):
// "length", "ek" (invalid KEM public key) or "x25519".
func edgeKind(m *sshMethod, tc *SSHEdgeTest) string {
	switch {
	case tc.Role == "server" && len(tc.QC) != m.initSize:
		return "length"
	case tc.Role == "client" && len(tc.QS) != m.replySize:
		return "length"
	case tc.Role == "server" && m.invalidKEMKey != nil && m.invalidKEMKey(tc.QC[:m.kemPublicSize]):
		return "ek"
	}
	return "x25519"
}

// edgeError is what the error of a rejected edge case must say.
func edgeError(role, kind string) string {
	peer := map[string]string{"server": "client's ", "client": "server's "}[role]
	switch kind {
	case "length":
		return peer + map[string]string{"server": "C_INIT has ", "client": "S_REPLY has "}[role]
	case "ek":
		return peer + "ML-KEM-768 encapsulation key is invalid"
	}
	return peer + "X25519 public key is a low-order point"
}

func checkSSHEdge(m *sshMethod, tc *SSHEdgeTest) error {
	if tc.Result != "accept" && tc.Result != "reject" {
		return fmt.Errorf("result %q", tc.Result)
	}
	var k, reply []byte
	var err error
	switch tc.Role {
	case "server":
		reply, k, err = m.respond(shakeStream(tc.ServerStream), tc.QC)
		if tc.ServerX25519Priv != nil {
			s := make([]byte, m.serverKEMRandom+32)
			io.ReadFull(shakeStream(tc.ServerStream), s)
			if !bytes.Equal(s[m.serverKEMRandom:], tc.ServerX25519Priv) {
				return errors.New("the server stream does not give the recorded X25519 key")
			}
		}
	case "client":
		// The client's keys come from its stream; check them against the
		// recorded keys with X25519 and the KEM alone.
		stream := shakeStream(tc.ClientStream)
		kemKey, err2 := m.clientKEMKey(stream)
		if err2 != nil {
			return err2
		}
		x := make([]byte, 32)
		io.ReadFull(stream, x)
		if !bytes.Equal(kemKey, tc.ClientKEMPrivate) || !bytes.Equal(x, tc.ClientX25519Priv) {
			return errors.New("the client stream does not give the recorded keys")
		}
		c, err2 := m.newClient(shakeStream(tc.ClientStream))
		if err2 != nil {
			return fmt.Errorf("client: %v", err2)
		}
		if err := equal("C_INIT", c.Init(), tc.QC); err != nil {
			return err
		}
		k, err = c.Finish(tc.QS)
		// The same through the explicit-key test package.
		c2, err2 := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
		if err2 != nil {
			return fmt.Errorf("client from explicit keys: %v", err2)
		}
		k2, err2 := c2.Finish(tc.QS)
		if !bytes.Equal(k, k2) || (err == nil) != (err2 == nil) {
			return errors.New("explicit keys give a different outcome")
		}
		// A modified ciphertext decapsulates (implicitly rejected) to
		// OpenSSH's value with the KEM alone.
		if tc.KEMSharedSecret != nil && len(tc.QS) >= m.kemCiphertextSize {
			ss, err2 := m.decapsulate(tc.ClientKEMPrivate, tc.QS[:m.kemCiphertextSize])
			if err2 != nil {
				return err2
			}
			if err := equal("decapsulated KEM key", ss, tc.KEMSharedSecret); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("role %q", tc.Role)
	}

	if tc.Result == "reject" {
		if err == nil {
			return errors.New("accepted, OpenSSH rejects")
		}
		if want := edgeError(tc.Role, edgeKind(m, tc)); !strings.Contains(err.Error(), want) {
			return fmt.Errorf("rejected with %q, want it to say %q", err, want)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("rejected (%v), OpenSSH accepts", err)
	}
	if tc.Role == "server" && tc.QS != nil {
		if err := equal("S_REPLY", reply, tc.QS); err != nil {
			return err
		}
	}
	if tc.KMasked == nil {
		// A modified ciphertext: implicit rejection, K as OpenSSH derives it.
		return equal("K", k, tc.K)
	}

	// A peer X25519 key with bit 255 set: pqkex follows RFC 7748 (the bit
	// is ignored), OpenSSH does not.
	if len(tc.QC) != m.initSize || len(tc.QS) != m.replySize {
		return errors.New("bit-255 case without complete Q_C and Q_S")
	}
	peerPub, priv := tc.QS[m.kemCiphertextSize:], tc.ClientX25519Priv
	if tc.Role == "server" {
		peerPub, priv = tc.QC[m.kemPublicSize:], tc.ServerX25519Priv
	}
	if peerPub[31]&0x80 == 0 {
		return errors.New("the peer's X25519 key does not have bit 255 set")
	}
	if s, low := circlX25519(priv, peerPub); low || !bytes.Equal(s, tc.X25519SharedMasked) {
		return errors.New("X25519 does not give the masked shared secret")
	}
	if err := equal("K (RFC 7748 value, K_ssh_string_if_bit255_masked)", k, tc.KMasked); err != nil {
		return err
	}
	if tc.Role == "server" {
		// The client whose share was altered, finishing with its honest
		// key, agrees with our server: the bit is ignored.
		c, err := m.newClientKeys(tc.ClientKEMPrivate, tc.ClientX25519Priv)
		if err != nil {
			return fmt.Errorf("client from explicit keys: %v", err)
		}
		kc, err := c.Finish(reply)
		if err != nil {
			return fmt.Errorf("honest client: %v", err)
		}
		return equal("honest client's K", kc, k)
	}
	return nil
}

// callReader returns each recorded random call's bytes from one Read, so
// the reader reproduces OpenSSH's call pattern.
type callReader struct{ calls [][]byte }

func (r *callReader) Read(p []byte) (int, error) {
	if len(r.calls) == 0 {
		return 0, errExhausted
	}
	c := r.calls[0]
	if len(p) != len(c) {
		return 0, errCallSize
	}
	r.calls = r.calls[1:]
	return copy(p, c), nil
}

func (r *callReader) done() bool { return len(r.calls) == 0 }

var (
	errExhausted = errors.New("recorded random calls exhausted")
	errCallSize  = errors.New("read size differs from the recorded call")
)

// allCalls returns the bytes of every recorded random call, in order.
func allCalls(calls []RandomCall) ([][]byte, error) {
	out := make([][]byte, len(calls))
	for i, c := range calls {
		if len(c.Hex) != c.Len {
			return nil, fmt.Errorf("random call %d (%s): %d bytes, len says %d", i, c.Purpose, len(c.Hex), c.Len)
		}
		out[i] = c.Hex
	}
	return out, nil
}

// shakeStream is the randomness of the SSH vector files' edge cases:
// SHAKE256 of the stream label, read sequentially.
func shakeStream(label string) io.Reader {
	s := sha3.NewSHAKE256()
	s.Write([]byte(label))
	return s
}

// sshString appends the SSH string encoding of b, written out here rather
// than taken from kexhash.
func sshString(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// parseStrings splits b into SSH strings; ok is false unless b is exactly
// a sequence of n strings.
func parseStrings(b []byte, n int) (out [][]byte, ok bool) {
	for range n {
		if len(b) < 4 {
			return nil, false
		}
		l := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(l) {
			return nil, false
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	return out, len(b) == 0
}

func hashOf(h crypto.Hash, b []byte) []byte {
	switch h {
	case crypto.SHA256:
		s := sha256.Sum256(b)
		return s[:]
	case crypto.SHA512:
		s := sha512.Sum512(b)
		return s[:]
	}
	panic("vectors: unexpected hash")
}

// kexK is the K of a hybrid method, string(HASH(K_PQ || K_CL)), computed
// here rather than by the method packages.
func kexK(h crypto.Hash, kPQ, kCL []byte) []byte {
	return sshString(nil, hashOf(h, cat(kPQ, kCL)))
}

// cat returns a new slice holding a then b.
func cat(a, b []byte) []byte {
	return append(bytes.Clone(a), b...)
}
