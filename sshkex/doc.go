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
// The documents cited here are at the root of the module. docs/usage.md
// has the rest: Register's cost and options, why the defaults are in that
// order, and servers and clients built on x/crypto/ssh.
//
// # The method packages
//
// The packages [github.com/pqkex/pqkex/mlkem768x25519],
// [github.com/pqkex/pqkex/sntrup761x25519],
// [github.com/pqkex/pqkex/mlkem768nistp256] and
// [github.com/pqkex/pqkex/mlkem1024nistp384] implement one method each,
// without I/O and without x/crypto/ssh, and share what this section says;
// each states what is its own (its sizes, the checks of its curve, the
// order in which it reads randomness, its FIPS 140-3 status). This package
// plugs them into x/crypto/ssh, and [github.com/pqkex/pqkex/kexhash] turns
// K into the exchange hash and session keys.
//
// Messages. The client calls NewClient and sends Init's C_INIT (Q_C); the
// server calls Respond on C_INIT and sends S_REPLY (Q_S); the client passes
// S_REPLY to Finish. In both messages the KEM part comes first, then the
// sender's ephemeral classical public key.
//
// K. Both sides compute K = string(HASH(K_PQ || K_CL)), where K_PQ is the
// 32-byte KEM shared key and K_CL the classical shared secret exactly as
// produced (for the NIST curves the x-coordinate as a fixed-length
// big-endian string: leading zero bytes kept, no sign byte). Finish and
// Respond return K in that SSH string encoding, the 4-byte length followed
// by the digest: the form that goes into the exchange hash and key
// derivation unchanged. It is not an mpint; re-encoding it as one is the
// classic interoperability bug of these methods. K must be kept secret.
//
// Validation. Peer input is refused in exactly the cases each package
// lists, each a key exchange failure; nothing else is checked. A
// ciphertext that was tampered with is not detected: the KEMs use implicit
// rejection, so the client derives a K that differs from the server's and
// the handshake fails when the server's signature over the exchange hash
// does not verify. Errors name whose value was bad and never contain key
// material. X25519 public keys are used as RFC 7748 section 5 says: bit 255
// is ignored and non-canonical values are reduced modulo 2^255-19.
// OpenSSH's own X25519 does not clear bit 255, so for a public key with
// that bit set (which no honest peer sends) OpenSSH and pqkex compute
// different K and the handshake fails.
//
// Secrets. Every secret is ephemeral: a Client is good for one key
// exchange and Respond draws fresh values on every call (section 6 of the
// ML-KEM hybrid draft requires this). Finish and Respond overwrite or drop
// the secrets the package holds once they are no longer needed, on every
// path. This is best effort: Go may have copied them, freed memory is not
// cleared, and keys inside circl, [crypto/ecdh] and [crypto/mlkem] can
// only be released to the garbage collector, not overwritten.
//
// Randomness. NewClient and Respond take an [io.Reader]. Given one other
// than [crypto/rand.Reader], they read from it what OpenSSH reads from its
// random source, in the same order (each package documents it), so a given
// byte stream reproduces OpenSSH's keys and messages and the published
// vectors. Given nil or crypto/rand's Reader (what x/crypto/ssh passes
// unless Config.Rand is set), the implementations draw the same secrets
// themselves, from crypto/rand or, for crypto/mlkem and crypto/ecdh, from
// the Go Cryptographic Module. A reader that fails, crypto/rand's
// included, makes them return its error.
//
// Implementations, all constant time in the secrets: ML-KEM is circl's
// (github.com/cloudflare/circl/kem/mlkem), measured faster than
// crypto/mlkem, except in FIPS 140-3 mode, where it is crypto/mlkem; the
// two are tested against each other on every vector and on random inputs.
// X25519 is circl's (github.com/cloudflare/circl/dh/x25519), measured
// faster than crypto/ecdh; P-256 and P-384 are crypto/ecdh's; sntrup761 is
// [github.com/pqkex/pqkex/sntrup761]. circl uses assembly on amd64 (and
// arm64 for ML-KEM); the purego build tag selects its portable Go code,
// which passes the same tests.
//
// FIPS 140-3 mode (GODEBUG=fips140=on or only). The two NIST hybrids,
// whose every algorithm is approved, ignore any reader there and use only
// the module's approved services; they are the only methods Register
// registers in that mode. The others run as their packages say, on
// crypto/mlkem where they use ML-KEM, and are not approved.
package sshkex
