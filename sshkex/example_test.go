package sshkex_test

import (
	"crypto/ed25519"
	"fmt"
	"net"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// Example registers pqkex's key exchanges and runs an x/crypto/ssh server
// and client on loopback that negotiate sntrup761x25519-sha512. With
// KeyExchanges left empty both sides would use the PQ-first defaults
// (mlkem768x25519-sha256 first); the example names sntrup761x25519 so
// that the session identifier shows its SHA-512 exchange hash.
func Example() {
	// Once, before the first handshake in the process.
	if err := sshkex.Register(); err != nil {
		panic(err)
	}

	// Server.
	_, hostPriv, err := ed25519.GenerateKey(nil)
	if err != nil {
		panic(err)
	}
	hostKey, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		panic(err)
	}
	serverConfig := &ssh.ServerConfig{NoClientAuth: true} // for the example only
	serverConfig.AddHostKey(hostKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		conn, chans, reqs, err := ssh.NewServerConn(nc, serverConfig)
		if err != nil {
			nc.Close()
			return
		}
		defer conn.Close()
		go ssh.DiscardRequests(reqs)
		for ch := range chans {
			ch.Reject(ssh.Prohibited, "no channels in this example")
		}
	}()

	// Client.
	clientConfig := &ssh.ClientConfig{
		User:            "example",
		HostKeyCallback: ssh.FixedHostKey(hostKey.PublicKey()),
		Config: ssh.Config{
			KeyExchanges: []string{sshkex.KeyExchangeSNTRUP761X25519},
		},
	}
	client, err := ssh.Dial("tcp", ln.Addr().String(), clientConfig)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	fmt.Println("session identifier:", len(client.SessionID()), "bytes")
	// Output: session identifier: 64 bytes
}
