package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pqkex/pqkex/internal/tool/kexserver"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// serveFlags are "pqkex serve"'s flags.
type serveFlags struct {
	listen, kex, hostKey *string
	allowRemote          *bool
	lim                  serveLimits
}

func newServeFlags(fs *flag.FlagSet) *serveFlags {
	f := &serveFlags{
		listen:      fs.String("listen", "127.0.0.1:2222", "address to listen on"),
		kex:         fs.String("kex", "", "comma-separated key exchanges to offer (default: pqkex's PQ-first list)"),
		hostKey:     fs.String("hostkey", defaultHostKeyFile(), "OpenSSH private host key file, an ed25519 key created (0600) if missing; \"\" for a new key each start"),
		allowRemote: fs.Bool("allow-remote", false, "allow a non-loopback listen address"),
	}
	f.lim.flags(fs)
	return f
}

// runServe implements "pqkex serve".
func runServe(args []string, stdout, stderr io.Writer) int {
	opt, fs, code, done := parseVerb("serve", newServeFlags, args, stdout, stderr)
	if done {
		return code
	}
	listen, kex, hostKey, allowRemote, lim := opt.listen, opt.kex, opt.hostKey, opt.allowRemote, &opt.lim
	if err := lim.check(fs); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		fs.Usage()
		return 2
	}
	if err := checkListen(*listen, *allowRemote); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 2
	}
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	signer, created, err := loadOrCreateHostKey(*hostKey)
	if err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	if created {
		fmt.Fprintf(stdout, "created host key %s\n", *hostKey)
	}
	kexs, ok := listFlag("serve", *kex, nil, parseKexList, stderr)
	if !ok {
		return 2
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	srv := kexserver.New(l, kexserver.Config([]ssh.Signer{signer}, kexs))
	srv.Log = func(line string) { fmt.Fprintln(stdout, line) }
	lim.apply(srv)
	offered := kexs
	if offered == nil {
		offered = sshkex.RecommendedKeyExchanges()
	}
	// SIGTERM (systemd, docker stop, kill) stops it as SIGINT does. The
	// signals are caught before the address is printed, so that one sent
	// as soon as it appears is taken: a process started with SIGINT
	// ignored (a background job of a script, nohup) would otherwise lose
	// it, and one started without would die without its log summaries.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	keyFile := *hostKey
	if keyFile == "" {
		keyFile = "new, in memory only"
	}
	fmt.Fprintf(stdout, "listening on %s, host key %s %s (%s)\n", l.Addr(), signer.PublicKey().Type(), ssh.FingerprintSHA256(signer.PublicKey()), keyFile)
	fmt.Fprintf(stdout, "offering %s\n", strings.Join(offered, ","))
	fmt.Fprintf(stdout, "limits: %s\n", lim)

	closed := make(chan struct{})
	go func() {
		<-sig
		srv.Close() // ends Serve, then logs the pending summaries
		close(closed)
	}()
	if err := srv.Serve(); err != nil {
		fmt.Fprintln(stderr, "pqkex serve:", err)
		return 1
	}
	// Close has closed every connection; their handlers return at once.
	select {
	case <-closed:
		return 0
	case <-time.After(shutdownTimeout):
		fmt.Fprintf(stderr, "pqkex serve: connections still being closed %v after the signal; exiting without the pending log summaries\n", shutdownTimeout)
		return 1
	}
}

// shutdownTimeout bounds the wait for the connections' handlers after a
// signal.
const shutdownTimeout = 5 * time.Second

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
