// Command pqkex benchmarks, checks and demonstrates pqkex's post-quantum
// hybrid SSH key exchanges.
//
//	pqkex bench [-time D] [-methods LIST] [-json]            compare key exchanges (the main job)
//	pqkex scan [-kex LIST] [-timeout D] [-json] HOST[:PORT]  audit an SSH server
//	pqkex serve [-listen ADDR] [-kex LIST] [-hostkey FILE]   interop test server
//	            [-max-startups S:R:F] [-per-source-max-startups N] [-per-source-max-conns N]
//	            [-per-source-net-block-size V4:V6] [-max-conns N] [-max-sessions N]
//	            [-unused-connection-timeout D] [-login-grace-time D] [-idle-timeout D]
//	            [-allow-remote] [-max-startups N] [-max-conns N]
//	            [-login-grace-time D] [-idle-timeout D]
//	pqkex kat [-dir DIR]                                     run known-answer vectors
//	pqkex check [-kex LIST] [-timeout D] [-pause D] [-json] [-v] HOST[:PORT]
//	                                                         test a server's hybrid key exchange
//	pqkex check -listen ADDR [-kex LIST] [-hostkey FILE] [-allow-remote]
//	            [-timeout D] [-idle D] [-json] [-v]          test clients' hybrid key exchange
//
// "pqkex COMMAND -h" prints a command's flags and exits 0. Exit status 1
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
//	ssh -o KexAlgorithms=sntrup761x25519-sha512 -p 2222 x@127.0.0.1 kex
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
// lines and 109 373 bytes per 10 s however many sources flood it.
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
// protocol violations, one case per connection. Each case names the
// clause it comes from (RFC 10042 for the ML-KEM methods, RFC 9941 for
// sntrup761x25519, FIPS 203 §7.2, RFC 8731 §3 and RFC 7748 §5 for X25519,
// RFC 5656 §4 and SEC 1 §3.2.2 for the NIST curves, RFC 4253 for the
// transport, OpenSSH's PROTOCOL §1.10 for strict key exchange); the
// table of cases and what was found on real peers is docs/conformance.md.
//
// Both halves of pqkex's side are written out from crypto/mlkem,
// crypto/ecdh and the sntrup761 package, not from pqkex's method engine,
// so that checking pqkex's own server or client does not check the engine
// against itself.
//
// check HOST[:PORT] plays the client. A first connection reads the
// server's KEXINIT; then every case of every method pqkex knows that the
// server offers (or of those named with -kex) runs on a new connection:
//
//   - honest: pqkex's client completes the exchange, computes the
//     exchange hash H from the transcript itself and verifies the host
//     key signature over it, then sends SSH_MSG_NEWKEYS and one encrypted
//     SSH_MSG_SERVICE_REQUEST and requires the server's SSH_MSG_NEWKEYS
//     and an SSH_MSG_SERVICE_ACCEPT that authenticates under the keys
//     derived from K and H (aes256-ctr or aes128-ctr with hmac-sha2-256
//     or -512, or chacha20-poly1305@openssh.com). K hashed as an mpint
//     instead of a string differs only when K's first byte is zero or has
//     its top bit set, so the exchange is repeated (up to 16 times) until
//     that is so; the detail says how many it took. A signature that
//     fails is tried against H with K as an mpint, as raw bytes and with
//     K_PQ and K_CL swapped, and the detail says if one verifies.
//   - c-init-short, c-init-long: C_INIT one byte off its exact length;
//     ek-modulus-first, -odd, -last, -max (ML-KEM): an encapsulation key
//     with one coefficient at or above q at an even, an odd, the last
//     position and set to 4095; x25519-* (X25519): the seven low-order
//     points (0, 1, two of order 8, p-1, p, p+1), each also with bit 255
//     set; point-* (P-256, P-384): not on the curve, the point at
//     infinity (as 04 and zeros, and as SEC1's single 00 byte), compressed
//     zero-padded to 65/97 bytes, hybrid (06/07), coordinates zero-padded
//     by a byte, x + p (for a point with a small x, and padded by a byte
//     for the client's own point); point-compressed (RFC 10042 §2.3.1-2.3.2
//     allow point compression: either answer conforms);
//     init-truncated-string: C_INIT's length field one more than the
//     bytes that follow. The server must abort.
//   - second-init: two SSH_MSG_KEX_ECDH_INIT; after answering the first
//     the server must end the connection (it is read under the new keys);
//     ignore-in-strict-kex: SSH_MSG_IGNORE before SSH_MSG_KEX_ECDH_INIT
//     under strict key exchange ("not applicable" when the server does
//     not offer it); newkeys-before-init: SSH_MSG_NEWKEYS instead of
//     SSH_MSG_KEX_ECDH_INIT; the server must abort. wrong-guess-ignored:
//     first_kex_packet_follows with a wrong guess and a bogus guessed
//     packet, which the server must ignore and then complete the honest
//     exchange.
//
// check -listen ADDR plays the server (ADDR on loopback unless
// -allow-remote; host keys new Ed25519 and ECDSA P-256 ones, or -hostkey).
// Connect the client under test to it once per case, e.g.
//
//	for i in $(seq 90); do ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p PORT x@127.0.0.1 true; done
//
// Each connection runs the next case of the method negotiated: check
// offers every method with cases left, so the client's preference picks
// one and a client offering several goes through all of them. A
// connection that runs no case (not SSH, nothing in common) is logged on
// stderr. The run ends when every case has run, after -idle without a
// connection, or on SIGINT or SIGTERM; cases that did not run are
// reported as such. The cases: honest (the client must send SSH_MSG_NEWKEYS and an
// SSH_MSG_SERVICE_REQUEST that authenticates under keys from K and H);
// s-reply-short, s-reply-long; the x25519-* and point-* values of the
// server's half, signed, where that can be known, with the K a client
// that skips the check would compute (the all-zero X25519 secret; the
// point a compressed or hybrid encoding stands for), so that skipping it
// shows as acceptance; sig-k-mpint (H computed with K as an mpint);
// ct-tampered (one bit of the KEM ciphertext flipped: implicit rejection
// must make the client's signature check fail); host-key-mismatch (signed
// with another key than the host key shown). The client must abort every
// case but honest before SSH_MSG_NEWKEYS.
//
// Verdicts: completed, failed (an exchange that must complete went
// wrong), rejected (SSH_MSG_DISCONNECT; its reason code follows, as in
// "rejected(2)"), closed (closed without SSH_MSG_DISCONNECT), replied (a
// server answered a bad value with KEX_ECDH_REPLY), accepted (a client
// answered a bad reply with SSH_MSG_NEWKEYS), ignored (another message,
// such as SSH_MSG_UNIMPLEMENTED), hung (nothing decisive before -timeout),
// malformed (not a valid SSH packet or message), not run, not applicable.
// An abort conforms when rejected or closed; honest and
// wrong-guess-ignored conform when completed; point-compressed ("either")
// when rejected, closed, replied or accepted. Everything a peer sent is
// escaped (and long messages cut) before it is printed.
//
// The table has a row per case: method, case, spec clause, expected
// (abort, complete or either), observed and ok, FAIL, NOT RUN or n/a; the details
// of every case that did not conform or run follow (of every case with
// -v, which also prints each case as it finishes, on stderr). Exit status
// 0 when every case ran and conformed (not applicable ones aside), 1 when
// a case did not conform, 3 when none failed but a case or the whole
// check could not run (no connection, no method in common, a method named
// with -kex not offered), 2 on usage errors.
//
// -json prints one object (schema "pqkex-check/1"; fields are only ever
// added): schema, tool, role (what was checked: "server" or "client"),
// target (role server) or listen (role client), peer_version (the
// server's identification line) or peer_versions (the clients'),
// kex_offered and strict_kex (role server), methods, results, summary
// (cases, conforming, nonconforming, not_run, not_applicable), and error
// when the check could not run. Each result has method, case, clause,
// expected, verdict, conforms, detail, attempts (connections the case
// took), elapsed_ms, and disconnect_reason and disconnect_message when
// the peer sent SSH_MSG_DISCONNECT. For example (real output of "check
// -json -kex mlkem768x25519-sha256" against OpenSSH 10.0's sshd,
// shortened to one result):
//
//	{
//	  "schema": "pqkex-check/1", "tool": "pqkex (devel)", "role": "server",
//	  "target": "127.0.0.1:35559", "peer_version": "SSH-2.0-OpenSSH_10.0p2 Debian-7~bpo12+1",
//	  "kex_offered": ["mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
//	    "curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
//	    "ecdh-sha2-nistp521", "ext-info-s", "kex-strict-s-v00@openssh.com"],
//	  "strict_kex": true, "methods": ["mlkem768x25519-sha256"],
//	  "results": [
//	    {"method": "mlkem768x25519-sha256", "case": "ignore-in-strict-kex", "clause": "OpenSSH PROTOCOL §1.10",
//	     "expected": "abort", "verdict": "rejected", "conforms": true,
//	     "detail": "sent SSH_MSG_IGNORE, then an honest SSH_MSG_KEX_ECDH_INIT, under strict key exchange; got SSH_MSG_DISCONNECT 2 (PROTOCOL_ERROR) \"strict KEX violation: unexpected packet type 2 (seqnr 1)\"",
//	     "disconnect_reason": 2, "disconnect_message": "strict KEX violation: unexpected packet type 2 (seqnr 1)",
//	     "attempts": 1, "elapsed_ms": 25.264}
//	  ],
//	  "summary": {"cases": 26, "conforming": 19, "nonconforming": 7, "not_run": 0, "not_applicable": 0}
//	}
//
// OpenSSH 10's PerSourcePenalties can refuse a source after many
// connections that do not authenticate (as every case's does): against
// such a server use -pause, or check from an address it exempts.
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
