package main

import (
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/internal/tool/kexserver"
	"golang.org/x/crypto/ssh"
)

// measureHandshakes times full x/crypto/ssh handshakes (client and server
// in this process, one at a time, over an in-memory buffered pipe) with
// the key exchange name.
func measureHandshakes(name string, hostKey ssh.Signer, d time.Duration, minN int) stat {
	scfg := &ssh.ServerConfig{NoClientAuth: true}
	scfg.KeyExchanges = []string{name}
	scfg.AddHostKey(hostKey)
	ccfg := &ssh.ClientConfig{
		User:            "bench",
		HostKeyCallback: ssh.FixedHostKey(hostKey.PublicKey()),
	}
	ccfg.KeyExchanges = []string{name}
	kexserver.OnlyModeAlgorithms(&scfg.Config) // x/crypto's GCM fails under fips140=only
	kexserver.OnlyModeAlgorithms(&ccfg.Config)
	one := func() error {
		c, s := sshwire.MemPipe(false)
		defer c.Close()
		defer s.Close()
		errc := make(chan error, 1)
		go func() {
			conn, chans, reqs, err := ssh.NewServerConn(s, scfg)
			if err == nil {
				go ssh.DiscardRequests(reqs)
				go func() {
					for range chans {
					}
				}()
				conn.Close()
			}
			errc <- err
		}()
		conn, chans, reqs, err := ssh.NewClientConn(c, "pipe", ccfg)
		if err != nil {
			return err
		}
		go ssh.DiscardRequests(reqs)
		go func() {
			for range chans {
			}
		}()
		conn.Close()
		return <-errc
	}
	if err := one(); err != nil {
		panic("bench handshake " + name + ": " + err.Error())
	}
	return measureMin(d, minN, func() {
		if err := one(); err != nil {
			panic("bench handshake " + name + ": " + err.Error())
		}
	})
}
