package sshkex

import "golang.org/x/crypto/ssh"

// sshkex links against golang.org/x/crypto/ssh internals that exist, with
// the layout its mirrors describe, from x/crypto v0.39.0 on (see
// version.go). With an older x/crypto, the build stops here, at the first
// file of the package, with an error whose file name says so: the
// constants below appeared in v0.39.0.
var _ = []string{ssh.KeyExchangeCurve25519, ssh.KeyExchangeMLKEM768X25519}
