package fuzz

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pqkex/pqkex/internal/kat"
)

// TestMethods runs the shared suite (testMethod) on each of the four
// methods: the table in table_test.go.
func TestMethods(t *testing.T) {
	for _, m := range methods {
		t.Run(m.Name, func(t *testing.T) { testMethod(t, m.Name) })
	}
}

// testMethod runs the shared suite on the method named name: its constants; on
// its public API and on its engine with each KEM implementation the
// properties (round trips, Init's copy, Finish once only, the randomness
// read, the explicit-key constructors, every input of inits and replies
// against the oracles, implicit rejection); a zero Client; the FIPS 140-3
// check (of the approved path, or of what a non-approved method does
// called directly); and where they apply an exchange across its two ML-KEM
// implementations and the benchmark baseline's interoperation.
func testMethod(t *testing.T, name string) {
	m := lookup(name)
	t.Run("Constants", m.constants)
	for _, ex := range m.exchanges() {
		t.Run(ex.Label, func(t *testing.T) { m.properties(t, ex) })
	}
	t.Run("ZeroClient", func(t *testing.T) {
		c := m.Zero()
		if _, err := c.Finish(make([]byte, m.Sizes[1])); err == nil {
			t.Error("Finish on a zero Client succeeded")
		}
		defer func() {
			if recover() == nil {
				t.Error("Init on a zero Client did not panic")
			}
		}()
		c.Init()
	})
	if m.FIPS {
		t.Run("FIPS", func(t *testing.T) { CheckFIPSPath(t, m.Public, m.Engine) })
	} else {
		t.Run("FIPS", func(t *testing.T) { CheckDirectFIPS(t, m) })
	}
	if len(m.Backends) == 2 {
		// The two ML-KEM implementations themselves are compared on
		// random inputs once per parameter set, by internal/kat's
		// TestCrossCheck (here it ran again for every method).
		t.Run("AcrossBackends", func(t *testing.T) {
			knownAnswers(t, func() { exchangeAcrossBackends(t, m.Name, *m.Engine) })
		})
	}
	if m.Baseline != nil {
		t.Run("Baseline", func(t *testing.T) {
			b := m.Baseline(m)
			exchange(t, m.Public, b, nil, nil)
			exchange(t, b, m.Public, nil, nil)
		})
	}
}

// constants checks the package's constants, the engine and the KEM
// against the specification's values in the table.
func (m *Method) constants(t *testing.T) {
	e, pt := m.Engine, m.Engine.Curve.PublicKeySize()
	if m.Constants != m.Sizes || [3]int{m.EKSize + pt, m.CTSize + pt, 4 + m.Hash.Size()} != m.Sizes ||
		[3]int{e.ClientInitSize(), e.ServerReplySize(), 4 + e.Hash.Size()} != m.Sizes {
		t.Errorf("sizes: package %v, engine %d %d, want %v", m.Constants, e.ClientInitSize(), e.ServerReplySize(), m.Sizes)
	}
	kem := e.Backend()
	if m.Public.Name != m.Name || m.Public.Method.Hash != m.Hash || e.Hash != m.Hash || e.Prefix != m.Prefix ||
		e.Curve.Name() != m.Curve || kem.Name() != m.KEM || kem.RandomnessSize() != m.Encaps || e.Approved != m.FIPS {
		t.Errorf("package or engine differs from the table: %s %v, engine %s %v %s %s", m.Public.Name, m.Public.Method.Hash, e.Prefix, e.Hash, e.Curve.Name(), kem.Name())
	}
}

func (m *Method) properties(t *testing.T, ex Exchange) {
	t.Run("RoundTrip", func(t *testing.T) { // with crypto/rand; the oracle checks below check the bytes
		for range 5 {
			exchange(t, ex, ex, nil, nil)
		}
	})
	o := m.ours()
	t.Run("RandomnessOrder", func(t *testing.T) { m.randomness(t, ex, o) })
	t.Run("Constructors", func(t *testing.T) {
		kk, fs := m.KEMKey(kat.Stream(m.Prefix+"|ctor", m.KeyGen)), m.Engine.Curve.PrivateKeySize()
		priv := kat.Stream(m.Prefix+"|ctor|ec", fs)
		priv[0] &= 0x7f
		bad := [][2][]byte{{kk[1:], priv}, {kk, priv[1:]}, {nil, priv}}
		if m.Curve != "X25519" { // every 32 bytes are an X25519 key
			bad = append(bad, [2][]byte{kk, make([]byte, fs)}, [2][]byte{kk, bytes.Repeat([]byte{0xff}, fs)})
		}
		for _, b := range bad {
			if _, err := ex.NewClientWithKeys(b[0], b[1]); err == nil {
				t.Errorf("a %d-byte KEM key with the private key %x accepted", len(b[0]), b[1])
			}
		}
		c, err := ex.NewClientWithKeys(kk, priv)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ex.RespondWithKeys(c.Init(), make([]byte, m.Encaps-1), priv); err == nil {
			t.Error("short m accepted")
		}
		if _, _, err := ex.RespondWithKeys(c.Init(), make([]byte, m.Encaps), make([]byte, fs)); err == nil && m.Curve != "X25519" {
			t.Error("zero server key accepted")
		}
	})
	init, reply := m.newClient(t, ex, o).Init(), []byte(nil)
	knownAnswers(t, func() { reply, _, _ = ex.RespondWithKeys(init, o.server[:m.Encaps], o.server[m.Encaps:]) })
	for name, in := range m.inits(init) {
		t.Run("C_INIT "+name, func(t *testing.T) {
			knownAnswers(t, func() {
				err := m.checkRespond(t, ex, o, in)
				if strings.HasPrefix(name, "point") && (err == nil) != (name == "point generator") {
					t.Fatalf("Respond error %v", err)
				}
			})
		})
	}
	for name, in := range m.replies(reply) {
		t.Run("S_REPLY "+name, func(t *testing.T) {
			knownAnswers(t, func() {
				k := m.checkFinish(t, ex, o, in)
				if strings.HasPrefix(name, "point") && (k != nil) != (name == "point generator") {
					t.Fatal("Finish accepted a refused point or refused a valid one")
				}
				if strings.HasPrefix(name, "ciphertext") && (k == nil || bytes.Equal(k, m.checkFinish(t, ex, o, reply))) {
					t.Fatal("a tampered ciphertext gives the same K (or an error)")
				}
			})
		})
	}
}

// randomness checks, beyond the oracle checks' exact reading, the
// refused candidates of a NIST curve's private key and errors from short
// and failing readers; where the reader is ignored (FIPS 140-3 mode), that
// it is.
func (m *Method) randomness(t *testing.T, ex Exchange, o *ours) {
	if ex.IgnoresReader {
		ignoredReader(t, ex)
		return
	}
	kg, fb := m.KeyGen, m.Engine.Curve.PrivateKeySize()
	cs, ss, init := append(bytes.Clone(o.keyGen), o.priv...), o.server, m.newClient(t, ex, o).Init()
	if m.Curve != "X25519" {
		// Refused candidates, all-ones (not below n) and zero, then a
		// valid one; each is read whole. 100 refused ones are an error.
		ones := bytes.Repeat([]byte{0xff}, 100*fb)
		r := bytes.NewReader(bytes.Join([][]byte{o.keyGen, ones[:fb], make([]byte, fb), o.priv}, nil))
		if c, err := ex.NewClient(r); err != nil || r.Len() != 0 || !bytes.Equal(c.Init(), init) {
			t.Fatalf("candidate rejection: %v, %d unread", err, r.Len())
		}
		if _, err := ex.NewClient(readerOf(o.keyGen, ones)); err == nil {
			t.Error("NewClient accepted 100 out-of-range candidates")
		}
	}
	// Short and failing readers are errors, not panics or weak keys.
	for _, n := range []int{kg / 2, kg - 1, len(cs) - 1} {
		if _, err := ex.NewClient(bytes.NewReader(cs[:n])); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("NewClient on %d bytes: %v", n, err)
		}
	}
	for _, n := range []int{m.Encaps - 1, len(ss) - 1} {
		if _, _, err := ex.Respond(bytes.NewReader(ss[:n]), init); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Respond on %d bytes: %v", n, err)
		}
	}
	errRand := errors.New("no randomness today")
	for _, n := range []int{0, 10, kg, m.Encaps} {
		_, err1 := ex.NewClient(io.MultiReader(bytes.NewReader(cs[:n]), errReader{errRand}))
		_, _, err2 := ex.Respond(io.MultiReader(bytes.NewReader(ss[:min(n, m.Encaps)]), errReader{errRand}), init)
		for _, err := range []error{err1, err2} {
			if !errors.Is(err, errRand) || !strings.HasPrefix(err.Error(), m.Prefix+": reading randomness: ") {
				t.Errorf("after %d bytes: error %v does not wrap the reader's", n, err)
			}
		}
	}
}

// ErrorHasNoSecrets checks that err starts with prefix + ": ", names who
// ("client's C_INIT", "server's P-256", ...) and, beyond those two, which
// the error must hold, contains no 8-byte run of any of the given
// values, raw or in hex. (A peer's bytes may spell out the prefix or
// who's text: a fuzzer learns them from the comparisons here, and libFuzzer
// sent an S_REPLY of "lkem1024nistp384-sha384_putty.jso". Such bytes are
// not echoed from the input.)
func ErrorHasNoSecrets(t TB, err error, prefix, who string, values ...[]byte) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error (want one about the %s value)", who)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix+": ") || !strings.Contains(msg, who) {
		t.Errorf("error %q is not %q's about the %s value", msg, prefix, who)
	}
	rest := strings.Replace(strings.TrimPrefix(msg, prefix+": "), who, "", 1)
	if kat.HoldsInput(rest, values...) {
		t.Errorf("error %q contains input bytes", msg)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// ignoredReader checks, for an Exchange that ignores the caller's reader
// (FIPS 140-3 mode), that a failing reader is never called: NewClient and
// Respond succeed and the two sides agree.
func ignoredReader(t *testing.T, ex Exchange) {
	t.Helper()
	var calls atomic.Int64
	r := countingErrReader{&calls}
	exchange(t, ex, ex, r, r)
	if n := calls.Load(); n != 0 {
		t.Fatalf("the ignored reader was called %d times", n)
	}
}

// countingErrReader counts its calls and fails each.
type countingErrReader struct{ n *atomic.Int64 }

func (r countingErrReader) Read([]byte) (int, error) {
	r.n.Add(1)
	return 0, errors.New("read from an ignored reader")
}

// exchange runs one exchange, client's NewClient and Finish with server's
// Respond, with the given readers: both sides must agree on K.
func exchange(t *testing.T, client, server Exchange, cr, sr io.Reader) {
	t.Helper()
	c, err := client.NewClient(cr)
	if err != nil {
		t.Fatal(err)
	}
	reply, kS, err := server.Respond(sr, c.Init())
	if err != nil {
		t.Fatal(err)
	}
	if kC, err := c.Finish(reply); err != nil || !bytes.Equal(kC, kS) {
		t.Fatalf("%s client, %s server: K differs (%v)", client.Label, server.Label, err)
	}
}
