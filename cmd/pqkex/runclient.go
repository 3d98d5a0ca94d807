package main

// check -listen -run: the client under test run once per case.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// runClientLoop runs command (with sh -c, its placeholders replaced by
// clientCommand) again and again until ctx is done, each run killed
// after limit: the client under test of check -listen -run. Each run is
// a process group of its own (on Unix), killed whole once sh has ended
// or the run's time is up, so that what the command started (a client
// sh waits for, one put in the background) does not outlive its case.
// It returns when the last run's group is gone.
func runClientLoop(ctx context.Context, command string, addr *net.TCPAddr, limit time.Duration, stderr io.Writer) {
	line := clientCommand(command, addr)
	for ctx.Err() == nil {
		runCtx, cancel := context.WithTimeout(ctx, limit)
		cmd := exec.CommandContext(runCtx, "sh", "-c", line)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, io.Discard, io.Discard
		cmd.WaitDelay = time.Second
		ownGroup(cmd)
		start := time.Now()
		err := cmd.Run()
		killGroup(cmd) // what the command left running
		cancel()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) && ctx.Err() == nil {
			fmt.Fprintf(stderr, "pqkex check: -run: %v\n", err)
			return
		}
		if time.Since(start) < 50*time.Millisecond { // a client that fails at once: do not spin
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
}

// clientCommand is command with {host}, {port} and {addr} replaced by
// addr's IP address, port and host:port, each as one word of sh: quoted
// where it stands outside quotes (an IPv6 address in brackets is
// otherwise a glob pattern), as it is inside single or double quotes
// (where sh takes it literally: the values hold no quote, backslash, $
// or backquote).
func clientCommand(command string, addr *net.TCPAddr) string {
	values := [][2]string{{"{host}", addr.IP.String()}, {"{port}", strconv.Itoa(addr.Port)}, {"{addr}", addr.String()}}
	var b strings.Builder
	const (
		outside = iota
		single
		double
	)
	state := outside
next:
	for i := 0; i < len(command); {
		for _, v := range values {
			if strings.HasPrefix(command[i:], v[0]) {
				if state == outside {
					b.WriteString(shellQuote(v[1]))
				} else {
					b.WriteString(v[1])
				}
				i += len(v[0])
				continue next
			}
		}
		c := command[i]
		switch {
		case c == '\\' && state != single && i+1 < len(command):
			b.WriteString(command[i : i+2]) // an escaped character, quote or not
			i += 2
			continue
		case c == '\'' && state == outside:
			state = single
		case c == '\'' && state == single, c == '"' && state == double:
			state = outside
		case c == '"' && state == outside:
			state = double
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// runSource is the address that this machine's connections to addr
// come from: the client under test's address when -run starts it and
// -client-addr does not say otherwise. A UDP socket connected to addr
// sends nothing; the kernel picks the source address a TCP connection
// to addr would have. "" if it cannot tell.
func runSource(addr *net.TCPAddr) string {
	c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: addr.IP, Port: addr.Port, Zone: addr.Zone})
	if err != nil {
		return ""
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}
