package sshkex

import (
	"crypto"
	"io"
	_ "unsafe" // for go:linkname

	"golang.org/x/crypto/ssh"
)

// x/crypto/ssh keeps its key exchanges in an unexported registry. The
// declarations below mirror, field for field and method for method, the
// unexported types of golang.org/x/crypto/ssh (kex.go, transport.go) that
// the registry's values use. A value stored in the registry through these
// mirrors is called by x/crypto/ssh through its own interface; that works
// only if the mirrors match exactly, which checkMirrors verifies by
// reflection before anything is written.

// packetConn mirrors ssh.packetConn (transport.go).
type packetConn interface {
	writePacket(packet []byte) error
	readPacket() ([]byte, error)
	Close() error
}

// handshakeMagics mirrors ssh.handshakeMagics (kex.go).
type handshakeMagics struct {
	clientVersion, serverVersion []byte
	clientKexInit, serverKexInit []byte
}

// kexResult mirrors ssh.kexResult (kex.go).
type kexResult struct {
	H         []byte
	K         []byte
	HostKey   []byte
	Signature []byte
	Hash      crypto.Hash
	SessionID []byte
}

// kexAlgorithm mirrors ssh.kexAlgorithm (kex.go).
type kexAlgorithm interface {
	Server(p packetConn, rand io.Reader, magics *handshakeMagics, s ssh.AlgorithmSigner, algo string) (*kexResult, error)
	Client(p packetConn, rand io.Reader, magics *handshakeMagics) (*kexResult, error)
}

// The registry and the algorithm lists of x/crypto/ssh (kex.go, common.go).
// They exist under these names from x/crypto v0.39.0 on. go:linkname binds
// a variable by name only and cannot fail: if x/crypto renamed or removed
// one, the variable below would be a fresh zero value of our own, and if
// x/crypto changed its type, it would hold a value of another type.
// checkXCrypto therefore never trusts these declarations: it finds
// x/crypto's own types among the binary's type descriptors and compares
// the variables' contents with x/crypto's exported API before anything is
// written (check.go).

//go:linkname kexAlgoMap golang.org/x/crypto/ssh.kexAlgoMap
var kexAlgoMap map[string]kexAlgorithm

//go:linkname supportedKexAlgos golang.org/x/crypto/ssh.supportedKexAlgos
var supportedKexAlgos []string

//go:linkname defaultKexAlgos golang.org/x/crypto/ssh.defaultKexAlgos
var defaultKexAlgos []string

// The linker removes methods it believes are never called through an
// interface. x/crypto/ssh calls Client and Server through its own
// kexAlgorithm type, which the linker does not connect with ours, so a call
// through the mirror must be reachable in this program: keepMethods is
// never true at run time, but the compiler cannot know that.
var (
	keepMethods bool
	keepKEX     kexAlgorithm = &hybridKEX{}
)

func init() {
	if keepMethods {
		keepKEX.Client(nil, nil, nil)
		keepKEX.Server(nil, nil, nil, nil, "")
	}
}
