package examples

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/peertest"
)

// TestSFTPWithSSHD runs the pkg/sftp example (sshkex.Register, then
// pkg/sftp over x/crypto as usual) against OpenSSH 9.2's sshd and its
// internal-sftp subsystem: upload, stat, download. The negotiated method
// is read from sshd's own log ("debug1: kex: algorithm: NAME [preauth]").
func TestSFTPWithSSHD(t *testing.T) {
	for _, tc := range []struct {
		name, kex, want string
	}{
		// Upstream OpenSSH 9.0-9.8 know sntrup761 by its @openssh.com
		// name only.
		{"openssh92 offering upstream 9.0-9.8's defaults", upstream9Kex, sntrupAlias},
		{"openssh92 default", "", sntrup},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needPeer(t, "PQKEX_OPENSSH92_SSHD")
			sshd := startLoginSSHD(t, "openssh92", tc.kex)
			dir := sshd.Dir

			data := make([]byte, 100_000)
			rand.Read(data)
			local := filepath.Join(dir, "upload.bin")
			if err := os.WriteFile(local, data, 0o600); err != nil {
				t.Fatal(err)
			}
			remote := filepath.Join(dir, "remote", "file.bin") // sshd runs as root on this machine
			if err := os.Mkdir(filepath.Dir(remote), 0o700); err != nil {
				t.Fatal(err)
			}
			out := sshd.login(t, "sftp", "-addr", sshd.Addr, local, remote)
			want := fmt.Sprintf("uploaded %d bytes\nstat %s: %d bytes, -rw-r--r--\ndownloaded %d bytes, same: true\n", len(data), remote, len(data), len(data))
			if string(out) != want {
				t.Errorf("sftp printed\n%s\nwant\n%s", out, want)
			}
			// The file the server wrote is the one uploaded.
			if got, err := os.ReadFile(remote); err != nil || !bytes.Equal(got, data) {
				t.Errorf("the server's copy differs from the upload (%v)", err)
			}
			proof := sshdKexProof(t, sshd.Log, 1, tc.want)
			if _, err := peertest.WaitLogLine(sshd.Log, func(l string) bool { return strings.HasPrefix(l, "Starting session: subsystem 'sftp' for root") }); err != nil {
				t.Fatal(err)
			}
			t.Logf("TABLE | pkg/sftp v1.13.12 | openssh92 sftp | %s | %s |", offerName(tc.kex), tc.want)
			t.Logf("sshd: %q", proof)
		})
	}
}
