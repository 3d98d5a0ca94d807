package main

import (
	"runtime/debug"
	"slices"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// clientProfile is a client's default key exchange preference
// (kex_algorithms of its KEXINIT, RFC 4253 §7.1, extension markers left
// out), with where the list comes from.
type clientProfile struct {
	Client string   `json:"client"`
	Source string   `json:"source"`
	Kex    []string `json:"-"`
}

// The OpenSSH client defaults are KEX_CLIENT_KEX of myproposal.h in
// openssh-portable at the release tags named in Source. The list is the
// same at every tag of a range (compared tag by tag).
var (
	openSSH90Client = clientProfile{
		Client: "OpenSSH 9.0-9.8",
		Source: "openssh-portable myproposal.h KEX_CLIENT_KEX at V_9_2_P1 (6dfb65de), identical from V_9_0_P1 to V_9_8_P1",
		Kex: []string{
			"sntrup761x25519-sha512@openssh.com",
			"curve25519-sha256", "curve25519-sha256@libssh.org",
			"ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
			"diffie-hellman-group-exchange-sha256",
			"diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
		},
	}
	openSSH99Client = clientProfile{
		Client: "OpenSSH 9.9",
		Source: "openssh-portable myproposal.h KEX_CLIENT_KEX at V_9_9_P1 (53a80baa)",
		Kex: []string{
			"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com", "mlkem768x25519-sha256",
			"curve25519-sha256", "curve25519-sha256@libssh.org",
			"ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
			"diffie-hellman-group-exchange-sha256",
			"diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
		},
	}
	openSSH100Client = clientProfile{
		Client: "OpenSSH 10.x",
		Source: "openssh-portable myproposal.h KEX_CLIENT_KEX at V_10_0_P1 (2593769f), identical to V_10_5_P1 (b3f73442)",
		Kex: []string{
			"mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
			"curve25519-sha256", "curve25519-sha256@libssh.org",
			"ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
			"diffie-hellman-group-exchange-sha256",
			"diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
		},
	}
	// puttyClient is the key exchange list of the KEXINIT that PuTTY
	// 0.85's plink sends with its default settings (names below PuTTY's
	// "warn below here" line are sent too; the user is only warned).
	// TestClientListsOfPeers compares it with the installed plink.
	// libsshClient is libssh 0.12's default client list (its KEXINIT,
	// as the installed libssh 0.12.2 sends it; TestClientListsOfPeers).
	libsshClient = clientProfile{
		Client: "libssh 0.12",
		Source: "KEXINIT of libssh 0.12.2 (Debian forky libssh-4 0.12.2-1) with default options, captured on loopback",
		Kex: []string{
			"mlkem768x25519-sha256", "mlkem768nistp256-sha256", "mlkem1024nistp384-sha384",
			"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
			"curve25519-sha256", "curve25519-sha256@libssh.org",
			"ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
			"diffie-hellman-group18-sha512", "diffie-hellman-group16-sha512",
			"diffie-hellman-group-exchange-sha256", "diffie-hellman-group14-sha256",
		},
	}
	puttyClient = clientProfile{
		Client: "PuTTY 0.85",
		Source: "KEXINIT of plink 0.85 (Debian forky putty-tools 0.85-3) with default settings, captured on loopback",
		Kex:    puttyKex,
	}
)

// xcryptoDefaults is x/crypto/ssh's own default key exchange list,
// captured when the program starts: package variables are initialised
// before main runs, so before sshkex.Register changes the defaults.
var xcryptoDefaults = func() []string {
	var c ssh.Config
	c.SetDefaults()
	return c.KeyExchanges
}()

// xcryptoVersion returns the linked golang.org/x/crypto module version.
func xcryptoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "golang.org/x/crypto" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

// stockClients returns the clients whose negotiation scan predicts: the
// OpenSSH, PuTTY and libssh defaults above, x/crypto/ssh's defaults without
// pqkex, and sshkex.RecommendedKeyExchanges (read now, so after Register
// it is the list a pqkex-registered client sends).
func stockClients() []clientProfile {
	v := xcryptoVersion()
	return []clientProfile{
		openSSH90Client, openSSH99Client, openSSH100Client, puttyClient, libsshClient,
		{Client: "x/crypto/ssh " + v, Source: "ssh.Config.SetDefaults of the linked x/crypto, before sshkex.Register", Kex: slices.Clone(xcryptoDefaults)},
		{Client: "x/crypto/ssh " + v + " + pqkex", Source: "sshkex.RecommendedKeyExchanges after sshkex.Register", Kex: sshkex.RecommendedKeyExchanges()},
	}
}

// puttyKex is PuTTY 0.85's default key exchange list (see puttyClient).
var puttyKex = []string{
	"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
	"mlkem768x25519-sha256",
	"mlkem1024nistp384-sha384", "mlkem768nistp256-sha256",
	"curve448-sha512", "curve25519-sha256", "curve25519-sha256@libssh.org",
	"ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
	"diffie-hellman-group-exchange-sha256", "diffie-hellman-group-exchange-sha1",
	"diffie-hellman-group18-sha512", "diffie-hellman-group17-sha512", "diffie-hellman-group16-sha512",
	"diffie-hellman-group15-sha512", "diffie-hellman-group14-sha256", "diffie-hellman-group14-sha1",
	"rsa2048-sha256", "rsa1024-sha1",
	"diffie-hellman-group1-sha1",
}
