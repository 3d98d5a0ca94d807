// Command pqkex benchmarks, checks and demonstrates pqkex's post-quantum
// hybrid SSH key exchanges.
//
// Its commands, each with its synopsis and what it does:
//
//	pqkex bench [-time D] [-methods LIST] [-json]
//		measure every key exchange's crypto and full x/crypto/ssh handshakes
//	pqkex scan [-kex LIST] [-timeout D] [-json] HOST[:PORT]
//		show what an SSH server offers and complete a post-quantum key exchange
//	pqkex serve [-listen ADDR] [-kex LIST] [-hostkey FILE] [-allow-remote] [limits]
//		run a small SSH server that tells each client its key exchange
//	pqkex kat [-dir DIR]
//		run the bundled known-answer vectors (and -dir DIR)
//	pqkex check [-kex LIST] [-timeout D] [-pause D] [-deadline D] [-ident LINE] [-identity FILE [-user NAME]] [-soak N] [-baseline FILE] [-junit FILE] [-case LIST] [-transcript DIR] [-json] [-v] HOST[:PORT]...
//	pqkex check -listen ADDR [-run COMMAND] [-kex LIST] [-hostkey FILE] [-client-addr IP] [-client-version LINE] [-allow-remote] [-timeout D] [-idle D] [-case LIST] [-transcript DIR] [-json] [-v]
//		test another SSH server's or client's hybrid key exchange against the specifications
//	pqkex version
//		print pqkex's version
//	pqkex help [COMMAND | FINDING-ID | findings]
//		print this list, a command's usage and flags, or a check finding's write-up
//
// "pqkex help COMMAND" and "pqkex COMMAND -h" print a command's usage (its
// synopsis, what it does and its exit status) and every flag with its
// default, and exit 0. Exit status 1 means the work failed or did not run
// (kat: a vector failed or none ran; scan: it could not complete, 3 when
// the server offers no post-quantum key exchange a current client uses;
// check: a case did not conform, 3 when a case could not run), 2 a usage
// error (a bad flag or argument).
//
// Every command's output, exit status and JSON schema are described in
// docs/usage.md, section "The pqkex command", at the root of the module;
// check's cases, the clauses they rest on and what was found on real
// peers in docs/conformance.md.
//
// The commands are one table (commands.go): the usage above, "pqkex help"
// and each command's flags are made from it, and TestDocMatchesCommands
// fails when this list and the table differ.
package main
