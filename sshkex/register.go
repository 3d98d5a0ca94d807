package sshkex

import (
	"crypto/fips140"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761x25519"
	"golang.org/x/crypto/ssh"
)

// Names of the key exchanges sshkex registers.
const (
	KeyExchangeMLKEM768X25519         = mlkem768x25519.Name       // "mlkem768x25519-sha256"
	KeyExchangeSNTRUP761X25519        = sntrup761x25519.Name      // "sntrup761x25519-sha512"
	KeyExchangeSNTRUP761X25519OpenSSH = sntrup761x25519.AliasName // "sntrup761x25519-sha512@openssh.com"
	KeyExchangeMLKEM768NISTP256       = mlkem768nistp256.Name     // "mlkem768nistp256-sha256"
	KeyExchangeMLKEM1024NISTP384      = mlkem1024nistp384.Name    // "mlkem1024nistp384-sha384"
)

// The post-quantum part of the recommended order, outside and in FIPS
// 140-3 mode (docs/usage.md, "The default order", says why).
var (
	postQuantumAll = []string{
		KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH,
		KeyExchangeMLKEM768NISTP256, KeyExchangeMLKEM1024NISTP384,
	}
	postQuantumFIPS = []string{KeyExchangeMLKEM768NISTP256, KeyExchangeMLKEM1024NISTP384}
)

// postQuantum returns the post-quantum names for the process's mode.
func postQuantum() []string {
	if fips140.Enabled() {
		return postQuantumFIPS
	}
	return postQuantumAll
}

// Options adjusts what Register changes in x/crypto/ssh.
type Options struct {
	// KeepBuiltinMLKEM leaves x/crypto's own mlkem768x25519-sha256 in
	// place instead of pqkex's (which is byte-compatible and faster).
	KeepBuiltinMLKEM bool
	// KeepDefaults leaves x/crypto's default key exchange list (used when
	// a Config's KeyExchanges is empty) unchanged; pqkex's methods other
	// than mlkem768x25519-sha256 are then negotiated only if listed
	// explicitly.
	KeepDefaults bool
	// RequireVerifiedXCrypto makes Register refuse any x/crypto that is not
	// a release in the range CI verified this sshkex against (a newer
	// release, a pre-release, a pseudo-version, a copy go.mod replaces by a
	// directory), however the self-test goes. Without it such an x/crypto
	// is accepted when the structural checks and the self-test pass. A
	// vendor directory counts as the release it was vendored from: like
	// every verified release it must still pass the checks and the
	// self-test, which refuse it if it was edited in a way they see.
	RequireVerifiedXCrypto bool
}

// Registration says what a successful Register did.
type Registration struct {
	// XCrypto names the golang.org/x/crypto the binary was built with, as
	// its build information records it, for example
	// "golang.org/x/crypto v0.59.0" or
	// "golang.org/x/crypto replaced by ../crypto".
	XCrypto string
	// Verified reports whether XCrypto is a release in the range CI
	// verified this sshkex against (VerifiedXCrypto). When false, that
	// x/crypto was accepted on the evidence of the structural checks and
	// the self-test alone.
	Verified bool
	// KeyExchanges lists the names registered, in the recommended order.
	KeyExchanges []string
	// SelfTest is how long the registration self-test took.
	SelfTest time.Duration
}

// VerifiedXCrypto names the golang.org/x/crypto releases CI verified this
// sshkex against, every one of them: "golang.org/x/crypto v0.52.0 to
// v0.59.0".
const VerifiedXCrypto = supportedXCrypto

var (
	regMu   sync.Mutex
	regDone bool
	regOpts Options
	regInfo Registration
)

// Register installs pqkex's key exchanges in x/crypto/ssh with the default
// Options. See RegisterWith.
func Register() error { return RegisterWith(Options{}) }

// RegisterWith installs pqkex's key exchanges in x/crypto/ssh.
//
// Call it, and let it return, before anything in the process starts an
// x/crypto/ssh handshake (in main, or an init function): x/crypto reads
// its registry and default lists without synchronisation, so a handshake
// running during Register can read a torn default list (a slice whose
// length is written before its data pointer) and fail, misbehave, or
// crash the process (reading past the end of the list's array).
//
// It returns nil only after the structural checks and the self-test in the
// package documentation pass; otherwise it returns an error naming the
// first failure and changes nothing. It registers all methods or none.
// Calling it again with the same options is a no-op; with different options
// it returns an error. Concurrent calls are serialised.
//
// In FIPS 140-3 mode it registers only mlkem768nistp256-sha256 and
// mlkem1024nistp384-sha384 (sntrup761 and X25519 are not approved), and
// KeepBuiltinMLKEM has no effect.
func RegisterWith(opts Options) error { return registerWith(opts, ourMirrors) }

// Registered reports what the successful Register or RegisterWith call
// did; ok is false if none succeeded.
func Registered() (r Registration, ok bool) {
	regMu.Lock()
	defer regMu.Unlock()
	r = regInfo
	r.KeyExchanges = slices.Clone(r.KeyExchanges)
	return r, regDone
}

// registerWith is RegisterWith with the mirrors to verify as a parameter,
// so tests can show that a wrong mirror is refused.
func registerWith(opts Options, mirrors mirrorTypes) error {
	regMu.Lock()
	defer regMu.Unlock()
	if regDone {
		if opts != regOpts {
			return fmt.Errorf("sshkex: already registered with options %+v", regOpts)
		}
		return nil
	}
	version, how := xcryptoModule()
	verified := isVerified(version)
	if belowFloor(version) {
		return fmt.Errorf("sshkex: nothing registered: %s is older than %s, the first release without known vulnerabilities in x/crypto/ssh", how, verifiedOldest)
	}
	if opts.RequireVerifiedXCrypto && !verified {
		return fmt.Errorf("sshkex: nothing registered: %s is not a release this sshkex was verified against (%s), and Options.RequireVerifiedXCrypto is set", how, supportedXCrypto)
	}
	if err := checkXCrypto(mirrors); err != nil {
		return fmt.Errorf("sshkex: x/crypto/ssh internals differ from what sshkex expects (%s; verified: %s), nothing registered: %w", how, supportedXCrypto, err)
	}

	// The distinct methods about to be registered (the alias shares
	// sntrupMethod's value).
	methods := []*method{nistp256Method, nistp384Method}
	if !fips140.Enabled() {
		methods = append(methods, sntrupMethod)
		if !opts.KeepBuiltinMLKEM {
			methods = append(methods, mlkemMethod)
		}
	}
	start := time.Now()
	if err := selfTest(methods); err != nil {
		return fmt.Errorf("sshkex: nothing registered: %s failed the registration self-test: %w", how, err)
	}
	selfTestTime := time.Since(start)

	// The registry is replaced, not written in place: a new map with
	// x/crypto's entries and ours, stored into the variable with one
	// pointer-sized write. This does not make a handshake running during
	// Register safe (the default lists below are slices, written field by
	// field), but it keeps such misuse from a fatal concurrent map write.
	old := kexAlgoMap
	next := maps.Clone(old)
	for _, m := range methods {
		next[m.name] = &hybridKEX{m: m}
	}
	if !fips140.Enabled() {
		next[KeyExchangeSNTRUP761X25519OpenSSH] = next[KeyExchangeSNTRUP761X25519]
	}
	oldSupported, oldDefaults := supportedKexAlgos, defaultKexAlgos
	kexAlgoMap = next
	supportedKexAlgos = withPQFirst(supportedKexAlgos)
	if !opts.KeepDefaults {
		defaultKexAlgos = recommended(defaultKexAlgos)
	}
	// Confirm through x/crypto's exported, typed API that it now sees what
	// was written; undo everything if not.
	if err := confirmRegistered(opts); err != nil {
		kexAlgoMap, supportedKexAlgos, defaultKexAlgos = old, oldSupported, oldDefaults
		return fmt.Errorf("sshkex: x/crypto/ssh did not take the registration, undone: %w", err)
	}
	regDone, regOpts = true, opts
	regInfo = Registration{
		XCrypto:      how,
		Verified:     verified,
		KeyExchanges: slices.Clone(postQuantum()),
		SelfTest:     selfTestTime,
	}
	if opts.KeepBuiltinMLKEM {
		regInfo.KeyExchanges = slices.DeleteFunc(regInfo.KeyExchanges, func(n string) bool { return n == KeyExchangeMLKEM768X25519 })
	}
	return nil
}

// confirmRegistered checks, through x/crypto/ssh's exported API only, that
// it knows and offers the registered names.
func confirmRegistered(opts Options) error {
	supported := ssh.SupportedAlgorithms().KeyExchanges
	cfg := ssh.Config{KeyExchanges: postQuantum()}
	cfg.SetDefaults() // keeps the names x/crypto's registry has
	var defaults ssh.Config
	defaults.SetDefaults()
	for _, name := range postQuantum() {
		if !slices.Contains(supported, name) {
			return fmt.Errorf("ssh.SupportedAlgorithms does not list %s", name)
		}
		if !slices.Contains(cfg.KeyExchanges, name) {
			return fmt.Errorf("x/crypto/ssh's registry does not find %s", name)
		}
		if !opts.KeepDefaults && !slices.Contains(defaults.KeyExchanges, name) {
			return fmt.Errorf("x/crypto/ssh's defaults do not list %s", name)
		}
	}
	return nil
}

// withPQFirst returns list with the post-quantum names first, in the
// recommended order, followed by the list's other names in their order.
func withPQFirst(list []string) []string {
	out := slices.Clone(postQuantum())
	for _, name := range list {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// recommended returns the recommended default list built on x/crypto's
// defaults: withPQFirst, without the methods x/crypto marks insecure
// (ssh.InsecureAlgorithms: the SHA-1 ones, which x/crypto v0.57.0's
// defaults still end with diffie-hellman-group14-sha1 of), as OpenSSH's
// client default list has none; in FIPS 140-3 mode also without
// unapproved names.
func recommended(defaults []string) []string {
	out := withPQFirst(defaults)
	insecure := ssh.InsecureAlgorithms().KeyExchanges
	out = slices.DeleteFunc(out, func(name string) bool { return slices.Contains(insecure, name) })
	if fips140.Enabled() {
		out = slices.DeleteFunc(out, func(name string) bool { return !sshwire.FIPSApprovedKEX(name) })
	}
	return out
}

// RecommendedKeyExchanges returns the key exchange list Register makes the
// default, shaped like OpenSSH's client default: the post-quantum names in
// the order the package documentation gives, then x/crypto/ssh's classical
// defaults less the SHA-1 methods x/crypto marks insecure (no
// diffie-hellman-group14-sha1; in FIPS 140-3 mode: the two NIST hybrids,
// then x/crypto's approved defaults). Use it for a Config that sets
// KeyExchanges explicitly; names x/crypto does not know (for example
// before Register) are ignored by x/crypto. A client that must still reach
// a server offering nothing better appends
// ssh.InsecureKeyExchangeDH14SHA1 to it in that Config.
func RecommendedKeyExchanges() []string {
	regMu.Lock()
	defer regMu.Unlock()
	return recommended(defaultKexAlgos)
}

// The methods, built from their packages' exported API.
var (
	nistp256Method = newMethod(mlkem768nistp256.Name, mlkem768nistp256.Hash, mlkem768nistp256.NewClient, mlkem768nistp256.Respond)
	nistp384Method = newMethod(mlkem1024nistp384.Name, mlkem1024nistp384.Hash, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond)
	mlkemMethod    = newMethod(mlkem768x25519.Name, mlkem768x25519.Hash, mlkem768x25519.NewClient, mlkem768x25519.Respond)
	sntrupMethod   = newMethod(sntrup761x25519.Name, sntrup761x25519.Hash, newSNTRUPClient, sntrup761x25519.Respond)
)

// newSNTRUPClient is sntrup761x25519.NewClient, with the key from the
// KeyPool set by SetKeyPool if there is one.
func newSNTRUPClient(rand io.Reader) (*sntrup761x25519.Client, error) {
	if pool := keyPool.Load(); pool != nil {
		dk, err := pool.Get()
		if err != nil {
			return nil, err
		}
		return sntrup761x25519.NewClientWithKey(dk, rand)
	}
	return sntrup761x25519.NewClient(rand)
}

var keyPool atomic.Pointer[sntrup761.KeyPool]

// SetKeyPool makes the client side of sntrup761x25519 take its sntrup761
// keys from pool instead of generating one per key exchange; nil restores
// the default. A pool generates keys in batches at a fraction of the cost
// of single keys (see sntrup761.KeyPool): worth it for programs that open
// many connections. Each key is used for one key exchange only, as with
// fresh keys. Keys from the pool do not come from x/crypto's Config.Rand.
// While a closed pool is set, those key exchanges fail with an error:
// call SetKeyPool(nil) before closing the pool.
func SetKeyPool(pool *sntrup761.KeyPool) { keyPool.Store(pool) }
