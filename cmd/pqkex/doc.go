// Command pqkex benchmarks, checks and demonstrates pqkex's post-quantum
// hybrid SSH key exchanges.
//
//	pqkex bench [-time D] [-methods LIST] [-json]            compare key exchanges (the main job)
//	pqkex scan [-kex LIST] [-timeout D] [-json] HOST[:PORT]  audit an SSH server
//	pqkex serve [-listen ADDR] [-kex LIST] [-hostkey FILE]   interop test server
//	            [-max-startups S:R:F] [-per-source-max-startups N] [-per-source-max-conns N]
//	            [-per-source-net-block-size V4:V6] [-max-conns N] [-max-sessions N]
//	            [-unused-connection-timeout D] [-login-grace-time D] [-idle-timeout D]
//	            [-allow-remote]
//	pqkex kat [-dir DIR]                                     run known-answer vectors
//	pqkex check [-kex LIST] [-baseline FILE] [-junit FILE] [-json] [-v] HOST[:PORT]...
//	                                                         test servers' hybrid key exchange
//	pqkex check -listen ADDR [-run COMMAND] [-kex LIST] [-hostkey FILE] [-json] [-v]
//	                                                         test clients' hybrid key exchange
//	pqkex version                                            print pqkex's version
//
// "pqkex COMMAND -h" and "pqkex help COMMAND" print a command's usage and
// flags and exit 0. Exit status 1
// means the work failed or did not run (kat: a vector failed or none ran;
// scan: an error, 3 when the server offers no post-quantum key exchange;
// check: a case did not conform, 3 when a case could not run), 2 a usage
// error (a bad flag or argument).
//
// # bench
//
// bench measures, for each key exchange and implementation, the client's
// crypto (key generation, then the shared secret from the server's reply),
// the server's crypto, their sum ("kex"), kex/s, and full x/crypto/ssh
// handshakes per second (client and server in one process over an
// in-memory pipe), plus the KEM, X25519 and P-256/P-384 primitives those
// key exchanges are made of.
//
// -time is the measuring time per figure (default 1s). Each figure is the
// median of 5 timed rounds; the spread column is (slowest − fastest round)
// / median, the largest of the row's figures, marked "!" above 10%, and a
// note under the tables says when figures are that noisy. The footer
// explains every row and primitive printed.
//
// The text output ends with a VERDICT: for every row, its crypto per
// connection (client + server, µs) and the time of one full handshake
// (1 / handshakes/s) as a ratio to pqkex's mlkem768x25519-sha256 in the
// same run ("4.2× (+521 µs)"), or "no clear difference (spread ±S%)" when
// the two figures' ranges (median ± spread) overlap, so that no row reads
// better than another on noise; then the costliest extra cost set against
// a network round trip (0.2 ms in a data centre, 20 ms across a country:
// typical figures, said so) and what that means for a login and for CPU.
// Without that row (-methods, FIPS 140-3 mode) the first pqkex row is the
// reference, and the verdict says so. On a terminal, stderr shows
// "[n/N] STEP, about T left" while it runs. A -time that is not a
// positive duration is refused with a message naming -time (exit 2).
//
// Rows: pqkex mlkem768x25519-sha256; pqkex sntrup761x25519-sha512, and the
// same with its client keys from a sntrup761.KeyPool ("pqkex (batch)");
// pqkex mlkem768nistp256-sha256 and mlkem1024nistp384-sha384, each next to
// a "baseline" row (what a straightforward Go implementation does:
// crypto/mlkem + crypto/ecdh + SHA-2; crypto only, so its handshakes/s is
// "-"); and x/crypto's mlkem768x25519-sha256, curve25519-sha256 and
// ecdh-sha2-nistp256. In FIPS 140-3 mode only the rows and primitives of
// key exchanges without X25519 are measured, with a note on stderr.
// -methods takes any of those names or their aliases
// (sntrup761x25519-sha512@openssh.com, curve25519-sha256@libssh.org) and
// also limits the primitives to the ones the selected key exchanges use.
//
// -json prints one object with a stable schema, for example (real output
// of "bench -json -methods mlkem768x25519-sha256", shortened to one row
// and one primitive):
//
//	{
//	  "go": "go1.26.8", "goos": "linux", "goarch": "amd64", "cpu": "Intel(R) Xeon(R) Processor",
//	  "sntrup761_arithmetic": "scalar",
//	  "rows": [
//	    {"method": "mlkem768x25519-sha256", "impl": "pqkex", "variant": "",
//	     "client_us": 195.1, "server_us": 275.5, "kex_us": 470.6,
//	     "kex_per_s": 2124.8, "handshakes_per_s": 311.2,
//	     "samples": 5, "spread_pct": 136.7}
//	  ],
//	  "primitives": [{"name": "mlkem768.GenerateKey", "us": 127.2, "samples": 5, "spread_pct": 181.8}]
//	}
//
// Types and values:
//
//   - go, goos, goarch, cpu, sntrup761_arithmetic, fips140, method, impl,
//     variant and name are strings; samples is an integer; every other
//     field is a JSON number with up to one decimal (read it as a float: a
//     whole value such as 1732 is printed without a fraction); rows and
//     primitives are arrays, [] when empty, never null.
//   - sntrup761_arithmetic is "avx2 (assembly)" for the AVX2 assembly
//     path (the default build on amd64 with AVX2), "avx2
//     (GOEXPERIMENT=simd)" for the optional experimental vector path, and
//     "scalar" otherwise, with the reason in parentheses when a vector
//     path is built but the CPU lacks AVX2 (also printed in the table's
//     header).
//   - fips140 is "on" or "only" in FIPS 140-3 mode and absent otherwise.
//   - impl is "pqkex", "x/crypto" or "baseline" (whose handshakes_per_s is
//     0: it has no SSH adapter); variant is "batch" for the row whose
//     sntrup761 keys come from batch key generation and "" otherwise.
//   - client_us covers both client steps; kex_us = client_us + server_us;
//     kex_per_s = 1e6 / kex_us; handshakes_per_s is measured separately;
//     spread_pct is in percent.
//   - Primitive names: sntrup761.GenerateKey, sntrup761.Encapsulate,
//     sntrup761.Decapsulate, sntrup761.GenerateKeyBatch (per key, batches
//     of 32), mlkem768.GenerateKey, mlkem768.Encapsulate,
//     mlkem768.Decapsulate (circl, which pqkex uses), x25519.GenerateKey,
//     x25519.ECDH (circl), mlkem1024.GenerateKey, mlkem1024.Encapsulate,
//     mlkem1024.Decapsulate (circl), p256.GenerateKey, p256.ECDH,
//     p384.GenerateKey, p384.ECDH (crypto/ecdh).
//
// # scan
//
// scan connects to an SSH server, lists the key exchanges its KEXINIT
// offers (marking the post-quantum ones) and, apart from them, the
// extension markers servers list among key exchanges (ext-info-s,
// kex-strict-s-v00@openssh.com), says which key exchange pqkex's PQ-first
// client picks, completes it (never authenticating) and prints the host
// key type, its SHA256 fingerprint and the time taken. -kex names are
// checked before connecting. A listener that is not an SSH server is
// reported as such, with the start of what it sent (quoted and truncated).
// In text mode, whatever the server chose (its version line, its names,
// errors quoting them or its disconnect message) is printed as it is
// only if it is plain printable text, else Go-quoted with every control
// character escaped, and cut to 512 bytes with its length noted: a
// server cannot send escape sequences to the terminal or forge a line.
//
// Exit status 0 when a post-quantum key exchange was negotiated, 3 when
// the server offers none (with a warning), 1 on error (then nothing is
// printed on stdout before the server's identification line was read;
// with -json the object has an error field and empty lists), 2 on usage
// errors. JSON fields: host, server_version, kex_offered, pq_offered,
// extensions_offered, host_key_algorithms, selected, post_quantum, and
// after a completed key exchange host_key_type, host_key_fingerprint,
// elapsed_ms.
//
// # serve
//
// serve runs an SSH server for interop checks that accepts any user
// without real authentication and answers every command with
// "kex=<negotiated key exchange>". It listens on 127.0.0.1:2222 by default
// and refuses non-loopback addresses unless -allow-remote is given. Try:
//
//	ssh -o StrictHostKeyChecking=accept-new -o KexAlgorithms=sntrup761x25519-sha512 -p 2222 x@127.0.0.1 kex
//
// Its host key is the unencrypted OpenSSH private key file -hostkey,
// by default pqkex/serve_ed25519 in the user's configuration directory
// (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux); if the file
// does not exist, a new ed25519 key is written there (mode 0600, its
// directory made 0700) and "created host key FILE" printed, so clients
// see the same key after a restart. -hostkey "" makes a new key held in
// memory each start. The first line after that, "listening on ADDR, host
// key TYPE SHA256:FINGERPRINT (FILE)", gives the key's fingerprint.
//
// It is a test server, not a login service. It stays bounded under
// hostile clients with limits named after sshd_config's (README.md has the
// table with defaults): -max-startups S:R:F (unauthenticated connections,
// random early drop from S at R%, all refused at F; default 32:30:64),
// -per-source-max-startups and -per-source-max-conns per source (a quarter
// of the full -max-startups and of -max-conns as fitted unless given: 16
// and 64 with the defaults),
// sources grouped by -per-source-net-block-size (32:128), -max-conns (256,
// lowered to fit the descriptor limit unless given), -max-sessions session
// channels per connection (10; channel data is read and discarded, so a
// connection holds at most 10 × 2 MiB of unread data), and, when the
// server is full, -unused-connection-timeout (10s) after which the
// logged-in connection unused the longest gives up its slot.
// -login-grace-time (30s) bounds authentication and -idle-timeout (5m, 0
// for never) silence after login. Accept errors caused by a flood are
// retried with backoff. Everything a peer controls is quoted in the log
// and cut to 768 bytes with its length noted, and each source gets at
// most 5 lines per kind every 10 s, then one summary line: at most 61
// lines and 109 373 bytes in any 10 s (a sliding window) however many
// sources flood it.
//
// SIGTERM (as sent by systemd, docker stop or kill) and SIGINT stop it
// alike: it stops accepting, closes every connection, writes the pending
// summary lines and exits 0; 1 if connections are still being closed 5 s
// after the signal.
//
// # check
//
// check tests another SSH implementation's hybrid post-quantum key
// exchange on the wire, with messages pqkex builds itself: the honest
// exchange, every value the specifications say must be refused, and a few
// protocol violations, one case per connection. Each case's expectation,
// the sentence of RFC 10042, RFC 9941, RFC 8731, RFC 7748, RFC 5656,
// RFC 4253, FIPS 203 or OpenSSH's PROTOCOL it rests on, what the verdicts
// allow, and what was found on real peers are in docs/conformance.md.
// pqkex's side is written out from crypto/mlkem, crypto/ecdh and the
// sntrup761 package, not from pqkex's method engine.
//
// check HOST[:PORT]... plays the client: a first connection reads the
// server's KEXINIT, then every case of every method pqkex knows that the
// server offers (or of those named with -kex) runs on a new connection,
// in a random order per method; a method the server does not offer is one
// not-applicable row. Server cases: honest (the exchange, the signature
// over H computed from the transcript, SSH_MSG_NEWKEYS both ways and an
// encrypted SSH_MSG_SERVICE_REQUEST answered under the keys from K and H,
// repeated until K's string and mpint encodings differ), packet-tampered
// (the same request with one bit of its MAC flipped), c-init-short,
// c-init-long, ek-modulus-* (ML-KEM), x25519-* (the seven low-order
// points, each also with bit 255 set), point-* (P-256, P-384),
// init-truncated-string, second-init, ignore-in-strict-kex and
// newkeys-before-init (under strict key exchange; not applicable without
// it), wrong-guess-ignored. It sends a common client's identification
// line (or -ident), and the whole check is bounded by -deadline. A server
// that closes connections before its identification line (OpenSSH's
// PerSourcePenalties) is waited out and then paced 1.1 s apart, which
// stderr says (-no-pacing turns this off, -pause sets a pause from the
// start). Several servers may be named: one summary, one exit status.
//
// check -listen ADDR plays the server (ADDR on loopback unless
// -allow-remote; host keys new Ed25519 and ECDSA P-256 ones, or -hostkey).
// -run COMMAND runs the client under test once per case ({host}, {port}
// and {addr} replaced by the listening address), e.g.
//
//	pqkex check -listen 127.0.0.1:2200 -run 'ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p {port} x@{host} true'
//
// or connect it by hand once per case. Each connection runs the next case
// of the method negotiated; the client's first KEXINIT tells which
// methods it offers (the others are one not-applicable row each), and the
// run ends after their last case. Only the client under test runs cases:
// the one at -client-addr with the identification line -client-version,
// or else the first client to identify itself; other connections are
// logged and refused, and only the client under test's cases restart
// -idle. Client cases: honest (the client must answer our
// SSH_MSG_SERVICE_ACCEPT with SSH_MSG_USERAUTH_REQUEST under the keys from
// K and H), packet-tampered, s-reply-short, s-reply-long, the x25519-*
// and point-* values, sig-k-mpint, ct-tampered, host-key-mismatch; each
// reply is signed, where it can be known, with the K a client that skips
// the check would compute.
//
// Verdicts: completed, failed, rejected (SSH_MSG_DISCONNECT; its reason
// code follows, as in "rejected(2)"), closed (without SSH_MSG_DISCONNECT),
// replied (a server answered what it must refuse), accepted (a client
// went on after a reply it must refuse), ignored, hung, malformed, not
// run, not applicable. A conforming verdict may carry a note (closed
// without the SSH_MSG_DISCONNECT an abort includes, a deferred or late
// abort). Everything a peer sent is escaped (and long messages cut).
//
// The output has a table per method: case, expected (abort, complete or
// either), observed, result (ok, FAIL, accepted by the baseline, NOT RUN
// or n/a) and the finding (severity and id, docs/conformance.md "Findings
// by id"); then the details of every case that did not conform or run (of
// every case, with its clause and note, with -v, which also prints each
// case as it finishes, on stderr); then a summary: the counts, findings
// per severity, the worst and what to do about it. -baseline FILE accepts
// the findings it lists (lines "FINDING-ID [METHOD|*]
// [PEER-VERSION-PREFIX]"), -write-baseline FILE writes a run's findings as
// one, -junit FILE writes JUnit XML. Exit status 0 when every case ran and
// conformed or its finding is accepted, 1 on a finding not accepted or a
// baseline entry that matches nothing, 3 when none of those but a case or
// the whole check could not run, 2 on usage errors.
//
// -json prints one object (schema "pqkex-check/1"; fields are only ever
// added), an array of them when several servers are checked: schema,
// tool, role ("server" or "client"), target, peer_version, kex_offered,
// strict_kex, deadline and ident (role server), or listen, client_addr,
// client_version, peer_versions and refused_connections (role client);
// methods, results, summary (cases, conforming, nonconforming, not_run,
// not_applicable), baselined (the results a baseline accepts), and error
// when the check could not run. Each result has method, case, clause,
// expected, verdict, conforms, detail, note, finding, severity, attempts
// (connections the case took), peer (role client), elapsed_ms, and
// disconnect_reason and disconnect_message when the peer sent
// SSH_MSG_DISCONNECT.
//
// # kat
//
// kat runs the known-answer vectors bundled in the binary (every method's
// SSH exchanges, ML-KEM-768/1024, X25519, P-256/P-384 ECDH, the sntrup761
// KAT: 32 files, 6358 vectors; see package
// github.com/pqkex/pqkex/vectors), and with -dir every file under DIR in
// one of their formats (recognised by content). It prints a line per file
// and "N passed, M failed"; a file name, error or failure that is not
// plain printable text is Go-quoted with every control character escaped. It exits 1 if a vector failed, and also if no
// vector ran at all (an empty directory, or no file in a known format),
// saying so on stderr.
package main
