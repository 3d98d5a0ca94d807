package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pqkex/pqkex/internal/tool/kexserver"
)

// serveLimits are "pqkex serve"'s limits on hostile clients, as flags
// named after their OpenSSH (sshd_config) counterparts. Unless set, the
// per-source caps are a quarter of -max-conns and of -max-startups' full
// limit as fitted (check), so one source can use at most a quarter of
// the connections and of the unauthenticated slots (with the defaults,
// half of those before random early drop starts) however low the
// descriptor limit makes them, and a client from another source still
// gets in while one source floods.
type serveLimits struct {
	maxStartups          string // start:rate:full, or full
	begin, rate, full    int    // parsed from maxStartups
	perSourceMaxStartups int
	perSourceMaxConns    int
	netBlockSize         string // ipv4bits:ipv6bits, or ipv4bits
	v4Bits, v6Bits       int    // parsed from netBlockSize
	maxConns             int
	maxSessions          int
	unused               time.Duration
	grace, idle          time.Duration
}

// reservedFDs are the descriptors serve keeps for itself (standard
// streams, the listener, the poller, a host key file) when it fits
// -max-conns to the descriptor limit.
const reservedFDs = 16

func (l *serveLimits) flags(fs *flag.FlagSet) {
	fs.StringVar(&l.maxStartups, "max-startups", "32:30:64", "unauthenticated connections: from start on, drop new ones at random with a probability rising from rate% to 100% at full (start:rate:full, or full alone: a hard limit; sshd's MaxStartups)")
	fs.IntVar(&l.perSourceMaxStartups, "per-source-max-startups", 0, "most unauthenticated connections from one source (default: a quarter of -max-startups' full limit, 16 with the defaults; 0: no limit; sshd's PerSourceMaxStartups)")
	fs.IntVar(&l.perSourceMaxConns, "per-source-max-conns", 0, "most open connections from one source (default: a quarter of -max-conns, 64 with the defaults; 0: no limit)")
	fs.StringVar(&l.netBlockSize, "per-source-net-block-size", "32:128", "IPv4 and IPv6 prefix lengths that group addresses into one source (sshd's PerSourceNetBlockSize)")
	fs.IntVar(&l.maxConns, "max-conns", 256, "most open connections (lowered to fit the descriptor limit unless set)")
	fs.IntVar(&l.maxSessions, "max-sessions", 10, "most open session channels per connection (sshd's MaxSessions)")
	fs.DurationVar(&l.unused, "unused-connection-timeout", 10*time.Second, "when -max-conns is reached, a new connection takes the slot of a logged-in one without channel activity for this long (0: never; cf. sshd's UnusedConnectionTimeout)")
	fs.DurationVar(&l.grace, "login-grace-time", 30*time.Second, "time allowed from connect to the end of authentication (sshd's LoginGraceTime)")
	fs.DurationVar(&l.idle, "idle-timeout", 5*time.Minute, "close a logged-in connection after this long without traffic (0: never)")
}

// check validates the flags, fits the connection limits to the
// descriptor limit, unless -max-conns was set, and sets the per-source
// caps that were not set to a quarter of the fitted limits.
func (l *serveLimits) check(fs *flag.FlagSet) error {
	var err error
	if l.begin, l.rate, l.full, err = parseMaxStartups(l.maxStartups); err != nil {
		return err
	}
	if l.v4Bits, l.v6Bits, err = parseNetBlockSize(l.netBlockSize); err != nil {
		return err
	}
	switch {
	case l.maxConns < 1:
		return fmt.Errorf("-max-conns %d: want at least 1", l.maxConns)
	case l.perSourceMaxStartups < 0 || l.perSourceMaxConns < 0 || l.maxSessions < 0:
		return fmt.Errorf("negative -per-source-max-startups, -per-source-max-conns or -max-sessions")
	case l.grace <= 0 || l.idle < 0 || l.unused < 0:
		return fmt.Errorf("-login-grace-time must be positive, -idle-timeout and -unused-connection-timeout not negative")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if n := descriptorLimit(); n > 0 && !set["max-conns"] && l.maxConns > n-reservedFDs {
		// One descriptor per connection, and a few for the process.
		l.maxConns = max(1, n-reservedFDs)
	}
	l.full = min(l.full, l.maxConns)
	l.begin = min(l.begin, l.full)
	if !set["per-source-max-startups"] {
		l.perSourceMaxStartups = max(1, l.full/4)
	}
	if !set["per-source-max-conns"] {
		l.perSourceMaxConns = max(1, l.maxConns/4)
	}
	l.perSourceMaxStartups = min(l.perSourceMaxStartups, l.full)
	l.perSourceMaxConns = min(l.perSourceMaxConns, l.maxConns)
	return nil
}

func (l *serveLimits) apply(s *kexserver.Server) {
	s.MaxStartupsBegin, s.MaxStartupsRate, s.MaxStartups = l.begin, l.rate, l.full
	s.PerSourceMaxStartups, s.PerSourceMaxConns = l.perSourceMaxStartups, l.perSourceMaxConns
	s.IPv4NetBlock, s.IPv6NetBlock = l.v4Bits, l.v6Bits
	s.MaxConns, s.MaxSessions, s.UnusedConnectionTimeout = l.maxConns, l.maxSessions, l.unused
	s.LoginGraceTime, s.IdleTimeout = l.grace, l.idle
}

// String is the "limits:" line serve prints at start.
func (l *serveLimits) String() string {
	startups := strconv.Itoa(l.full)
	if l.begin < l.full {
		startups = fmt.Sprintf("%d:%d:%d", l.begin, l.rate, l.full)
	}
	return fmt.Sprintf("max-startups %s, per-source-max-startups %s, per-source-max-conns %s, per-source-net-block-size %d:%d, max-conns %d, max-sessions %s, unused-connection-timeout %v, login-grace-time %v, idle-timeout %v",
		startups, orNone(l.perSourceMaxStartups), orNone(l.perSourceMaxConns), l.v4Bits, l.v6Bits, l.maxConns, orNone(l.maxSessions), l.unused, l.grace, l.idle)
}

// orNone formats a limit whose zero means none.
func orNone(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

// parseMaxStartups parses sshd's MaxStartups syntax: "full" (a hard
// limit) or "start:rate:full" with 1 <= start <= full and 0 <= rate <= 100.
func parseMaxStartups(s string) (begin, rate, full int, err error) {
	f := strings.Split(s, ":")
	n := make([]int, len(f))
	for i, x := range f {
		if n[i], err = strconv.Atoi(x); err != nil {
			break
		}
	}
	switch {
	case err == nil && len(n) == 1 && n[0] >= 1:
		return n[0], 100, n[0], nil
	case err == nil && len(n) == 3 && n[0] >= 1 && n[0] <= n[2] && n[1] >= 0 && n[1] <= 100:
		return n[0], n[1], n[2], nil
	}
	return 0, 0, 0, fmt.Errorf("-max-startups %q: want full or start:rate:full, with 1 <= start <= full and rate a percentage", s)
}

// parseNetBlockSize parses sshd's PerSourceNetBlockSize syntax: "v4" or
// "v4:v6" prefix lengths (IPv6 defaults to 128).
func parseNetBlockSize(s string) (v4, v6 int, err error) {
	a, b, two := strings.Cut(s, ":")
	v6 = 128
	v4, err = strconv.Atoi(a)
	if err == nil && two {
		v6, err = strconv.Atoi(b)
	}
	if err != nil || v4 < 1 || v4 > 32 || v6 < 1 || v6 > 128 {
		return 0, 0, fmt.Errorf("-per-source-net-block-size %q: want IPv4 bits (1-32) and optionally :IPv6 bits (1-128)", s)
	}
	return v4, v6, nil
}
