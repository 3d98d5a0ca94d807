package conformance

import "testing"

// The readers of pqkex check: what a server under test sends (one case of
// one method on each connection, which selects them) and what a client
// under test sends to check -listen. Neither may panic or hang, every
// case gets a verdict, and no peer byte reaches a detail unescaped. This
// file holds only fuzz targets, each passing its f and t to shared code
// (fuzzhelpers_test.go) only as an interface, so that go-118-fuzz-build
// can build each as a libFuzzer binary (see .clusterfuzzlite/build.sh).

func FuzzCheckServerStream(f *testing.F) {
	check := fuzzServerStreams(f)
	f.Fuzz(func(t *testing.T, which, stream []byte) { check(t, which, stream) })
}

func FuzzCheckClientStream(f *testing.F) {
	check := fuzzClientStreams(f)
	f.Fuzz(func(t *testing.T, which, stream []byte) { check(t, which, stream) })
}

// The verdict properties (verdict_test.go) on the simulated peers of
// sim_test.go: the fuzzer picks the peer (honest, or one defect), the
// method and the case, and for clients the identification line.

func FuzzVerdictServer(f *testing.F) {
	check := fuzzVerdictServers(f)
	f.Fuzz(func(t *testing.T, which []byte) { check(t, which) })
}

func FuzzVerdictClient(f *testing.F) {
	check := fuzzVerdictClients(f)
	f.Fuzz(func(t *testing.T, which, ident []byte) { check(t, which, ident) })
}
