// Package core is the fast implementation of sntrup761 used by package
// sntrup761 and its KAT helper package. Every function here is tested
// against the readable reference in ../ref on random inputs.
package core

// Parameters of sntrup761 (NTRU Prime round 3, section 3.5).
const (
	P   = 761
	Q   = 4591
	W   = 286
	Q12 = (Q - 1) / 2
)
