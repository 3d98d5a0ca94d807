package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// libsshClient runs libssh 0.12's client (scripts/libssh-peer.c, in the
// forky chroot through its wrapper): the host key pinned to hostKey, a
// public-key login with clientKey, the command "kex", and with kex != ""
// only that key exchange offered (libssh's default list otherwise).
func libsshClient(ctx context.Context, t *testing.T, bin string, port int, hostKey, clientKey key, kex string) *exec.Cmd {
	dir := t.TempDir()
	id := writeFile(t, filepath.Join(dir, "id_ed25519"), clientKey.openSSH(t))
	hk := writeFile(t, filepath.Join(dir, "hostkey.pub"), hostKey.authorizedKey())
	args := []string{"client", "-p", strconv.Itoa(port), "-K", hk, "-i", id, "-c", "kex"}
	if kex != "" {
		args = append(args, "-x", kex)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "127.0.0.1")...)
	cmd.Env = append(os.Environ(), "PQKEX_FORKY_BIND="+dir+":"+os.Getenv("PQKEX_FORKY_BIND"))
	return cmd
}

// libsshClientProof matches the client's "libssh-peer: kex: algorithm: NAME".
func libsshClientProof(kex string) func(string) bool {
	return exactLine("libssh-peer: kex: algorithm: " + kex)
}

// libsshServerProof matches the server's per-connection line
// "libssh-peer[PID]: kex: algorithm: NAME" (a whole-name match: the plain
// sntrup name is a prefix of the @openssh.com one).
func libsshServerProof(kex string) func(string) bool {
	return func(l string) bool {
		return strings.HasPrefix(l, "libssh-peer[") && strings.HasSuffix(l, "]: kex: algorithm: "+kex)
	}
}

// libssh 0.12 (Debian forky's 0.12.2) implements all five hybrids, both
// as a server and as a client: the first server on hand with
// mlkem1024nistp384-sha384.
func init() {
	serverPeers = append(serverPeers, serverPeer{
		kind:    "libssh",
		vars:    []string{"PQKEX_LIBSSH_PEER"},
		version: "SSH-2.0-libssh_0.12",
		kexs:    allFive,
		proof:   libsshServerProof,
	})
	clientPeers = append(clientPeers, clientPeer{
		name:    "libssh",
		bin:     "PQKEX_LIBSSH_PEER",
		version: "SSH-2.0-libssh_0.12",
		kexs:    allFive,
		run:     libsshClient,
		proof:   libsshClientProof,
	})
}
