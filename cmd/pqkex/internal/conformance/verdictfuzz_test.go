package conformance

import (
	"strings"
	"sync"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// What the verdict-level fuzz targets (fuzz_test.go) run: the properties
// of verdict_test.go — an honest simulated peer is never flagged, each
// defective one always is — on the peer, method and case the fuzzer
// picks, with fresh random keys on every connection; for clients, with
// the identification line it writes too (no verdict may depend on it).

// verdictSpec is the peer which[0] selects among the honest one and
// specs, the method which[1] selects among those it concerns, and the
// cases to run: a defect's cases (defectSpec.cases), or for a peer that
// must conform everywhere the one case which[2] selects (the cases of
// n(m)).
func verdictSpec(which []byte, specs []defectSpec, n func(*method) []string) (defectSpec, *method, []string) {
	at := func(i int) int {
		if i < len(which) {
			return int(which[i])
		}
		return 0
	}
	all := append([]defectSpec{{d: honestPeer}}, specs...)
	spec := all[at(0)%len(all)]
	var ms []*method
	for _, m := range methods {
		if spec.concerns(m) {
			ms = append(ms, m)
		}
	}
	m := ms[at(1)%len(ms)]
	if ids := spec.cases(); ids != nil {
		if spec.waits { // each case waits out a timeout: one of them
			return spec, m, []string{ids[at(2)%len(ids)]}
		}
		return spec, m, ids
	}
	ids := n(m)
	return spec, m, []string{ids[at(2)%len(ids)]}
}

func serverCaseIDs(m *method) (ids []string) {
	for _, c := range serverCases(m) {
		ids = append(ids, c.id)
	}
	return ids
}

func clientCaseIDs(m *method) (ids []string) {
	for _, c := range clientCases(m) {
		ids = append(ids, c.id)
	}
	return ids
}

// simServers are the simulated servers of the fuzz targets, one per
// defect, listening until the process ends.
var simServers sync.Map // defect → address

func simServerAddr(d defect) (string, error) {
	if a, ok := simServers.Load(d); ok {
		return a.(string), nil
	}
	ln, err := listenSim(d)
	if err != nil {
		return "", err
	}
	a, loaded := simServers.LoadOrStore(d, ln.Addr().String())
	if loaded {
		ln.Close()
	}
	return a.(string), nil
}

// seedMethods are the methods (indexes among those the peer concerns,
// as verdictSpec takes them) a peer's seeds run: all it concerns, but
// one for a peer whose cases wait out a timeout (the seeds run in every
// go test), and under go test -short one for every peer, a different one
// from peer to peer (TestVerdictDefectsFlagged runs them all in go test).
// testing.Testing guards testing.Short: a libFuzzer build of the target
// (.clusterfuzzlite/build.sh) runs this without the testing flags.
func seedMethods(i int, specs []defectSpec) []int {
	n := len(methods)
	if i > 0 {
		n = 0
		for _, m := range methods {
			if specs[i-1].concerns(m) {
				n++
			}
		}
		if specs[i-1].waits {
			n = 1
		}
	}
	if n == 0 {
		return nil
	}
	if testing.Testing() && testing.Short() {
		return []int{i % n}
	}
	all := make([]int, n)
	for j := range all {
		all[j] = j
	}
	return all
}

// fuzzVerdictServers adds the server verdict target's seeds (every peer
// and method, the first case) and returns its body.
func fuzzVerdictServers(f fuzzcorpus.F) func(t verdictT, which []byte) {
	for i := range 1 + len(serverDefects) {
		for _, j := range seedMethods(i, serverDefects) {
			fuzzcorpus.Add(f, []byte{byte(i), byte(j), 0})
		}
	}
	return func(t verdictT, which []byte) {
		spec, m, ids := verdictSpec(which, serverDefects, serverCaseIDs)
		addr, err := simServerAddr(spec.d)
		if err != nil {
			t.Errorf("%v", err)
			return
		}
		requireVerdicts(t, spec, true, m, ids, checkSimServerAs(addr, m, ids, spec.timeout(), spec.identity), false)
	}
}

// fuzzVerdictClients adds the client verdict target's seeds and returns
// its body. ident becomes the softwareversion of the client's
// identification line (RFC 4253 §4.2: printable US-ASCII other than
// space and '-'), at most 64 characters of it.
func fuzzVerdictClients(f fuzzcorpus.F) func(t verdictT, which, ident []byte) {
	for i := range 1 + len(clientDefects) {
		for _, j := range seedMethods(i, clientDefects) {
			fuzzcorpus.Add(f, []byte{byte(i), byte(j), 0}, []byte("sim_client"))
		}
	}
	fuzzcorpus.Add(f, []byte{0, 0, 1}, []byte("OpenSSH_10.0"))
	return func(t verdictT, which, ident []byte) {
		spec, m, ids := verdictSpec(which, clientDefects, clientCaseIDs)
		var b strings.Builder
		for _, c := range ident {
			if c < 0x21 || c > 0x7e || c == '-' {
				c = '_'
			}
			if b.Len() < 64 {
				b.WriteByte(c)
			}
		}
		if b.Len() == 0 {
			b.WriteString("x")
		}
		requireVerdicts(t, spec, false, m, ids, checkSimClients(t, spec.d, m, ids, "SSH-2.0-"+b.String(), spec.timeout()), false)
	}
}
