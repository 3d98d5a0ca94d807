package conformance

// User authentication as a client, for the case rekey of a server
// (rekey.go): RFC 4252's publickey method with the identity the caller
// gives (ServerOptions.Identity; check -identity), so that check can
// start its re-exchange where servers take one, after user
// authentication. OpenSSH, libssh and tinysshd take no SSH_MSG_KEXINIT
// before it (finding rekey-preauth).
//
// The identity's private key is secret: it signs the one
// SSH_MSG_USERAUTH_REQUEST and appears nowhere else (no Result, error,
// log line or transcript holds it). The request itself, the public key
// blob and the signature over this connection's session identifier, is
// what a transcript records of it: public values.

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pqkex/pqkex/internal/sshwire"
	"golang.org/x/crypto/ssh"
)

// Message numbers of RFC 4252 §6 and RFC 4254 §4 (RFC 4250 §4.1.2).
const (
	msgUserAuthFailure = 51
	msgUserAuthSuccess = 52
	msgUserAuthBanner  = 53
	msgGlobalRequest   = 80
	msgRequestSuccess  = 81
	msgRequestFailure  = 82
)

// maxAuthPackets bounds the packets read while waiting for the answer
// to the authentication request (banners, SSH_MSG_EXT_INFO; the deadline
// bounds the time).
const maxAuthPackets = 16

// authenticate runs user authentication on ss, after its first exchange:
// SSH_MSG_SERVICE_REQUEST "ssh-userauth" (RFC 4253 §10), answered by
// SSH_MSG_SERVICE_ACCEPT past SSH_MSG_EXT_INFO (RFC 8308 §2.4, whose
// server-sig-algs chooses the RSA signature algorithm), then a signed
// publickey SSH_MSG_USERAUTH_REQUEST for ss.user with ss.identity (RFC
// 4252 §7), which must be answered by SSH_MSG_USERAUTH_SUCCESS past
// banners (§5.4) and SSH_MSG_EXT_INFO. Anything else leaves r not run,
// saying why: a server that does not let this identity in has not failed
// the case. On success it returns how check authenticated, for the
// detail.
func authenticate(ss *session, r *Result) (string, bool) {
	notRun := func(format string, args ...any) (string, bool) {
		r.Verdict, r.Detail = NotRun, fmt.Sprintf(format, args...)
		return "", false
	}
	if err := ss.c.write(serviceRequestMsg); err != nil {
		return notRun("sending SSH_MSG_SERVICE_REQUEST: %v", err)
	}
	var sigAlgs []string // server-sig-algs, nil if not sent
	ev := ss.c.next(false)
	for i := 0; ev.kind == evPacket && ev.payload[0] == msgExtInfo && i < maxAuthPackets; i++ {
		if algs, ok := serverSigAlgs(ev.payload); ok {
			sigAlgs = algs
		}
		ev = ss.c.next(false)
	}
	if ev.kind != evPacket || ev.payload[0] != msgServiceAccept {
		return notRun("after the first exchange, our SSH_MSG_SERVICE_REQUEST got %s, not SSH_MSG_SERVICE_ACCEPT (see the honest case)", describe(ev))
	}
	algo := userAuthAlgo(ss.identity.PublicKey().Type(), sigAlgs)
	req, err := publicKeyRequest(ss.identity, algo, ss.user, ss.sessionID)
	if err != nil {
		return notRun("signing the user authentication request with the identity: %v", err)
	}
	who := fmt.Sprintf("as %s with the identity's %s key (%s, %s)", sshwire.Quote(ss.user, 64), ss.identity.PublicKey().Type(), algo,
		ssh.FingerprintSHA256(ss.identity.PublicKey()))
	ss.c.note("user authentication %s", who)
	if err := ss.c.write(req); err != nil {
		return notRun("sending SSH_MSG_USERAUTH_REQUEST: %v", err)
	}
	for range maxAuthPackets {
		ev = ss.c.next(false)
		if ev.kind != evPacket {
			break
		}
		switch ev.payload[0] {
		case msgUserAuthSuccess:
			return who, true
		case msgUserAuthBanner, msgExtInfo:
			continue
		case msgUserAuthFailure:
			methods, partial := parseUserAuthFailure(ev.payload)
			return notRun("the server refused publickey authentication %s (SSH_MSG_USERAUTH_FAILURE: authentications that can continue %s, "+
				"partial success %v): the re-exchange after user authentication could not be checked (give a user and identity the server accepts)",
				who, methods, partial)
		}
		break
	}
	return notRun("our publickey SSH_MSG_USERAUTH_REQUEST %s got %s, not SSH_MSG_USERAUTH_SUCCESS", who, describe(ev))
}

// publicKeyRequest is the publickey SSH_MSG_USERAUTH_REQUEST of RFC 4252
// §7 for user and the connection service, signed by id with algorithm
// algo over
//
//	string session identifier || byte 50 || string user ||
//	string "ssh-connection" || string "publickey" || boolean TRUE ||
//	string algo || string public key blob
//
// and followed by the signature (string algo || string blob).
func publicKeyRequest(id ssh.Signer, algo, user string, sessionID []byte) ([]byte, error) {
	body := sshwire.AppendString([]byte{msgUserAuthRequest}, []byte(user))
	body = sshwire.AppendString(body, []byte("ssh-connection"))
	body = sshwire.AppendString(body, []byte("publickey"))
	body = append(body, 1)
	body = sshwire.AppendString(body, []byte(algo))
	body = sshwire.AppendString(body, id.PublicKey().Marshal())
	signed := append(sshwire.AppendString(nil, sessionID), body...)
	var sig *ssh.Signature
	var err error
	if as, ok := id.(ssh.AlgorithmSigner); ok {
		sig, err = as.SignWithAlgorithm(rand.Reader, signed, algo)
	} else if algo == id.PublicKey().Type() {
		sig, err = id.Sign(rand.Reader, signed)
	} else {
		err = fmt.Errorf("the identity cannot sign with %s", algo)
	}
	if err != nil {
		return nil, err
	}
	return sshwire.AppendString(body, ssh.Marshal(sig)), nil
}

// userAuthAlgo is the public key algorithm to authenticate with a key of
// type keyType: the type itself, but for an RSA key rsa-sha2-512 or
// rsa-sha2-256 (RFC 8332 §3), the first of the two that the server's
// server-sig-algs lists (RFC 8332 §3.3 through RFC 8308 §3.1), or
// rsa-sha2-512 when it sent none (ssh-rsa, SHA-1, is not used).
func userAuthAlgo(keyType string, serverSigAlgs []string) string {
	if keyType != ssh.KeyAlgoRSA {
		return keyType
	}
	for _, a := range []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256} {
		if slices.Contains(serverSigAlgs, a) {
			return a
		}
	}
	return ssh.KeyAlgoRSASHA512
}

// serverSigAlgs is the name-list of the extension server-sig-algs in the
// SSH_MSG_EXT_INFO payload p (RFC 8308 §2.3: uint32 nr-extensions, then
// as many string name, string value), and whether it has one. A payload
// that does not parse has none.
func serverSigAlgs(p []byte) ([]string, bool) {
	if len(p) < 5 || p[0] != msgExtInfo {
		return nil, false
	}
	n, rest := binary.BigEndian.Uint32(p[1:5]), p[5:]
	for i := uint32(0); i < n; i++ {
		name, r, err := sshwire.ReadString(rest, "extension name")
		if err != nil {
			return nil, false
		}
		value, r, err := sshwire.ReadString(r, "extension value")
		if err != nil {
			return nil, false
		}
		rest = r
		if string(name) == "server-sig-algs" {
			return strings.Split(string(value), ","), true
		}
	}
	return nil, false
}

// parseUserAuthFailure reads SSH_MSG_USERAUTH_FAILURE (RFC 4252 §5.1:
// name-list of the methods that can continue, boolean partial success):
// the list escaped, or what is wrong with the message.
func parseUserAuthFailure(p []byte) (methods string, partial bool) {
	list, rest, err := sshwire.ReadString(p[1:], "authentications that can continue")
	if err != nil || len(rest) != 1 {
		if err == nil {
			err = errors.New("no partial success boolean, or bytes after it")
		}
		return "a malformed list: " + sshwire.Printable(err.Error(), 100), false
	}
	return sshwire.Quote(string(list), 200), rest[0] != 0
}

// keepaliveRequest is SSH_MSG_GLOBAL_REQUEST "keepalive@openssh.com"
// with want reply TRUE (RFC 4254 §4): a server answers a request it does
// not know with SSH_MSG_REQUEST_FAILURE, OpenSSH's clients send it so.
var keepaliveRequest = append(sshwire.AppendString([]byte{msgGlobalRequest}, []byte("keepalive@openssh.com")), 1)

// globalRequestWantsReply reports whether the SSH_MSG_GLOBAL_REQUEST p
// asks for an answer (string request name, boolean want reply; RFC 4254
// §4).
func globalRequestWantsReply(p []byte) bool {
	_, rest, err := sshwire.ReadString(p[1:], "request name")
	return err == nil && len(rest) > 0 && rest[0] != 0
}
