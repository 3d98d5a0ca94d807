package examples

import (
	"fmt"
	"io"
	"net"
	"testing"

	charmssh "charm.land/ssh"
	"charm.land/wish/v2"
	glssh "github.com/gliderlabs/ssh"
	"github.com/pqkex/pqkex/sshkex"
	gossh "golang.org/x/crypto/ssh"
)

// TestServerConfigCallback: gliderlabs/ssh and charm.land/ssh (under wish)
// let a program build the x/crypto ServerConfig itself through
// Server.ServerConfigCallback. Left with KeyExchanges empty, that config
// still gets Register's defaults; a program that sets KeyExchanges must
// start from sshkex.RecommendedKeyExchanges, since a list of its own
// replaces the defaults (the third case: OpenSSH 9.2 then falls back to
// curve25519-sha256). The client is OpenSSH 9.2 with its own defaults.
func TestServerConfigCallback(t *testing.T) {
	bin := needPeer(t, "PQKEX_OPENSSH92_SSH")
	for _, tc := range []struct {
		name string
		kexs []string // the callback's KeyExchanges
		want string
	}{
		{"KeyExchanges empty", nil, sntrup},
		{"KeyExchanges from RecommendedKeyExchanges", sshkex.RecommendedKeyExchanges(), sntrup},
		{"KeyExchanges of the program's own", []string{curve25519, "ecdh-sha2-nistp256"}, curve25519},
	} {
		callback := func() *gossh.ServerConfig {
			return &gossh.ServerConfig{Config: gossh.Config{KeyExchanges: tc.kexs}}
		}
		for _, wrapper := range wrappers {
			t.Run(wrapper+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				hostKey, hostKeyFile := newKey(t, dir, "host_ed25519")
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				serve, closeServer := callbackServer(t, wrapper, hostKeyFile, callback)
				go serve(l)
				t.Cleanup(func() { closeServer() })
				port := l.Addr().(*net.TCPAddr).Port

				answer, clientLog, err := runOpenSSH(bin, port, knownHosts(t, dir, port, hostKey.PublicKey()), "")
				if err != nil {
					t.Fatalf("%v\n%s", err, clientLog)
				}
				if answer != "kex="+tc.want {
					t.Errorf("the server answered %q, want kex=%s", answer, tc.want)
				}
				t.Logf("ServerConfigCallback with %s: OpenSSH 9.2 negotiated %s", tc.name, answer)
			})
		}
	}
}

// callbackServer returns the Serve and Close of a wrapper's server with
// the host key in hostKeyFile and config as its ServerConfigCallback; its
// handler answers "kex=NAME".
func callbackServer(t *testing.T, wrapper, hostKeyFile string, config func() *gossh.ServerConfig) (func(net.Listener) error, func() error) {
	t.Helper()
	switch wrapper {
	case "gliderlabs":
		srv := &glssh.Server{
			Handler: func(s glssh.Session) {
				io.WriteString(s, "kex="+negotiated(s.Context().Value(glssh.ContextKeyConn))+"\n")
			},
			ServerConfigCallback: func(glssh.Context) *gossh.ServerConfig { return config() },
		}
		if err := srv.SetOption(glssh.HostKeyFile(hostKeyFile)); err != nil {
			t.Fatal(err)
		}
		return srv.Serve, srv.Close
	case "wish":
		srv, err := wish.NewServer(
			wish.WithHostKeyPath(hostKeyFile),
			func(s *charmssh.Server) error {
				s.ServerConfigCallback = func(charmssh.Context) *gossh.ServerConfig { return config() }
				return nil
			},
			wish.WithMiddleware(func(next charmssh.Handler) charmssh.Handler {
				return func(s charmssh.Session) {
					wish.Printf(s, "kex=%s\n", negotiated(s.Context().Value(charmssh.ContextKeyConn)))
					next(s)
				}
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		return srv.Serve, srv.Close
	}
	t.Fatalf("no wrapper %q", wrapper)
	return nil, nil
}

// negotiated returns the key exchange of the connection stored under a
// wrapper's ContextKeyConn.
func negotiated(conn any) string {
	if sc, ok := conn.(*gossh.ServerConn); ok {
		if a, ok := sc.Conn.(gossh.AlgorithmsConnMetadata); ok {
			return a.Algorithms().KeyExchange
		}
	}
	return fmt.Sprintf("(no x/crypto connection in the context: %T)", conn)
}
