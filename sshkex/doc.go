// Package sshkex plugs pqkex's post-quantum hybrid key exchanges into
// golang.org/x/crypto/ssh:
//
//	mlkem768x25519-sha256               (RFC 10042; replaces x/crypto's own, faster)
//	sntrup761x25519-sha512              (RFC 9941; x/crypto has none)
//	sntrup761x25519-sha512@openssh.com  (the same method under OpenSSH's older name)
//	mlkem768nistp256-sha256             (RFC 10042; ML-KEM-768 with ECDH on P-256)
//	mlkem1024nistp384-sha384            (RFC 10042; ML-KEM-1024 with ECDH on P-384)
//
// In FIPS 140-3 mode (GODEBUG=fips140=on or only) it registers only the last two,
// whose every algorithm is approved and which then run entirely on the Go
// Cryptographic Module.
//
// Call Register once, in main or an init function, and let it return
// before anything in the process starts an x/crypto/ssh handshake (one
// running meanwhile can fail or crash the process: see RegisterWith). If it
// fails, x/crypto/ssh is untouched and still negotiates its own
// mlkem768x25519-sha256 with peers that have it: log the error and carry
// on, unless the program needs sntrup761 or the NIST hybrids.
//
//	if err := sshkex.Register(); err != nil {
//		log.Printf("post-quantum key exchanges beyond x/crypto's own are off: %v", err)
//	}
//	cfg := &ssh.ClientConfig{ /* KeyExchanges left empty: PQ-first defaults */ }
//
// Libraries built on x/crypto/ssh (github.com/gliderlabs/ssh,
// charm.land/wish) need nothing else: they build a Config per connection
// with KeyExchanges empty, so Register must only return before the server
// starts. A ServerConfigCallback that sets KeyExchanges itself replaces the
// defaults: start it from RecommendedKeyExchanges.
//
// x/crypto/ssh has no public hook for key exchanges, so sshkex reaches its
// unexported registry through go:linkname. Register returns nil only when
// the x/crypto in the running binary, whatever its version, passed
// structural checks of those internals and a self-test through x/crypto's
// own client and server; otherwise it returns an error naming the first
// failure and leaves x/crypto as it was. Registered tells whether the
// x/crypto was a release CI verified this sshkex against (VerifiedXCrypto)
// or was accepted on the checks alone; Options.RequireVerifiedXCrypto
// refuses the latter. What the checks are, what they cannot see, and the
// tests behind them: SECURITY.md, section "The x/crypto/ssh registration".
//
// After Register, a Config whose KeyExchanges is empty negotiates the
// post-quantum methods first, in the order listed above (the order of
// RecommendedKeyExchanges), then x/crypto's classical defaults without
// the SHA-1 methods x/crypto marks insecure (in FIPS 140-3 mode: the two
// NIST hybrids, then x/crypto's defaults without the methods built on
// X25519).
//
// The four method packages (mlkem768x25519, sntrup761x25519,
// mlkem768nistp256, mlkem1024nistp384) turn secrets into each method's
// messages and K, without I/O; this package plugs them into x/crypto/ssh.
//
// The documents cited here are at the root of the module. docs/usage.md
// has the rest: Register's cost and options, why the defaults are in that
// order, what the method packages share (the messages' layout, the
// encoding of K, validation, secrets, the reader, the implementations),
// and servers and clients built on x/crypto/ssh.
package sshkex
