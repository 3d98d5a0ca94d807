// Package tier tells a test which tier of the suite is running, so that
// the module's tests size themselves from one place:
//
//	go test -short ./...          the quick loop
//	go test ./...                 the gate: README's test command, CI's
//	PQKEX_LONG=1 go test ./...    the gate and every long run
//
// The long runs (accumulated known answers at a million tests, the
// fast-vs-reference properties on 10 000 inputs, the verdict properties
// at 100 000 exchanges, dudect at 10^6 measurements, the serve soak, the
// builds of mutated x/crypto and pqkex copies) take from minutes to
// hours; pick them with -run. docs/testing.md lists them.
//
// PQKEX_LONG is an environment variable, not a test flag, because a flag
// that one package defines makes "go test -flag ./..." fail in every
// package that does not.
package tier

import (
	"os"
	"testing"
)

// Env is the switch: PQKEX_LONG=1 turns on every long run.
const Env = "PQKEX_LONG"

// Long reports whether PQKEX_LONG=1. It overrides -short. Any value but
// "", "0" and "1" fails t, so that a misspelt switch does not pass for
// the normal tier.
func Long(t testing.TB) bool {
	t.Helper()
	switch v := os.Getenv(Env); v {
	case "", "0":
		return false
	case "1":
		return true
	default:
		t.Fatalf("%s=%q: want 1 (every long run) or unset", Env, v)
		return false
	}
}

// Size returns long under PQKEX_LONG=1, short under -short, and normal
// otherwise: how many inputs, vectors or runs a test takes in each tier.
func Size(t testing.TB, short, normal, long int) int {
	t.Helper()
	switch {
	case Long(t):
		return long
	case testing.Short():
		return short
	}
	return normal
}

// SkipUnlessLong skips t unless PQKEX_LONG=1; what says what the long run
// does and costs, for the skip message.
func SkipUnlessLong(t testing.TB, what string) {
	t.Helper()
	if !Long(t) {
		t.Skipf("a long run (%s); %s=1 runs it", what, Env)
	}
}
