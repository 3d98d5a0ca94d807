package sntrup761

import (
	"testing"

	"github.com/pqkex/pqkex/internal/sntrupbridge"
)

// TestArithmetic checks what the bridge reports to pqkex bench against how
// the test binary was built (wantArithmetic, per build in
// arithmetic_*_test.go).
func TestArithmetic(t *testing.T) {
	if sntrupbridge.Arithmetic == nil {
		t.Fatal("sntrupbridge.Arithmetic not set")
	}
	if got, want := sntrupbridge.Arithmetic(), wantArithmetic(); got != want {
		t.Fatalf("Arithmetic() = %q, want %q", got, want)
	}
}
