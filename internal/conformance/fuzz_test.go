package conformance

import "testing"

// The readers of pqkex check: what a server under test sends (one case of
// one method on each connection, which selects them) and what a client
// under test sends to check -listen. Neither may panic or hang, every
// case gets a verdict, and no peer byte reaches a detail unescaped. The
// shared bodies are in fuzzhelpers_test.go.

func FuzzCheckServerStream(f *testing.F) {
	for i, m := range methods {
		for j := range serverCases(m) {
			if j == 0 || j == len(serverCases(m))-1 {
				f.Add([]byte{byte(i), byte(j)}, serverStream(m))
			}
		}
	}
	f.Add([]byte{0, 0}, []byte("SSH-2.0-x\r\n\x00\x00\x00\x0c\x0a\x14"))
	f.Fuzz(func(t *testing.T, which, stream []byte) { fuzzServerStream(t, which, stream) })
}

func FuzzCheckClientStream(f *testing.F) {
	for i, m := range methods {
		f.Add([]byte{byte(i), 0}, clientStream(m))
		f.Add([]byte{byte(i), 5}, clientStream(m))
	}
	f.Add([]byte{0, 0}, []byte("SSH-2.0-x\r\n"))
	f.Fuzz(func(t *testing.T, which, stream []byte) { fuzzClientStream(t, which, stream) })
}
