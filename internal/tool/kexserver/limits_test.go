package kexserver

import (
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestSource: addresses are grouped into net blocks as sshd's
// PerSourceNetBlockSize does; IPv4-mapped IPv6 addresses count as IPv4
// and zones are dropped.
func TestSource(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		v4, v6 int
		want   string
	}{
		{"192.0.2.7", 0, 0, "192.0.2.7/32"},
		{"192.0.2.7", 32, 128, "192.0.2.7/32"},
		{"192.0.2.7", 24, 128, "192.0.2.0/24"},
		{"192.0.2.7", 8, 128, "192.0.0.0/8"},
		{"::ffff:192.0.2.7", 24, 128, "192.0.2.0/24"},
		{"2001:db8:1:2:3:4:5:6", 32, 0, "2001:db8:1:2:3:4:5:6/128"},
		{"2001:db8:1:2:3:4:5:6", 32, 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:3:4:5:6", 32, 48, "2001:db8:1::/48"},
		{"fe80::1%lo", 32, 128, "fe80::1/128"},
		{"::1", 32, 64, "::/64"},
	} {
		s := &Server{IPv4NetBlock: tc.v4, IPv6NetBlock: tc.v6}
		ip, zone, _ := strings.Cut(tc.addr, "%")
		got := s.source(&net.TCPAddr{IP: net.ParseIP(ip), Zone: zone, Port: 22})
		if got.String() != tc.want {
			t.Errorf("source(%s) with %d:%d = %s, want %s", tc.addr, tc.v4, tc.v6, got, tc.want)
		}
	}
	if got := (&Server{}).source(&net.UnixAddr{Name: "x", Net: "unix"}); got.IsValid() {
		t.Errorf("source(unix socket) = %s, want the zero Prefix", got)
	}
}

// TestEarlyDrop: with MaxStartups 10:30:20, no drop below 10
// unauthenticated connections, 30% at 10, rising linearly to 93% at 19.
func TestEarlyDrop(t *testing.T) {
	s := &Server{MaxStartupsBegin: 10, MaxStartupsRate: 30, MaxStartups: 20}
	const n = 20000
	for _, tc := range []struct{ preauth, wantPercent int }{{0, 0}, {9, 0}, {10, 30}, {15, 65}, {19, 93}} {
		s.preauth = tc.preauth
		dropped := 0
		for range n {
			if s.earlyDrop() {
				dropped++
			}
		}
		// Binomial standard deviation at most 0.36% for n = 20000.
		if got := float64(dropped) * 100 / n; got < float64(tc.wantPercent)-1.5 || got > float64(tc.wantPercent)+1.5 {
			t.Errorf("at %d unauthenticated: %.1f%% dropped, want %d%%", tc.preauth, got, tc.wantPercent)
		}
	}
	hard := &Server{MaxStartupsBegin: 10, MaxStartupsRate: 100, MaxStartups: 10, preauth: 9}
	for range 1000 {
		if hard.earlyDrop() {
			t.Fatal("a hard limit (start = full) dropped below full")
		}
	}
}

// TestAdmit: the order of the limits, and that only a logged-in
// connection unused for UnusedConnectionTimeout gives way when the
// server is full.
func TestAdmit(t *testing.T) {
	a, b := netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("192.0.2.2/32")
	s := New(nil, nil)
	s.PerSourceMaxStartups, s.PerSourceMaxConns, s.MaxStartups, s.MaxConns = 2, 3, 3, 4
	s.UnusedConnectionTimeout = time.Minute
	var admitted []*conn
	admit := func(src netip.Prefix) (*conn, *conn, string) {
		c1, c2 := net.Pipe()
		t.Cleanup(func() { c1.Close(); c2.Close() })
		c := &conn{nc: c1, src: src}
		ev, refusal, closed := s.admit(c)
		if closed {
			t.Fatal("closed")
		}
		if refusal == "" {
			admitted = append(admitted, c)
		}
		return c, ev, refusal
	}
	mustRefuse := func(src netip.Prefix, want string) {
		t.Helper()
		if _, _, r := admit(src); !strings.Contains(r, want) {
			t.Fatalf("refusal %q, want %q", r, want)
		}
	}
	a1, _, _ := admit(a)
	admit(a)
	mustRefuse(a, "per-source-max-startups 2")
	s.loggedIn(a1)
	admit(a)
	mustRefuse(a, "per-source-max-conns 3")
	admit(b)
	mustRefuse(b, "(max-startups 3)") // a: 2 unauthenticated, b: 1
	s.loggedIn(admitted[1])
	s.loggedIn(admitted[2])
	// 4 open: a1 (logged in), a2, a3 (logged in), b1 (unauthenticated).
	mustRefuse(b, "none unused for 1m0s")
	old := time.Now().Add(-2 * time.Minute).UnixNano()
	admitted[3].active.Store(old) // b1 is unauthenticated: never evicted
	mustRefuse(b, "none unused for 1m0s")
	a1.active.Store(old)
	admitted[2].active.Store(old + 1)
	_, ev, r := admit(b)
	if r != "" || ev != a1 {
		t.Fatalf("admit when full with a1 unused: evicted %p (a1 %p), refusal %q", ev, a1, r)
	}
	if open, pre := s.Conns(); open != 4 || pre != 2 || s.sources[a].open != 2 || s.sources[b].open != 2 {
		t.Fatalf("after the eviction: %d open, %d unauthenticated, sources %v", open, pre, s.sources)
	}
	for _, c := range admitted { // c included
		s.release(c)
		s.wg.Done()
	}
	if open, pre := s.Conns(); open != 0 || pre != 0 || len(s.sources) != 0 {
		t.Fatalf("after releasing all: %d open, %d unauthenticated, sources %v", open, pre, s.sources)
	}
}
