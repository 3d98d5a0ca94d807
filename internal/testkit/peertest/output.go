package peertest

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// LogTimeout bounds waiting for a line that a peer writes asynchronously
// (after a refused handshake, say).
const LogTimeout = 5 * time.Second

// Lines splits a peer's output into lines, dropping the \r of OpenSSH's
// \r\n.
func Lines(out string) []string {
	return strings.Split(strings.ReplaceAll(out, "\r", ""), "\n")
}

// FindLine returns the first line of out that satisfies match.
func FindLine(out string, match func(string) bool) (string, bool) {
	for _, l := range Lines(out) {
		if match(l) {
			return l, true
		}
	}
	return "", false
}

// ContainsAll matches a line that contains every string of want.
func ContainsAll(want ...string) func(string) bool {
	return func(l string) bool {
		for _, w := range want {
			if !strings.Contains(l, w) {
				return false
			}
		}
		return true
	}
}

// WaitLine polls read until a line of what it returns satisfies match,
// for up to LogTimeout, and returns that line; what says what was read,
// for the error.
func WaitLine(what string, read func() (string, error), match func(string) bool) (string, error) {
	deadline := time.Now().Add(LogTimeout)
	for {
		out, err := read()
		if err != nil {
			return "", err
		}
		if l, ok := FindLine(out, match); ok {
			return l, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no matching line in %s after %v; it holds:\n%s", what, LogTimeout, Tail(out))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitLogLine waits for a line of the file path that satisfies match
// (WaitLine).
func WaitLogLine(path string, match func(string) bool) (string, error) {
	return WaitLine(path, func() (string, error) {
		b, err := os.ReadFile(path)
		return string(b), err
	}, match)
}

// Tail returns the last 60 lines of out, for error messages.
func Tail(out string) string {
	ls := Lines(strings.TrimRight(out, "\r\n"))
	if len(ls) > 60 {
		ls = append([]string{"..."}, ls[len(ls)-60:]...)
	}
	return strings.Join(ls, "\n")
}

// ReadTail returns the Tail of the file path, or why it cannot.
func ReadTail(path string) string {
	if path == "" {
		return "(none)"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return Tail(string(b))
}
