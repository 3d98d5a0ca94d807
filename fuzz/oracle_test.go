package fuzz

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	_ "crypto/sha256" // the methods' hashes, for the oracles
	_ "crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/pqkex/pqkex/internal/kat"
	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/sntrup761test"
	"github.com/pqkex/pqkex/vectors"
)

// The oracles recompute each verdict and K independently of the engine,
// from crypto/mlkem (mlkemtest for a given m), sntrup761's own API and
// crypto/ecdh, following the specifications directly: exact lengths, the
// FIPS 203 section 7.2 key check, uncompressed points on the NIST curves,
// a non-zero X25519 result, K = string(HASH(K_PQ || K_CL)).

// kemOracle is a KEM outside the engine: encaps parses ek (ok false if it
// is refused) and encapsulates with the randomness r; keyGen makes the
// key of the key generation bytes r.
type kemOracle struct {
	encaps func(ek, r []byte) (ct, k []byte, ok bool)
	keyGen func(r []byte) (ek []byte, decaps func(ct []byte) []byte)
}

func oracleOf[EK interface{ Bytes() []byte }, DK interface {
	EncapsulationKey() EK
	Decapsulate([]byte) ([]byte, error)
}](parse func([]byte) (EK, error), encaps func(EK, []byte) ([]byte, []byte, error), newKey func([]byte) (DK, error)) kemOracle {
	return kemOracle{
		encaps: func(ek, r []byte) ([]byte, []byte, bool) {
			e, err := parse(ek)
			if err != nil {
				return nil, nil, false
			}
			k, ct, err := encaps(e, r)
			return ct, k, err == nil
		},
		keyGen: func(r []byte) ([]byte, func([]byte) []byte) {
			dk, err := newKey(r)
			if err != nil {
				panic(err)
			}
			return dk.EncapsulationKey().Bytes(), func(ct []byte) []byte {
				k, err := dk.Decapsulate(ct)
				if err != nil {
					panic(err) // ct has the right length
				}
				return k
			}
		},
	}
}

var (
	mlkem768Oracle  = oracleOf(mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768, mlkem.NewDecapsulationKey768)
	mlkem1024Oracle = oracleOf(mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024, mlkem.NewDecapsulationKey1024)
	sntrupOracle    = oracleOf(sntrup761.NewEncapsulationKey,
		func(ek *sntrup761.EncapsulationKey, r []byte) ([]byte, []byte, error) {
			return sntrup761test.Encapsulate(ek, bytes.NewReader(r))
		},
		func(r []byte) (*sntrup761.DecapsulationKey, error) {
			return sntrup761test.GenerateKey(bytes.NewReader(r))
		})
)

// ecdhOracle returns crypto/ecdh's public key of priv and its shared
// secret with peer, nil if SSH refuses peer.
func (m *Method) ecdhOracle(priv, peer []byte) (pub, secret []byte) {
	sk, err := m.ecdh.NewPrivateKey(priv)
	if err != nil {
		panic(err) // our own fixed key
	}
	if pk, err := m.ecdh.NewPublicKey(peer); err == nil && (m.Curve == "X25519" || peer[0] == 4) {
		secret, _ = sk.ECDH(pk)
	}
	return sk.PublicKey().Bytes(), secret
}

func (m *Method) kOracle(kPQ, kCL []byte) []byte {
	h := m.Hash.New()
	h.Write(kPQ)
	h.Write(kCL)
	return h.Sum(binary.BigEndian.AppendUint32(nil, uint32(m.Hash.Size())))
}

// ours is our side's fixed secrets in the oracle checks, and the oracle's
// key from them.
type ours struct {
	keyGen, kemKey, priv []byte // client
	server               []byte // encapsulation randomness, private key
	ek                   []byte
	decaps               func(ct []byte) []byte
}

func (m *Method) ours() *ours {
	fs := m.Engine.Curve.PrivateKeySize()
	o := &ours{keyGen: kat.Stream(m.Prefix+"|fuzz|client", m.KeyGen), priv: kat.Stream(m.Prefix+"|fuzz|client|ec", fs),
		server: kat.Stream(m.Prefix+"|fuzz|server", m.Encaps+fs)}
	o.priv[0] &= 0x7f // below n on both NIST curves
	o.server[m.Encaps] &= 0x7f
	o.kemKey = m.KEMKey(o.keyGen)
	o.ek, o.decaps = m.oracle.keyGen(o.keyGen)
	return o
}

// checkRespond runs ex.Respond on in with our server secrets and checks it
// against the oracles: the same verdict; on accept their S_REPLY and K; on
// refusal an error naming the client's value and why, holding none of the
// input or our secrets. Respond must agree with RespondWithKeys and, where
// it reads its reader (not in FIPS 140-3 mode), read exactly our secrets.
// It returns Respond's error.
func (m *Method) checkRespond(t TB, ex Exchange, o *ours, in []byte) error {
	t.Helper()
	mr, priv, r := o.server[:m.Encaps], o.server[m.Encaps:], bytes.NewReader(o.server)
	reply, k, err := ex.Respond(r, in)
	reply2, k2, err2 := ex.RespondWithKeys(in, mr, priv)
	if (err == nil) != (err2 == nil) || !ex.IgnoresReader && (!bytes.Equal(reply, reply2) || !bytes.Equal(k, k2) || err == nil && r.Len() != 0) {
		t.Fatalf("Respond (%v, %d bytes unread) and RespondWithKeys (%v) differ", err, r.Len(), err2)
	}
	reply, k = reply2, k2
	var why string
	var ct, kPQ, pub, kCL []byte
	ok := len(in) == m.Sizes[0]
	if !ok {
		why = fmt.Sprintf("client's C_INIT has %d bytes, want %d", len(in), m.Sizes[0])
	} else if ct, kPQ, ok = m.oracle.encaps(in[:m.EKSize], mr); !ok {
		if !m.ChecksEK {
			t.Fatal("the oracle refused a key of a KEM that takes any")
		}
		why = "client's " + m.KEM + " encapsulation key is invalid"
	} else if pub, kCL = m.ecdhOracle(priv, in[m.EKSize:]); kCL == nil {
		why = "client's " + m.Curve + " public key" + m.PointError
	}
	if why != "" {
		ErrorHasNoSecrets(t, err, m.Prefix, why, in, o.server)
		return err
	}
	if err != nil {
		t.Fatalf("Respond refused a valid C_INIT: %v", err)
	}
	if !bytes.Equal(reply, append(ct, pub...)) || !bytes.Equal(k, m.kOracle(kPQ, kCL)) {
		t.Fatal("S_REPLY or K differs from the oracle's")
	}
	return nil
}

// newClient makes a client with our secrets: NewClient reading them, or
// where it ignores its reader the explicit-key constructor. Both must give
// the oracles' C_INIT, and NewClient must read exactly our secrets.
func (m *Method) newClient(t TB, ex Exchange, o *ours) Client {
	t.Helper()
	r := bytes.NewReader(append(bytes.Clone(o.keyGen), o.priv...))
	c, err := ex.NewClient(r)
	c2, err2 := ex.NewClientWithKeys(o.kemKey, o.priv)
	if err != nil || err2 != nil || !ex.IgnoresReader && (r.Len() != 0 || !bytes.Equal(c.Init(), c2.Init())) {
		t.Fatalf("NewClient (%v, %d bytes unread) and NewClientWithKeys (%v) differ", err, r.Len(), err2)
	}
	if pub, _ := m.ecdhOracle(o.priv, nil); !bytes.Equal(c2.Init(), append(bytes.Clone(o.ek), pub...)) {
		t.Fatal("C_INIT is not the oracles' for our secrets")
	}
	if ex.IgnoresReader {
		return c2
	}
	return c
}

// checkFinish runs Finish of a client with our secrets on in and checks it
// as checkRespond does Respond. Init must return a copy, unchanged after
// Finish, and a second Finish must fail. It returns K.
func (m *Method) checkFinish(t TB, ex Exchange, o *ours, in []byte) []byte {
	t.Helper()
	return m.checkFinishOn(t, m.newClient(t, ex, o), o, in)
}

// checkFinishOn is checkFinish with the client c, which has our secrets.
func (m *Method) checkFinishOn(t TB, c Client, o *ours, in []byte) []byte {
	t.Helper()
	init := c.Init()
	if init[0] ^= 1; bytes.Equal(c.Init(), init) {
		t.Fatal("Init returns the Client's own buffer")
	}
	init[0] ^= 1
	k, err := c.Finish(in)
	if _, err := c.Finish(in); err == nil || !strings.Contains(err.Error(), "twice") || !bytes.Equal(c.Init(), init) {
		t.Fatalf("second Finish: %v (or C_INIT changed)", err)
	}
	var why string
	var kCL []byte
	if len(in) != m.Sizes[1] {
		why = fmt.Sprintf("server's S_REPLY has %d bytes, want %d", len(in), m.Sizes[1])
	} else if _, kCL = m.ecdhOracle(o.priv, in[m.CTSize:]); kCL == nil {
		why = "server's " + m.Curve + " public key" + m.PointError
	}
	if why != "" {
		ErrorHasNoSecrets(t, err, m.Prefix, why, in, o.keyGen, o.kemKey, o.priv)
		return nil
	}
	if err != nil {
		t.Fatalf("Finish refused a valid S_REPLY: %v", err)
	}
	if !bytes.Equal(k, m.kOracle(o.decaps(in[:m.CTSize]), kCL)) {
		t.Fatal("K differs from the oracle's")
	}
	return k
}

// inits returns C_INIT values made from a valid one: wrong lengths, each
// of Points, and encapsulation keys at the edge of the KEM's check.
func (m *Method) inits(init []byte) map[string][]byte {
	out := lengths(init, m.EKSize, 1+m.Engine.Curve.PrivateKeySize())
	for name, p := range m.Points {
		out["point "+name] = append(bytes.Clone(init[:m.EKSize]), p...)
	}
	if !m.ChecksEK {
		for _, b := range []byte{0x00, 0xff, 0x5a} {
			out[fmt.Sprintf("key of %02x bytes", b)] = append(bytes.Repeat([]byte{b}, m.EKSize), init[m.EKSize:]...)
		}
		return out
	}
	// The first 12-bit coefficient set to q = 3329, the smallest value the
	// FIPS 203 section 7.2 check refuses, to 4095, and to q-1.
	for _, v := range []uint16{3329, 4095, 3328} {
		in := bytes.Clone(init)
		in[0], in[1] = byte(v), in[1]&0xf0|byte(v>>8)
		out[fmt.Sprint("coefficient ", v)] = in
	}
	return out
}

// replies returns S_REPLY values made from a valid one: wrong lengths,
// each of Points, and ciphertexts with a bit flipped at tampered().
func (m *Method) replies(reply []byte) map[string][]byte {
	out := lengths(reply, m.CTSize, 1+m.Engine.Curve.PrivateKeySize())
	for name, p := range m.Points {
		out["point "+name] = append(bytes.Clone(reply[:m.CTSize]), p...)
	}
	for _, i := range m.tampered() {
		r := bytes.Clone(reply)
		r[i] ^= 1
		out[fmt.Sprint("ciphertext byte ", i)] = r
	}
	return out
}

// tampered are ciphertext bytes to flip: first, middle, last, and both
// sides of sntrup761's confirmation hash.
func (m *Method) tampered() []int {
	return []int{0, m.CTSize / 2, m.CTSize - 33, m.CTSize - 32, m.CTSize - 1}
}

// lengths returns msg zero-padded or cut to wrong lengths: empty, short,
// the KEM part alone or with a compressed-size point, one byte off, twice.
func lengths(msg []byte, kemSize, compressed int) map[string][]byte {
	out := make(map[string][]byte)
	for _, n := range []int{0, 1, 32, kemSize, kemSize + compressed, len(msg) - 1, len(msg) + 1, 2 * len(msg)} {
		in := make([]byte, n)
		copy(in, msg)
		out[fmt.Sprint("length ", n)] = in
	}
	return out
}

// fuzzRespond is the shared part of a method's Respond fuzz target: it
// adds the seeds to f (a valid C_INIT, inits and every Q_C of the
// method's SSH vector files) and returns the check of one C_INIT against
// the oracles (checkRespond, with our fixed server secrets).
func fuzzRespond(f seeder, name string) func(t TB, in []byte) {
	m, o := fuzzSeeds(f, name, 0)
	return func(t TB, in []byte) {
		knownAnswers(t, func() { m.checkRespond(t, m.Public, o, in) })
	}
}

// fuzzFinish is fuzzRespond for Finish: S_REPLY values, each given to a
// client with our fixed secrets (checkFinishOn). m.seeds has checked
// once that NewClient reading our secrets makes the same client as the
// explicit-key constructor, which spares each input a key generation
// (most of an sntrup761 input's time).
func fuzzFinish(f seeder, name string) func(t TB, in []byte) {
	m, o := fuzzSeeds(f, name, 1)
	return func(t TB, in []byte) {
		knownAnswers(t, func() {
			c, err := m.Public.NewClientWithKeys(o.kemKey, o.priv)
			if err != nil {
				t.Fatal(err)
			}
			m.checkFinishOn(t, c, o, in)
		})
	}
}

// fuzzSeeds adds the seeds of one side of the method named name (0:
// C_INIT, 1: S_REPLY) to f, and returns the method and our fixed secrets.
func fuzzSeeds(f seeder, name string, side int) (*Method, *ours) {
	m := lookup(name)
	o, seeds := m.fuzzSetup(f)
	for _, in := range seeds[side] {
		fuzzcorpus.Add(f, in)
	}
	return m, o
}

// fuzzSetups holds each method's fixed secrets and seeds (m.seeds) once
// made: a libFuzzer binary built by go-118-fuzz-build runs the whole
// target, setup included, for every input, and the setup (key
// generations, reading the vector files) costs far more than the check
// of an input.
var fuzzSetups struct {
	sync.Mutex
	m map[string]fuzzSetup
}

type fuzzSetup struct {
	o     *ours
	seeds [2][][]byte
}

func (m *Method) fuzzSetup(t TB) (*ours, [2][][]byte) {
	fuzzSetups.Lock()
	defer fuzzSetups.Unlock()
	s, ok := fuzzSetups.m[m.Name]
	if !ok {
		s.o, s.seeds = m.seeds(t)
		if fuzzSetups.m == nil {
			fuzzSetups.m = map[string]fuzzSetup{}
		}
		fuzzSetups.m[m.Name] = s
	}
	return s.o, s.seeds
}

// TB is what the fuzz targets' shared code uses of a *testing.T or a
// *testing.F. The T and F of go-118-fuzz-build's testing shim have it
// too: in a libFuzzer build of a target (.clusterfuzzlite/build.sh) the
// shim takes package testing's place in the target's own file, so a
// target passes its t and f to shared code only as a TB (or a seeder).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Log(args ...any)
}

// seeder is a TB that takes seeds: a *testing.F, or the shim's F.
type seeder interface {
	TB
	fuzzcorpus.F
}

func (m *Method) seeds(t TB) (*ours, [2][][]byte) {
	o := m.ours()
	init := m.newClient(t, m.Public, o).Init()
	reply, _, err := m.Public.Respond(nil, init)
	if err != nil {
		t.Fatal(err)
	}
	inits, replies := [][]byte{init}, [][]byte{reply}
	for _, in := range m.inits(init) {
		inits = append(inits, in)
	}
	for _, in := range m.replies(reply) {
		replies = append(replies, in)
	}
	files, _ := fs.Glob(vectors.Bundled(), m.Name+"_*.json")
	for _, path := range files {
		var f struct {
			Tests []map[string]json.RawMessage `json:"tests"`
			Edge  []map[string]json.RawMessage `json:"invalid_and_edge_tests"`
		}
		data, err := fs.ReadFile(vectors.Bundled(), path)
		if err == nil {
			err = json.Unmarshal(data, &f)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range append(f.Tests, f.Edge...) {
			for key, dst := range map[string]*[][]byte{"Q_C": &inits, "Q_S": &replies} {
				var h string
				if json.Unmarshal(tc[key], &h) == nil {
					if b, err := hex.DecodeString(h); err == nil {
						*dst = append(*dst, b)
					}
				}
			}
		}
	}
	return o, [2][][]byte{inits, replies}
}
