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
//
// "pqkex COMMAND -h" prints a command's flags and exits 0. Exit status 1
// means the work failed or did not run (kat: a vector failed or none ran;
// scan: an error, 3 when the server offers no post-quantum key exchange),
// 2 a usage error (a bad flag or argument).
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
//   - sntrup761_arithmetic is "scalar", or "avx2 (GOEXPERIMENT=simd)" for
//     the optional vector path (also printed in the table's header).
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
