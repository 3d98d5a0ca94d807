// Command gliderlabs is an SSH server built on github.com/gliderlabs/ssh
// with pqkex's post-quantum key exchanges. The sshkex.Register call at the
// start of main is the only line pqkex needs: gliderlabs/ssh makes a new
// x/crypto ssh.ServerConfig for every connection and leaves its
// KeyExchanges empty, so every handshake uses the defaults Register
// installed.
//
// It accepts every client without authentication (gliderlabs/ssh's
// behaviour when no auth handler is set), says so when it starts, and
// answers every session with "kex=NAME", the key exchange its connection
// negotiated, read on the server's side. On its first start it creates
// its host key (an ed25519 key, mode 0600). It is the example of
// docs/usage.md, tested against OpenSSH's clients by the examples
// module's tests; not a server to deploy.
//
//	gliderlabs -listen 127.0.0.1:2222 -hostkey host_ed25519
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"

	"github.com/gliderlabs/ssh"
	"github.com/pqkex/pqkex/sshkex"
	gossh "golang.org/x/crypto/ssh"
)

var (
	listen  = flag.String("listen", "127.0.0.1:2222", "address to listen on")
	hostKey = flag.String("hostkey", "host_ed25519", "host key: an unencrypted OpenSSH private key file, created if missing")
)

func main() {
	flag.Parse()
	// Once, before the server starts.
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
	}
	// No auth handler: every client gets a session, whoever it is.
	log.Printf("WARNING: this server authenticates no one; keep it on loopback (-listen %s)", *listen)
	if err := createHostKey(*hostKey); err != nil {
		log.Fatal(err)
	}
	ssh.Handle(func(s ssh.Session) {
		log.Printf("%s %q: key exchange %s", s.RemoteAddr(), s.Context().ClientVersion(), kexOf(s))
		fmt.Fprintf(s, "kex=%s\n", kexOf(s))
	})
	log.Fatal(ssh.ListenAndServe(*listen, nil, ssh.HostKeyFile(*hostKey)))
}

// createHostKey writes a new ed25519 host key to path (mode 0600) unless
// the file exists, as ssh-keygen -t ed25519 with an empty passphrase would.
func createHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // the key of an earlier start
	} else if err != nil {
		return err
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	log.Printf("created host key %s", path)
	return f.Close()
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
