package sshkex

import "golang.org/x/crypto/ssh"

// sshkex supports golang.org/x/crypto v0.52.0 to v0.59.0 (version.go); go.mod
// requires v0.52.0, the first release without known vulnerabilities in
// x/crypto/ssh. A build forced to an x/crypto older than v0.39.0 stops here,
// at the package's first file, with an error whose file name says what is
// required: the constants below appeared in v0.39.0. From v0.39.0 to v0.51.0
// the package builds, and Register refuses at run time, naming the range.
var _ = []string{ssh.KeyExchangeCurve25519, ssh.KeyExchangeMLKEM768X25519}
