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
// # What a nil error means
//
// x/crypto/ssh has no public hook for key exchanges, so sshkex reaches its
// unexported registry through go:linkname. Register returns nil only when
// the x/crypto in the running binary, whatever its version, passed
// structural checks of those internals (check.go) and a self-test through
// x/crypto's own client and server (selftest.go; Register takes about
// 10 ms, once per process, and about 40 ms in FIPS 140-3 mode, most of it
// the Go Cryptographic Module's self-tests on the first use of each
// algorithm); otherwise it returns an error naming the first failure
// and leaves x/crypto as it was. Registered tells whether the x/crypto was
// a release CI verified this sshkex against (VerifiedXCrypto) or was
// accepted on the checks alone; Options.RequireVerifiedXCrypto refuses the
// latter. What the checks are, what they cannot see, and the tests behind
// them are described in one place: SECURITY.md, section "The x/crypto/ssh
// registration", at the root of the module. An x/crypto older than
// v0.39.0 fails to compile, in a file whose name says which version is
// required.
//
// # Defaults
//
// After Register, a Config whose KeyExchanges is empty negotiates
// mlkem768x25519-sha256, sntrup761x25519-sha512,
// sntrup761x25519-sha512@openssh.com (OpenSSH 10's order), then
// mlkem768nistp256-sha256 and mlkem1024nistp384-sha384, then x/crypto's
// classical defaults without the SHA-1 methods x/crypto marks insecure
// (its defaults end with diffie-hellman-group14-sha1, which OpenSSH's
// client does not offer by default; pqkex's list included it until
// 2026-12). Advertising both sntrup761 names keeps post-quantum
// protection with OpenSSH 9.0–9.8, which only know the @openssh.com name.
// The NIST hybrids come after the X25519 hybrids, as in PuTTY 0.85's list
// (OpenSSH 10.6 implements mlkem768nistp256-sha256 but does not offer it by
// default), and before every classical method: a peer that offers only
// them, such as a server in FIPS mode, still gets a post-quantum exchange.
// Of the two, mlkem768nistp256-sha256 comes first (PuTTY puts
// mlkem1024nistp384-sha384 first): it is the one OpenSSH implements, and
// costs a fraction of P-384's ECDH in Go.
//
// In FIPS 140-3 mode the defaults are mlkem768nistp256-sha256,
// mlkem1024nistp384-sha384, then x/crypto's defaults without the methods
// built on X25519 (which x/crypto itself keeps in FIPS mode).
//
// RecommendedKeyExchanges returns that list for explicit configurations;
// Options.KeepDefaults leaves x/crypto's default list alone. A client that
// must reach an ancient server offering only diffie-hellman-group14-sha1
// sets KeyExchanges to append(RecommendedKeyExchanges(),
// ssh.InsecureKeyExchangeDH14SHA1) in that server's Config only.
//
// # The method packages
//
// The four method packages (mlkem768x25519, sntrup761x25519,
// mlkem768nistp256, mlkem1024nistp384) are shaped alike; each documents
// its method's identity, message sizes, validation and randomness, and
// what they share is described here once.
//
// They do no I/O and know nothing of SSH packets: they turn secrets into
// the method's two messages and the shared secret K. The client calls
// NewClient, sends Init's C_INIT (Q_C) and passes the server's S_REPLY
// (Q_S) to Finish; the server calls Respond on C_INIT. In both messages the
// KEM part comes first, then the sender's ephemeral classical public key.
// Package kexhash turns K into the exchange hash and session keys, and
// this package plugs the methods into x/crypto/ssh.
//
// Both sides compute K = string(HASH(K_PQ || K_CL)), where K_PQ is the
// 32-byte KEM shared key and K_CL the classical shared secret exactly as
// produced (for the NIST curves the x-coordinate as a fixed-length
// big-endian string: leading zero bytes kept, no sign byte). K is returned
// in that SSH string encoding, the 4-byte length followed by the digest:
// the form that goes into the exchange hash and key derivation unchanged.
// It is not an mpint, and re-encoding it as one is the classic
// interoperability bug of these methods. K must be kept secret.
//
// Peer input is rejected in exactly the cases each package lists, each a
// key exchange failure; nothing else is checked. A ciphertext that was
// tampered with is not detected: the KEMs use implicit rejection, so the
// client derives a K that differs from the server's and the handshake
// fails when the server's signature over the exchange hash does not
// verify. Errors name whose value was bad and never contain key material.
// X25519 public keys are used as RFC 7748 section 5 says: bit 255 is
// ignored and non-canonical values are reduced modulo 2²⁵⁵−19. OpenSSH's
// own X25519 does not clear bit 255, so for a public key with that bit set
// (which no honest peer sends) OpenSSH and pqkex compute different K and
// the handshake fails.
//
// Every secret is ephemeral: a Client is good for one key exchange and
// Respond draws fresh values on every call (section 6 of the ML-KEM
// hybrid draft requires this).
// Finish and Respond overwrite or drop the secrets the package holds once
// they are no longer needed. This is best effort: Go may have copied them,
// freed memory is not cleared, and keys inside circl, crypto/ecdh and
// crypto/mlkem can only be released to the garbage collector, not
// overwritten.
//
// NewClient and Respond take an io.Reader; nil means crypto/rand's Reader.
// Given a reader, they read from it what OpenSSH reads from its random
// source, in the same order (the order each package documents), so a given
// byte stream reproduces OpenSSH's keys and messages and the published
// vectors. In FIPS 140-3 mode the two NIST hybrids ignore the reader
// instead and use only the Go Cryptographic Module's approved services.
//
// Implementations, all constant time in the secrets: ML-KEM is circl's
// (github.com/cloudflare/circl/kem/mlkem), measured faster than the
// standard library's crypto/mlkem (BenchmarkKEM in internal/hybrid),
// and crypto/mlkem in FIPS 140-3 mode; the two are tested against each
// other on every vector and on random inputs. X25519 is circl's
// (github.com/cloudflare/circl/dh/x25519), measured faster than
// crypto/ecdh; P-256 and P-384 are crypto/ecdh; sntrup761 is this
// module's package sntrup761. circl uses assembly on amd64 (and arm64 for
// ML-KEM); the purego build tag selects its portable Go code, which passes
// the same tests.
package sshkex
