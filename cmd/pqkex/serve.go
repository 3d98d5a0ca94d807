package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/pqkex/pqkex/internal/kexserver"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// runServe implements "pqkex serve".
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:2222", "address to listen on")
	kex := fs.String("kex", "", "comma-separated key exchanges to offer (default: pqkex's PQ-first list)")
	hostKey := fs.String("hostkey", "", "OpenSSH private host key file (default: a new ed25519 key)")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback listen address")
	maxStartups := fs.Int("max-startups", 32, "most connections at once still in the handshake or authentication; more are closed at once")
	maxConns := fs.Int("max-conns", 256, "most open connections; more are closed at once (lowered to fit the descriptor limit unless set)")
	grace := fs.Duration("login-grace-time", 30*time.Second, "time allowed from connect to the end of authentication")
	idle := fs.Duration("idle-timeout", 5*time.Minute, "close a logged-in connection after this long without traffic (0: never)")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: pqkex serve [-listen ADDR] [-kex LIST] [-hostkey FILE] [-allow-remote] [limits]")
		fmt.Fprintln(w, "Accepts any user without real authentication and answers every command with kex=<negotiated key exchange>.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() != 0 || *maxStartups < 1 || *maxConns < 1 || *grace <= 0 || *idle < 0 {
		fs.Usage()
		return 2
	}
	maxConnsSet := false
	fs.Visit(func(f *flag.Flag) { maxConnsSet = maxConnsSet || f.Name == "max-conns" })
	if n := descriptorLimit(); n > 0 && !maxConnsSet && *maxConns > n-reservedFDs {
		// One descriptor per connection, and a few for the process.
		*maxConns = max(1, n-reservedFDs)
	}
	*maxStartups = min(*maxStartups, *maxConns)
	if err := checkListen(*listen, *allowRemote); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 2
	}
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	signer, err := loadHostKey(*hostKey)
	if err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	var kexs []string
	if *kex != "" {
		var err error
		if kexs, err = parseKexList(*kex); err != nil {
			fmt.Fprintln(stderr, "pqkex serve:", err)
			return 2
		}
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	srv := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, kexs))
	srv.Log = func(line string) { fmt.Fprintln(stdout, line) }
	srv.MaxStartups, srv.MaxConns, srv.LoginGraceTime, srv.IdleTimeout = *maxStartups, *maxConns, *grace, *idle
	offered := kexs
	if offered == nil {
		offered = sshkex.RecommendedKeyExchanges()
	}
	fmt.Fprintf(stdout, "listening on %s, host key %s %s\n", l.Addr(), signer.PublicKey().Type(), ssh.FingerprintSHA256(signer.PublicKey()))
	fmt.Fprintf(stdout, "offering %s\n", strings.Join(offered, ","))
	fmt.Fprintf(stdout, "limits: %d unauthenticated, %d connections, login grace time %v, idle timeout %v\n", *maxStartups, *maxConns, *grace, *idle)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	return 0
}

// reservedFDs are the descriptors serve keeps for itself (standard
// streams, the listener, the poller, a host key file) when it fits
// -max-conns to the descriptor limit.
const reservedFDs = 16

// checkListen refuses addresses that are not on loopback unless allowed.
func checkListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad -listen address %q: %v", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-listen %s is not a loopback address; this server accepts anyone without authentication, pass -allow-remote to listen there anyway", addr)
}

func loadHostKey(path string) (ssh.Signer, error) {
	if path == "" {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return ssh.NewSignerFromKey(priv)
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("host key %s is encrypted; use an unencrypted key", path)
		}
		return nil, fmt.Errorf("host key %s: %v", path, err)
	}
	return s, nil
}

// splitList splits a comma-separated list, dropping empty names.
func splitList(s string) []string {
	var out []string
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}
