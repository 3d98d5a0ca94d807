package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/pqkex/pqkex/internal/sshwire"
	"golang.org/x/crypto/ssh"
)

// TestUserAuthAlgo: an RSA identity signs with the first of rsa-sha2-512
// and rsa-sha2-256 that server-sig-algs lists (RFC 8332 §3.3), with
// rsa-sha2-512 when there is no list, never ssh-rsa; other keys with
// their type.
func TestUserAuthAlgo(t *testing.T) {
	for _, c := range []struct {
		keyType string
		sigAlgs []string
		want    string
	}{
		{ssh.KeyAlgoRSA, nil, ssh.KeyAlgoRSASHA512},
		{ssh.KeyAlgoRSA, []string{ssh.KeyAlgoRSA}, ssh.KeyAlgoRSASHA512},
		{ssh.KeyAlgoRSA, []string{ssh.KeyAlgoED25519, ssh.KeyAlgoRSASHA256}, ssh.KeyAlgoRSASHA256},
		{ssh.KeyAlgoRSA, []string{ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSASHA512}, ssh.KeyAlgoRSASHA512},
		{ssh.KeyAlgoED25519, []string{ssh.KeyAlgoRSASHA256}, ssh.KeyAlgoED25519},
		{ssh.KeyAlgoECDSA256, nil, ssh.KeyAlgoECDSA256},
	} {
		if got := userAuthAlgo(c.keyType, c.sigAlgs); got != c.want {
			t.Errorf("userAuthAlgo(%s, %q) = %s, want %s", c.keyType, c.sigAlgs, got, c.want)
		}
	}
}

// TestUserAuthParsersBounded: the parsers of what a server sends around
// user authentication take any bytes without panicking, and read the
// well-formed messages right: SSH_MSG_EXT_INFO's server-sig-algs,
// SSH_MSG_USERAUTH_FAILURE, a global request's want reply and the
// answers to ours.
func TestUserAuthParsersBounded(t *testing.T) {
	ext := []byte{msgExtInfo, 0, 0, 0, 2}
	ext = sshwire.AppendString(sshwire.AppendString(ext, []byte("delay-compression")), []byte("x"))
	ext = sshwire.AppendString(sshwire.AppendString(ext, []byte("server-sig-algs")), []byte("ssh-ed25519,rsa-sha2-256"))
	if algs, ok := serverSigAlgs(ext); !ok || !slices.Equal(algs, []string{"ssh-ed25519", "rsa-sha2-256"}) {
		t.Errorf("server-sig-algs: %q, %v", algs, ok)
	}
	failure := append(sshwire.AppendString([]byte{msgUserAuthFailure}, []byte("publickey,password")), 1)
	if methods, partial := parseUserAuthFailure(failure); methods != `"publickey,password"` || !partial {
		t.Errorf("SSH_MSG_USERAUTH_FAILURE: %s, %v", methods, partial)
	}
	if !globalRequestWantsReply(keepaliveRequest) || globalRequestWantsReply(keepaliveRequest[:len(keepaliveRequest)-1]) {
		t.Error("keepaliveRequest's want reply misread")
	}
	for p, want := range map[string]string{
		string([]byte{msgRequestSuccess}):            "SSH_MSG_REQUEST_SUCCESS",
		string([]byte{msgRequestFailure}):            "SSH_MSG_REQUEST_FAILURE",
		string([]byte{msgUnimplemented, 0, 0, 0, 7}): "naming its sequence number, 7",
		string([]byte{msgUnimplemented, 0, 0, 0, 8}): "naming sequence number 8, not the request's, 7",
		string([]byte{msgUnimplemented, 0, 0, 7}):    "",
		string([]byte{msgGlobalRequest}):             "",
	} {
		if got := keepaliveAnswer([]byte(p), 7); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("keepaliveAnswer(%x) = %q, want %q", p, got, want)
		}
	}
	// Every prefix of each, and each with bytes appended: no panic, and
	// a truncated EXT_INFO has no list.
	for _, msg := range [][]byte{ext, failure, keepaliveRequest} {
		for i := 1; i <= len(msg); i++ {
			p := msg[:i]
			if algs, ok := serverSigAlgs(p); ok && i < len(msg) && p[0] == msgExtInfo {
				t.Errorf("server-sig-algs %q from %d of %d bytes", algs, i, len(msg))
			}
			parseUserAuthFailure(p)
			globalRequestWantsReply(p)
			keepaliveAnswer(p, 0)
			parseUserAuthFailure(append(slices.Clone(p), 0xff, 0xff))
		}
	}
	if _, ok := serverSigAlgs([]byte{msgExtInfo, 0xff, 0xff, 0xff, 0xff}); ok {
		t.Error("an EXT_INFO of 2^32-1 extensions and no bytes has a list")
	}
}
