package conformance

// The soak (check -soak N): N honest exchanges with a server, one
// connection each, counting how many had K_PQ or K_CL start with zero
// bytes. As a client check cannot choose the server's values: a server
// that drops a part's leading zero byte fails one exchange in 256 per
// part, and passes all N with probability (255/256)^N for that part, which
// the result states. When the server's ephemeral classical key comes back
// (the same public key twice), check's own X25519 / ECDH key is drawn so
// that K_CL starts with 00 against it, and soakReused more exchanges run
// with such keys: a server that reuses its key cannot escape the K_CL
// check.

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// SoakCase is the id of the soak's result.
const SoakCase = "soak"

// soakReused is how many exchanges run with a key drawn against a server
// key seen twice.
const soakReused = 4

// soakCase is the soak of n exchanges of m.
func soakCase(m *method, n int) serverCase {
	return serverCase{SoakCase, honestClause(m), ExpectComplete, func(ctx context.Context, s *serverChecker, m *method, r *Result) {
		runSoak(ctx, s, m, r, n)
	}}
}

// penalizes reports whether a server with identification line version
// refuses a source after many connections that do not authenticate
// (OpenSSH 9.8 and later: PerSourcePenalties), so that a soak is paced
// from its start.
func penalizes(version string) bool {
	rest, ok := strings.CutPrefix(version, "SSH-2.0-OpenSSH_")
	if !ok {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(rest, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 9 || major == 9 && minor >= 8
}

// soakStats counts the exchanges of a soak by the leading zero bytes of
// their secrets.
type soakStats struct {
	done             int
	pq, pq2, cl, cl2 int // K_PQ and K_CL starting with 00, and with 00 00
	both             int // both starting with 00
	keys             map[string]int
	reused           []byte // a server public key seen twice
	ground, hit      int    // exchanges completed with a key drawn against it; those where the server used it again
}

// connections is the number of server public keys seen.
func (st *soakStats) connections() int {
	n := 0
	for _, c := range st.keys {
		n += c
	}
	return n
}

func (st *soakStats) count(zPQ, zCL int) {
	st.done++
	if zPQ >= 1 {
		st.pq++
	}
	if zPQ >= 2 {
		st.pq2++
	}
	if zCL >= 1 {
		st.cl++
	}
	if zCL >= 2 {
		st.cl2++
	}
	if zPQ >= 1 && zCL >= 1 {
		st.both++
	}
}

// escape is the probability that a peer dropping one part's leading
// zero byte passes n honest exchanges: (255/256)^n.
func escape(n int) float64 { return math.Pow(255.0/256, float64(n)) }

// summary says what the soak saw.
func (st *soakStats) summary(m *method) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d honest exchanges: K_PQ started with 00 in %d (00 00 in %d), K_CL in %d (00 00 in %d), both in %d; "+
		"a peer that drops one part's leading zero bytes fails 1 exchange in 256 and passes %d with probability (255/256)^%d = %.3g for that part",
		st.done, st.pq, st.pq2, st.cl, st.cl2, st.both, st.done, st.done, escape(st.done))
	switch {
	case st.reused == nil:
		fmt.Fprintf(&b, "; the server's %s key was new on each of its %d connections, so check could not choose K_CL against it", m.curve, len(st.keys))
	default:
		fmt.Fprintf(&b, "; the server reused its %s key across connections (%d distinct keys in %d connections), so check drew its own so that K_CL "+
			"starts with 00 against that key: %d more exchanges so completed, in %d of which the server used that key again", m.curve, len(st.keys),
			st.connections(), st.ground, st.hit)
	}
	return b.String()
}

// runSoak runs the soak of n exchanges of method m, and soakReused more
// with keys drawn against the server's as soon as it reuses one,
// stopping at the first that fails.
func runSoak(ctx context.Context, s *serverChecker, m *method, r *Result, n int) {
	st := &soakStats{keys: map[string]int{}}
	total, ranGround, groundLeft := n, false, 0
	for ran := 0; st.done < n || groundLeft > 0; ran++ {
		var client *clientHalf
		if groundLeft > 0 {
			groundLeft--
			c, err := m.newClientHalf()
			if err == nil {
				err = c.drawAgainst(st.reused)
			}
			if err != nil {
				r.Verdict, r.Detail = NotRun, "after "+st.summary(m)+": "+err.Error()
				return
			}
			client = c
		}
		if !soakOne(ctx, s, m, r, st, client) {
			return
		}
		if st.reused != nil && !ranGround {
			ranGround, groundLeft = true, soakReused
			total += soakReused
		}
		if s.opts.SoakProgress != nil {
			s.opts.SoakProgress(m.name, ran+1, total)
		}
	}
	r.Verdict, r.Detail = Completed, st.summary(m)
}

// soakOne runs one honest exchange of the soak and counts it; it
// records in r why the soak ends if it failed.
func soakOne(ctx context.Context, s *serverChecker, m *method, r *Result, st *soakStats, client *clientHalf) bool {
	var ex Result
	if s.rec != nil {
		// The transcript keeps one exchange, the last: the one that
		// failed, if one did. N exchanges would grow it without bound,
		// N connections' secrets in one file.
		s.rec = newRecorder()
		s.rec.record('*', fmt.Sprintf("soak exchange %d; this transcript keeps the last exchange only", st.done+st.ground+1), nil)
	}
	ss := s.open(ctx, m, &ex, false)
	r.Attempts++
	if ss == nil {
		r.Verdict, r.Detail = NotRun, fmt.Sprintf("exchange %d did not run (%s), after %s", st.done+1, ex.Detail, st.summary(m))
		return false
	}
	defer ss.c.nc.Close()
	zPQ, zCL := -1, -1
	var pub []byte
	ss.client = client
	ss.observe = func(kPQ, kCL, qs []byte) {
		// Branches on check's own secrets of this exchange, which
		// end with it.
		zPQ, zCL = leadingZeros(kPQ), leadingZeros(kCL)
		pub = append([]byte(nil), qs[m.ctSize:]...)
	}
	_, err := honestExchange(ss, m, &ex)
	if pub != nil {
		st.keys[string(pub)]++
		if st.keys[string(pub)] > 1 && st.reused == nil {
			st.reused = pub
		}
	}
	switch {
	case err == nil && client != nil:
		st.ground++
		if string(pub) == string(st.reused) {
			st.hit++
		}
		return true
	case err == nil:
		st.count(zPQ, zCL)
		return true
	}
	r.Verdict, r.Finding = ex.Verdict, ex.Finding
	if ex.Verdict != NotRun && ex.Verdict != Hung { // a server gone silent is kex-silent here too
		r.Verdict = Failed
	}
	zeros := ""
	if zPQ >= 0 {
		zeros = fmt.Sprintf(" (in it K_PQ started with %d zero bytes, K_CL with %d%s)", zPQ, zCL, map[bool]string{true: ", against check's key drawn for it", false: ""}[client != nil])
	}
	r.Detail = fmt.Sprintf("exchange %d failed%s: %s; before it, %s", st.done+1, zeros, ex.Detail, st.summary(m))
	return false
}

// drawAgainst replaces c's classical key with one whose shared secret
// with the server's public key pub starts with a zero byte.
func (c *clientHalf) drawAgainst(pub []byte) error {
	curve := c.m.ecdhCurve()
	peer, err := curve.NewPublicKey(c.m.uncompressed(pub))
	if err != nil {
		return fmt.Errorf("the server's reused %s key: %v", c.m.curve, err)
	}
	priv, kCL, err := classicalWith(curve, peer, 1)
	if err != nil {
		return err
	}
	clear(kCL)
	c.priv = priv
	return nil
}
