// Command client logs in to an SSH server with golang.org/x/crypto/ssh and
// pqkex's post-quantum key exchanges, and prints the key exchange the
// connection negotiated as "kex=NAME". Against an OpenSSH 9.0–9.8 server,
// which offers sntrup761x25519-sha512@openssh.com and no ML-KEM method,
// that is sntrup761x25519-sha512@openssh.com, where x/crypto alone would
// fall back to curve25519-sha256.
//
// It is the client of the README's quick start, tested against OpenSSH's
// sshd by the examples module's tests.
//
//	client -addr example.com:22 -user me -identity ~/.ssh/id_ed25519 -known-hosts ~/.ssh/known_hosts
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

var (
	addr       = flag.String("addr", "127.0.0.1:22", "server address, HOST:PORT")
	user       = flag.String("user", os.Getenv("USER"), "user name")
	identity   = flag.String("identity", "id_ed25519", "private key file (an unencrypted OpenSSH private key)")
	knownHosts = flag.String("known-hosts", "known_hosts", "known_hosts file holding the server's host key")
)

func main() {
	flag.Parse()
	// Once, in main or an init function, before anything dials or serves.
	// On error nothing was changed and x/crypto/ssh still negotiates its
	// own mlkem768x25519-sha256: log and carry on.
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
	}
	signer, hostKeys, err := credentials(*identity, *knownHosts)
	if err != nil {
		log.Fatal(err)
	}

	// KeyExchanges left empty: mlkem768x25519-sha256,
	// sntrup761x25519-sha512, sntrup761x25519-sha512@openssh.com, the two
	// NIST-curve hybrids, then x/crypto's classical list.
	cfg := &ssh.ClientConfig{
		User:            *user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKeys,
	}
	client, err := ssh.Dial("tcp", *addr, cfg)
	if err != nil {
		log.Fatal(err)
	}
	if a, ok := client.Conn.(ssh.AlgorithmsConnMetadata); ok {
		fmt.Printf("kex=%s\n", a.Algorithms().KeyExchange)
	}
	client.Close()
}

// credentials reads the client's private key and the known hosts.
func credentials(identity, knownHostsFile string) (ssh.Signer, ssh.HostKeyCallback, error) {
	pem, err := os.ReadFile(identity)
	if err != nil {
		return nil, nil, err
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", identity, err)
	}
	hostKeys, err := knownhosts.New(knownHostsFile)
	if err != nil {
		return nil, nil, err
	}
	return signer, hostKeys, nil
}
