// Package interop holds pqkex's interoperability tests against real SSH
// implementations on loopback. It has no non-test code.
//
// The tests run golang.org/x/crypto/ssh with pqkex's key exchanges
// (sshkex.Register) against these peers, in both roles where the peer has
// them:
//
//	OpenSSH 10.0      ssh and sshd   mlkem768x25519-sha256, sntrup761x25519-sha512,
//	                                 sntrup761x25519-sha512@openssh.com
//	OpenSSH 10.6      ssh and sshd   mlkem768nistp256-sha256 and the three above
//	(Debian forky)                   (refuses mlkem1024nistp384-sha384, which it lacks)
//	PuTTY 0.85 plink  client only    all five names, mlkem1024nistp384-sha384 included
//	OpenSSH 9.2       ssh and sshd   both sntrup761x25519 names (refuses mlkem768x25519-sha256)
//	dropbear 2025.89  dbclient and   all three names
//	                  dropbear
//	tinysshd 20250501 server only    sntrup761x25519-sha512@openssh.com (refuses the others)
//
// Every case restricts the side under our control to exactly one key
// exchange, runs a command through a session, and proves the negotiated key
// exchange twice: from x/crypto's negotiated algorithms (or the Go server's
// answer "kex=NAME") and from the peer's own debug output where the peer has
// one (sshd's -E log, tinysshd's -vv stderr, ssh -vvv's stderr, plink -v's
// "Doing ... key exchange" line, which is the same for both sntrup761 names). dropbear and
// dbclient print no key exchange at all; for them the proof comes from the Go
// side only, which is sound because that side offers a single name.
//
// The peers are installed by scripts/install-peers.sh and located through the
// PQKEX_* variables that scripts/peer-env.sh prints (see scripts/README.md):
//
//	bash scripts/install-peers.sh all
//	eval "$(bash scripts/peer-env.sh --require --export)"
//	go test ./interop/
//
// The peers need root. Without root or without a peer's variable the tests
// skip, unless CI=true, in which case they fail and name what is missing.
package interop
