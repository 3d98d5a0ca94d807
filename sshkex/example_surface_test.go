package sshkex_test

import (
	"crypto/ed25519"
	"fmt"
	"log"
	"net"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// RegisterWith for a program that wants x/crypto's own
// mlkem768x25519-sha256 and its default key exchange list: the sntrup761
// methods are then used only where a Config names them. Register or
// RegisterWith runs once per process, before the first handshake.
func ExampleRegisterWith() {
	err := sshkex.RegisterWith(sshkex.Options{KeepBuiltinMLKEM: true, KeepDefaults: true})
	if err != nil {
		log.Fatal(err) // x/crypto/ssh was left untouched
	}
	cfg := &ssh.ClientConfig{ /* User, Auth, HostKeyCallback as usual */ }
	cfg.KeyExchanges = sshkex.RecommendedKeyExchanges() // opt in, per Config
	_ = cfg
}

// Register in a program that wants post-quantum protection where it can
// get it but must start regardless: on error x/crypto/ssh is unchanged and
// still negotiates its own mlkem768x25519-sha256 with peers that have it.
// Registered says which x/crypto was accepted, and how.
func ExampleRegistered() {
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
		return
	}
	reg, _ := sshkex.Registered()
	if !reg.Verified {
		log.Printf("pqkex: %s is newer than the releases verified (%s); accepted after the registration self-test (%v)",
			reg.XCrypto, sshkex.VerifiedXCrypto, reg.SelfTest)
	}
}

// SetKeyPool for a client that opens many connections: its sntrup761 keys
// come from batches (each still used for one key exchange only), at a
// fraction of the cost of one key per connection.
func ExampleSetKeyPool() {
	if err := sshkex.Register(); err != nil {
		log.Fatal(err)
	}
	sshkex.SetKeyPool(sntrup761.NewKeyPool(32))
	defer sshkex.SetKeyPool(nil) // back to one fresh key per key exchange

	addr, hostKey, stop := exampleServer()
	defer stop()
	cfg := &ssh.ClientConfig{
		User:            "example",
		HostKeyCallback: ssh.FixedHostKey(hostKey),
		Config:          ssh.Config{KeyExchanges: []string{sshkex.KeyExchangeSNTRUP761X25519}},
	}
	for range 3 {
		client, err := ssh.Dial("tcp", addr, cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(client.SessionID()), "byte session identifier")
		client.Close()
	}
	// Output:
	// 64 byte session identifier
	// 64 byte session identifier
	// 64 byte session identifier
}

// exampleServer starts an x/crypto/ssh server on loopback that accepts
// anyone (for the example only; sshtest.ServeConn) and returns its address, its host key
// and a function that stops it.
func exampleServer() (string, ssh.PublicKey, func()) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		log.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		log.Fatal(err)
	}
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				sshtest.ServeConn(nc, cfg, nil) // handshakes, then refuses every channel
			}()
		}
	}()
	return ln.Addr().String(), signer.PublicKey(), func() { ln.Close() }
}
