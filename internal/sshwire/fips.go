package sshwire

import "strings"

// FIPSApprovedKEX reports whether the SSH key exchange method name is
// built on FIPS 140-3 approved algorithms only, so that it may be offered
// in FIPS 140-3 mode: not X25519 or X448 (curve25519-sha256,
// mlkem768x25519-sha256, which x/crypto itself keeps in its FIPS-mode
// defaults) and not sntrup761. It is the one rule sshkex (FIPS-mode
// defaults) and pqkex bench (FIPS-mode rows) apply.
func FIPSApprovedKEX(name string) bool {
	return !strings.Contains(name, "25519") && !strings.Contains(name, "448") && !strings.Contains(name, "sntrup")
}
