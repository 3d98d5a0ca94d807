package sntrupbridge

import (
	"errors"
	"testing"
)

// TestNotLinked: this test binary does not link package sntrup761, so
// every constructor must report that, not panic on a nil function.
func TestNotLinked(t *testing.T) {
	if _, err := GenerateKey(nil); !errors.Is(err, errNotLinked) {
		t.Errorf("GenerateKey: %v", err)
	}
	if _, err := NewDecapsulationKey(make([]byte, DecapsulationKeySize)); !errors.Is(err, errNotLinked) {
		t.Errorf("NewDecapsulationKey: %v", err)
	}
	if _, err := NewEncapsulationKey(make([]byte, EncapsulationKeySize)); !errors.Is(err, errNotLinked) {
		t.Errorf("NewEncapsulationKey: %v", err)
	}
}
