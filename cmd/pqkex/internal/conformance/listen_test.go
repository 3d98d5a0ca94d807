package conformance

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// -listen binds its cases to the client under test: other clients'
// connections take none and spoil none, a silent connection holds up
// nobody, and connections that are not the client under test's do not
// keep an idle run alive.

// TestListenBindsClient: an honest client under test, chosen by its
// identification line, runs while defective impostors (K as an mpint:
// every case they took would fail) and a connection that never speaks
// hit the same listener; every case conforms, every result names the
// client under test, and the impostors were refused.
func TestListenBindsClient(t *testing.T) {
	m := methods[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	silent, err := net.Dial("tcp", addr) // says nothing until the test ends
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// The impostors come back every 10 ms, more often than the client
	// under test's cases start.
	for _, c := range []struct {
		d     defect
		ident string
		pause time.Duration
	}{{cliMpint, "SSH-2.0-impostor_1", 10 * time.Millisecond}, {cliMpint, "SSH-2.0-impostor_2", 10 * time.Millisecond}, {honestPeer, simIdent, 0}} {
		wg.Add(1)
		go func() { defer wg.Done(); simClients(addr, c.d, []string{m.name}, c.ident, c.pause, stop) }()
	}
	defer func() { close(stop); wg.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Methods: []string{m.name}, Timeout: 20 * time.Second, ClientVersion: simIdent})
	if err != nil {
		t.Fatal(err)
	}
	requireConforming(t, rep.Results, 1)
	for _, r := range rep.Results {
		if !strings.Contains(r.Peer, simIdent) {
			t.Errorf("%s: run by %q, not the client under test", r.Case, r.Peer)
		}
	}
	if rep.Refused == 0 {
		t.Error("no impostor connection was refused")
	}
	if rep.ClientVersion != simIdent || rep.ClientAddr != "127.0.0.1" {
		t.Errorf("client under test %s %s", rep.ClientAddr, rep.ClientVersion)
	}
	t.Logf("%d cases conform with the silent connection open; %d impostor connections refused", len(rep.Results), rep.Refused)
}

// TestListenIdleIgnoresOthers: with no client under test, connections
// that are not SSH and clients from another identification line do not
// restart the idle timer: the run ends after Idle.
func TestListenIdleIgnoresOthers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if nc, err := net.Dial("tcp", addr); err == nil {
				nc.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
				nc.Close()
			}
		}
	}()
	go func() {
		defer wg.Done()
		// Every 50 ms, as the connections above: well within Idle.
		simClients(addr, honestPeer, []string{methods[0].name}, "SSH-2.0-other", 50*time.Millisecond, stop)
	}()
	defer func() { close(stop); wg.Wait() }()
	// Were the idle timer restarted by the others, only this deadline
	// would end the run.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Methods: []string{methods[0].name},
		Timeout: 2 * time.Second, Idle: time.Second, ClientVersion: simIdent})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the run took %v with Idle 1s: other connections kept it alive", el)
	}
	for _, r := range rep.Results {
		if r.Verdict != NotRun {
			t.Errorf("%s: %s by %q, want not run", r.Case, r.Verdict, r.Peer)
		}
	}
}

// TestListenOtherAddressesTakeNoSlot: with the client under test's
// address given, connections from another address (127.0.0.2, on
// Linux's loopback) are closed as they are accepted: twice the slots'
// worth of them, silent and kept open, do not keep the client under test
// from running its cases, nor make it wait for their timeout.
func TestListenOtherAddressesTakeNoSlot(t *testing.T) {
	m := methods[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	other := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	for range 2 * maxConcurrent {
		c, err := other.Dial("tcp", addr)
		if err != nil {
			t.Skipf("no connection from 127.0.0.2 (not Linux's loopback?): %v", err)
		}
		silent = append(silent, c)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); simClients(addr, honestPeer, []string{m.name}, simIdent, 0, stop) }()
	defer func() { close(stop); wg.Wait() }()
	// Were the silent connections holding the slots, the client under
	// test's would be closed until their Timeout, longer than this run.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Methods: []string{m.name}, Timeout: time.Minute, ClientAddr: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	requireConforming(t, rep.Results, 1)
	if rep.Refused < 2*maxConcurrent {
		t.Errorf("%d connections refused, want the %d from 127.0.0.2", rep.Refused, 2*maxConcurrent)
	}
	t.Logf("%d cases in %v beside %d silent connections from 127.0.0.2", len(rep.Results), time.Since(start).Round(time.Millisecond), len(silent))
}

// TestListenClientOffersNone: a client under test whose first KEXINIT
// offers none of the methods ends the run at once (it is not asked to
// connect again until Idle), and the report says what it offered.
func TestListenClientOffersNone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var conns atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			conns.Add(1)
			simConnect(nc, honestPeer, []string{"curve25519-sha256"}, simIdent)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Timeout: 2 * time.Second, Idle: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the run took %v (%d connections): it did not end at the client's first KEXINIT", el, conns.Load())
	}
	if !slices.Contains(rep.Offered, "curve25519-sha256") {
		t.Errorf("offered %q, want the client's list", rep.Offered)
	}
	for _, r := range rep.Results {
		if r.Verdict != NotApplicable || r.Case != AllCases {
			t.Errorf("%s %s: %s, want one not-applicable row per method", r.Method, r.Case, r.Verdict)
		}
	}
	if len(rep.Results) != len(methods) {
		t.Errorf("%d results, want %d", len(rep.Results), len(methods))
	}
}
