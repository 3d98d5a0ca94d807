// Command wish is an SSH server built on wish v2 (charm.land/wish/v2, on
// charm.land/ssh, its fork of gliderlabs/ssh) with pqkex's post-quantum
// key exchanges. The sshkex.Register call at the start of main is the only
// line pqkex needs: charm.land/ssh makes a new x/crypto ssh.ServerConfig
// for every connection and leaves its KeyExchanges empty, so every
// handshake uses the defaults Register installed.
//
// It accepts every client without authentication (wish's behaviour when
// no auth option is given) and answers every session with "kex=NAME", the
// key exchange its connection negotiated, read on the server's side. It is
// the example of docs/usage.md, tested against OpenSSH's clients by the
// examples module's tests; not a server to deploy.
//
//	wish -listen 127.0.0.1:2222 -hostkey host_ed25519
package main

import (
	"flag"
	"log"
	"strconv"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/logging"
	"github.com/pqkex/pqkex/sshkex"
	gossh "golang.org/x/crypto/ssh"
)

var (
	listen  = flag.String("listen", "127.0.0.1:2222", "address to listen on")
	hostKey = flag.String("hostkey", "host_ed25519", "host key file (an ed25519 key is generated there if it does not exist)")
)

func main() {
	flag.Parse()
	// Once, before the server starts.
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
	}
	srv, err := wish.NewServer(
		wish.WithAddress(*listen),
		wish.WithHostKeyPath(*hostKey),
		// wish's logging middleware prints the user, command and TERM the
		// client chose as they are: through quoted, a client cannot
		// write escape sequences to the terminal or forge log lines.
		wish.WithMiddleware(printKex, logging.MiddlewareWithLogger(quoted{log.Default()})),
	)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(srv.ListenAndServe())
}

// printKex answers the session with the key exchange its connection
// negotiated.
func printKex(next ssh.Handler) ssh.Handler {
	return func(s ssh.Session) {
		log.Printf("%s %q: key exchange %s", s.RemoteAddr(), s.Context().ClientVersion(), kexOf(s))
		wish.Printf(s, "kex=%s\n", kexOf(s))
		next(s)
	}
}

// quoted is a logging.Logger that quotes every string (and every string
// of a []string, such as the command) in Go syntax, control characters
// escaped, and cut to maxPeerText bytes, before formatting: values from
// the client cannot start a line or reach the terminal.
type quoted struct{ *log.Logger }

const maxPeerText = 256

func (q quoted) Printf(format string, v ...any) {
	for i, a := range v {
		switch a := a.(type) {
		case string:
			v[i] = quote(a)
		case []string:
			qs := make([]string, len(a))
			for j, s := range a {
				qs[j] = quote(s)
			}
			v[i] = qs
		}
	}
	q.Logger.Printf(format, v...)
}

// quote quotes s, cut to maxPeerText bytes with its length noted.
func quote(s string) string {
	if len(s) > maxPeerText {
		return strconv.QuoteToASCII(s[:maxPeerText]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.QuoteToASCII(s)
}

// kexOf returns the key exchange that the session's connection negotiated,
// or "" if x/crypto does not report it.
func kexOf(s ssh.Session) string {
	sc, ok := s.Context().Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	if !ok {
		return ""
	}
	if a, ok := sc.Conn.(gossh.AlgorithmsConnMetadata); ok {
		return a.Algorithms().KeyExchange // e.g. "mlkem768x25519-sha256"
	}
	return ""
}
