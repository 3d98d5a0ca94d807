package main

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseMaxStartups(t *testing.T) {
	for in, want := range map[string][3]int{
		"10":        {10, 100, 10},
		"10:30:100": {10, 30, 100},
		"1:0:1":     {1, 0, 1},
		"32:100:64": {32, 100, 64},
	} {
		b, r, f, err := parseMaxStartups(in)
		if err != nil || [3]int{b, r, f} != want {
			t.Errorf("parseMaxStartups(%q) = %d, %d, %d, %v; want %v", in, b, r, f, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "10:30", "10:30:5", "10:101:20", "10:-1:20", "a:b:c", "1:2:3:4", " 10"} {
		if _, _, _, err := parseMaxStartups(in); err == nil {
			t.Errorf("parseMaxStartups(%q) accepted", in)
		}
	}
}

func TestParseNetBlockSize(t *testing.T) {
	for in, want := range map[string][2]int{"32": {32, 128}, "32:128": {32, 128}, "24:64": {24, 64}, "1:1": {1, 1}} {
		v4, v6, err := parseNetBlockSize(in)
		if err != nil || [2]int{v4, v6} != want {
			t.Errorf("parseNetBlockSize(%q) = %d, %d, %v; want %v", in, v4, v6, err, want)
		}
	}
	for _, in := range []string{"", "0", "33", "24:0", "24:129", "24:64:1", "x"} {
		if _, _, err := parseNetBlockSize(in); err == nil {
			t.Errorf("parseNetBlockSize(%q) accepted", in)
		}
	}
}

// TestServeBadLimits: a bad limit is a usage error (exit 2) whose first
// line names the flag (the usage after it names them all).
func TestServeBadLimits(t *testing.T) {
	for _, args := range [][]string{
		{"-max-startups", "10:30"},
		{"-per-source-net-block-size", "40"},
		{"-max-conns", "0"},
		{"-max-sessions", "-1"},
		{"-unused-connection-timeout", "-1s"},
	} {
		var stdout, stderr bytes.Buffer
		exit := make(chan int, 1)
		go func() { exit <- runServe(append([]string{"-listen", "127.0.0.1:0"}, args...), &stdout, &stderr) }()
		select {
		case code := <-exit:
			if code != 2 || !strings.Contains(firstLines(stderr.String(), 1), args[0]) {
				t.Errorf("serve %q: exit %d, stderr %q", args, code, firstLines(stderr.String(), 2))
			}
		case <-time.After(5 * time.Second):
			// It is serving: the bad limit was accepted. (The server
			// goroutine is left behind; the test has failed.)
			t.Errorf("serve %q started", args)
		}
	}
}

// TestServeLimitsScale: unless set, the per-source caps are a quarter of
// -max-conns and of -max-startups' full limit, after both are fitted;
// set, they are kept (within those limits), 0 meaning no limit.
func TestServeLimitsScale(t *testing.T) {
	for args, want := range map[string]string{
		"":                     "max-startups 32:30:64, per-source-max-startups 16, per-source-max-conns 64, ",
		"-max-conns 20":        "max-startups 20, per-source-max-startups 5, per-source-max-conns 5, ",
		"-max-conns 1000":      "max-startups 32:30:64, per-source-max-startups 16, per-source-max-conns 250, ",
		"-max-startups 10":     "max-startups 10, per-source-max-startups 2, per-source-max-conns 64, ",
		"-max-startups 2:30:3": "max-startups 2:30:3, per-source-max-startups 1, per-source-max-conns 64, ",
		"-max-conns 20 -per-source-max-conns 8 -per-source-max-startups 7": "max-startups 20, per-source-max-startups 7, per-source-max-conns 8, ",
		"-max-conns 20 -per-source-max-conns 30":                           "max-startups 20, per-source-max-startups 5, per-source-max-conns 20, ",
		"-per-source-max-conns 0 -per-source-max-startups 0":               "max-startups 32:30:64, per-source-max-startups none, per-source-max-conns none, ",
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var l serveLimits
		l.flags(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		if err := l.check(fs); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := l.String(); !strings.HasPrefix(got, want) {
			t.Errorf("limits with %q: %s\nwant them to start %s", args, got, want)
		}
	}
}
