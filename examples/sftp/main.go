// Command sftp uploads a file to an SSH server with github.com/pkg/sftp
// over golang.org/x/crypto/ssh, downloads it back and stats it, its key
// exchange made post-quantum by pqkex: the one change to a plain pkg/sftp
// program is the sshkex.Register call in main. Against an OpenSSH 9.0–9.8
// server, which offers sntrup761x25519-sha512@openssh.com and no ML-KEM
// method, that is the method negotiated, where x/crypto alone would fall
// back to curve25519-sha256.
//
//	sftp -addr example.com:22 -user me -identity ~/.ssh/id_ed25519 -known-hosts ~/.ssh/known_hosts LOCAL REMOTE
//
// It uploads LOCAL to REMOTE, downloads REMOTE back and prints
// "uploaded N bytes", "stat REMOTE: N bytes, MODE" and "downloaded N bytes,
// same: true|false". It is tested against OpenSSH 9.2's sshd by the
// examples module's tests.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/pkg/sftp"
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
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: sftp [flags] LOCAL REMOTE")
		os.Exit(2)
	}
	local, remote := flag.Arg(0), flag.Arg(1)
	// The one pqkex line: once, before anything dials. On error nothing
	// was changed and x/crypto still negotiates its own
	// mlkem768x25519-sha256 where the server has it: log and carry on.
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
	}

	key, err := os.ReadFile(*identity)
	if err != nil {
		log.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		log.Fatalf("%s: %v", *identity, err)
	}
	hostKeys, err := knownhosts.New(*knownHosts)
	if err != nil {
		log.Fatal(err)
	}
	conn, err := ssh.Dial("tcp", *addr, &ssh.ClientConfig{
		User:            *user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKeys,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client, err := sftp.NewClient(conn)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if err := run(client, local, remote); err != nil {
		log.Fatal(err)
	}
}

// run uploads local to remote, stats remote and downloads it again.
func run(client *sftp.Client, local, remote string) error {
	data, err := os.ReadFile(local)
	if err != nil {
		return err
	}
	w, err := client.Create(remote)
	if err != nil {
		return err
	}
	n, err := w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Printf("uploaded %d bytes\n", n)

	fi, err := client.Stat(remote)
	if err != nil {
		return err
	}
	fmt.Printf("stat %s: %d bytes, %v\n", remote, fi.Size(), fi.Mode())

	r, err := client.Open(remote)
	if err != nil {
		return err
	}
	defer r.Close()
	back, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	fmt.Printf("downloaded %d bytes, same: %v\n", len(back), bytes.Equal(back, data))
	return nil
}
