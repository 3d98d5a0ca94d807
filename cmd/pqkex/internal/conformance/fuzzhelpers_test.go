package conformance

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
	"golang.org/x/crypto/ssh"
)

// What the fuzz targets (fuzz_test.go) run: a case against a peer whose
// bytes come from the fuzzer, whatever it is sent.

// fatalfer is the part of a *testing.T the fuzz bodies use (a target's T
// may be go-118-fuzz-build's).
type fatalfer interface {
	Fatalf(format string, args ...any)
}

// replayConn is a net.Conn that reads a fixed stream and discards what it
// is written: a peer that sends the same bytes whatever it is told.
type replayConn struct{ r *bytes.Reader }

func (c replayConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c replayConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c replayConn) Close() error                     { return nil }
func (c replayConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (c replayConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (c replayConn) SetDeadline(time.Time) error      { return nil }
func (c replayConn) SetReadDeadline(time.Time) error  { return nil }
func (c replayConn) SetWriteDeadline(time.Time) error { return nil }

// pick returns the method and the case index that which selects.
func pick(which []byte, n func(*method) int) (*method, int) {
	var a, b int
	if len(which) > 0 {
		a = int(which[0])
	}
	if len(which) > 1 {
		b = int(which[1])
	}
	m := methods[a%len(methods)]
	return m, b % n(m)
}

// checkResult fails t unless r has a verdict and its text is printable.
func checkResult(t fatalfer, r Result) {
	if r.Verdict == "" {
		t.Fatalf("%s %s: no verdict", r.Method, r.Case)
	}
	for _, s := range []string{r.Detail, r.DisconnectMessage} {
		for _, c := range s {
			if !strconv.IsPrint(c) {
				t.Fatalf("%s %s: unescaped %q in %q", r.Method, r.Case, c, s)
			}
		}
	}
}

// Seeds: for each method, a server that follows the protocol up to its
// KEX_ECDH_REPLY, for the first and the last case, and a client that
// sends an honest KEX_ECDH_INIT, for the first and the sixth; made once
// per process (a libFuzzer binary runs a target's setup for every input).
var (
	serverSeeds = sync.OnceValue(func() (seeds [][2][]byte) {
		for i, m := range methods {
			last := len(serverCases(m)) - 1
			seeds = append(seeds, [2][]byte{{byte(i), 0}, serverStream(m)}, [2][]byte{{byte(i), byte(last)}, serverStream(m)})
		}
		return append(seeds, [2][]byte{{0, 0}, []byte("SSH-2.0-x\r\n\x00\x00\x00\x0c\x0a\x14")})
	})
	clientSeeds = sync.OnceValue(func() (seeds [][2][]byte) {
		for i, m := range methods {
			seeds = append(seeds, [2][]byte{{byte(i), 0}, clientStream(m)}, [2][]byte{{byte(i), 5}, clientStream(m)})
		}
		return append(seeds, [2][]byte{{0, 0}, []byte("SSH-2.0-x\r\n")})
	})
)

func addSeeds(f fuzzcorpus.F, seeds [][2][]byte) {
	for _, s := range seeds {
		fuzzcorpus.Add(f, s[0], s[1])
	}
}

// fuzzServerStreams adds the server-stream target's seeds and returns its body.
func fuzzServerStreams(f fuzzcorpus.F) func(t fatalfer, which, stream []byte) {
	addSeeds(f, serverSeeds())
	return fuzzServerStream
}

// fuzzClientStreams adds the client-stream target's seeds and returns its body.
func fuzzClientStreams(f fuzzcorpus.F) func(t fatalfer, which, stream []byte) {
	addSeeds(f, clientSeeds())
	return fuzzClientStream
}

// fuzzServerStream runs the case which selects against a server that
// sends stream on every connection.
func fuzzServerStream(t fatalfer, which, stream []byte) {
	m, i := pick(which, func(m *method) int { return len(serverCases(m)) })
	s := &serverChecker{opts: ServerOptions{Timeout: time.Second, NoPacing: true, Dial: func(context.Context, string) (net.Conn, error) {
		return replayConn{bytes.NewReader(stream)}, nil
	}}}
	checkResult(t, s.run(context.Background(), m, serverCases(m)[i]))
}

var fuzzKeys = sync.OnceValue(func() *hostKeys {
	k, err := newHostKeys(nil)
	if err != nil {
		panic(err)
	}
	return k
})

// fuzzClientStream serves a client that sends stream, with the cases
// before the one which selects already done.
func fuzzClientStream(t fatalfer, which, stream []byte) {
	m, i := pick(which, func(m *method) int { return len(clientCases(m)) })
	var queue []pending
	for _, cs := range clientCases(m) {
		queue = append(queue, pending{m, cs})
	}
	sched := newSchedule(queue)
	for j := range i {
		sched.complete(j, caseResult{})
	}
	idx, r, line := serveCase(replayConn{bytes.NewReader(stream)}, sched, fuzzKeys(), time.Second, nil)
	if idx < 0 {
		for _, c := range line {
			if !strconv.IsPrint(c) {
				t.Fatalf("unescaped %q in the log line %q", c, line)
			}
		}
		return
	}
	checkResult(t, r.Result)
}

// Seeds: the streams of a peer that follows the protocol up to a point.

func packets(ps ...[]byte) []byte {
	var b []byte
	for _, p := range ps {
		b = append(b, sshwire.PlainPacket(p)...)
	}
	return b
}

// serverStream is a server's identification line, KEXINIT offering every
// method, and a KEX_ECDH_REPLY for m with a valid point, a host key and a
// well-formed (wrong) signature, then SSH_MSG_NEWKEYS and a disconnect.
func serverStream(m *method) []byte {
	pub, _, _ := ed25519.GenerateKey(bytes.NewReader(make([]byte, 64)))
	hk, _ := ssh.NewPublicKey(pub)
	var point []byte
	switch m.curve {
	case "X25519":
		point = append([]byte{9}, make([]byte, 31)...)
	default:
		// The base point, uncompressed (SEC 1 §2.3.3): fixed and valid.
		c := m.ellipticCurve().Params()
		n := (c.BitSize + 7) / 8
		point = append(append([]byte{4}, c.Gx.FillBytes(make([]byte, n))...), c.Gy.FillBytes(make([]byte, n))...)
	}
	sig := ssh.Marshal(&ssh.Signature{Format: ssh.KeyAlgoED25519, Blob: make([]byte, 64)})
	ki := newKexInit(append(Methods(), strictServer), []string{ssh.KeyAlgoED25519})
	reply := sshwire.AppendKexECDHReply(nil, hk.Marshal(), append(make([]byte, m.ctSize), point...), sig)
	return append([]byte("SSH-2.0-fuzz\r\n"), packets(sshwire.AppendKexInit(nil, ki), reply, []byte{msgNewKeys}, disconnectMsg(3, "bye"))...)
}

// clientStream is a client's identification line, KEXINIT offering m, an
// honest SSH_MSG_KEX_ECDH_INIT and SSH_MSG_NEWKEYS.
func clientStream(m *method) []byte {
	c, err := m.newClientHalf()
	if err != nil {
		panic(err)
	}
	ki := newKexInit([]string{m.name, strictClient}, clientHostKeyAlgos)
	return append([]byte("SSH-2.0-fuzz\r\n"), packets(sshwire.AppendKexInit(nil, ki), sshwire.AppendKexECDHInit(nil, c.init()), []byte{msgNewKeys})...)
}
