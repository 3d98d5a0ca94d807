package sshkex

import (
	"testing"

	"golang.org/x/crypto/ssh"
)

// BenchmarkHandshake measures whole x/crypto/ssh handshakes (key exchange,
// host key signature, auth "none", one session-less connection) over
// loopback TCP, client and server in this process, for pqkex's methods and
// x/crypto's built-in mlkem768x25519-sha256 and curve25519-sha256 in the
// same run. x/crypto's ML-KEM is swapped back into the registry for its
// sub-benchmark (benchmarks run after the tests, one at a time).
func BenchmarkHandshake(b *testing.B) {
	hk := hostKeys(b)[0]
	cases := []struct {
		impl, kex string
		builtin   bool
	}{
		{"pqkex", KeyExchangeMLKEM768X25519, false},
		{"xcrypto", KeyExchangeMLKEM768X25519, true},
		{"pqkex", KeyExchangeSNTRUP761X25519, false},
		{"xcrypto", ssh.KeyExchangeCurve25519, false},
	}
	for _, c := range cases {
		b.Run("impl="+c.impl+"/kex="+c.kex, func(b *testing.B) {
			if c.builtin {
				ours := kexAlgoMap[c.kex]
				kexAlgoMap[c.kex] = builtinMLKEM
				defer func() { kexAlgoMap[c.kex] = ours }()
			}
			srv := startServer(b, hk.signer, []string{c.kex})
			cfg := clientConfig(hk, []string{c.kex})
			addr := srv.Addr().String()
			for b.Loop() {
				conn, err := ssh.Dial("tcp", addr, cfg)
				if err != nil {
					b.Fatal(err)
				}
				conn.Close()
			}
		})
	}
}
