// Package sshkex plugs pqkex's post-quantum hybrid key exchanges into
// golang.org/x/crypto/ssh:
//
//	mlkem768x25519-sha256               (RFC 10042; replaces x/crypto's own, faster)
//	sntrup761x25519-sha512              (RFC 9941; x/crypto has none)
//	sntrup761x25519-sha512@openssh.com  (the same method under OpenSSH's older name)
//
// Call Register once, before the first handshake:
//
//	if err := sshkex.Register(); err != nil {
//		log.Fatal(err) // x/crypto/ssh was left untouched
//	}
//	cfg := &ssh.ClientConfig{ /* KeyExchanges left empty: PQ-first defaults */ }
//
// # How it works, and why it is safe
//
// x/crypto/ssh has no public hook for key exchanges: it keeps them in an
// unexported map. sshkex reaches that map with go:linkname and stores
// values whose types mirror x/crypto's unexported kexAlgorithm, kexResult,
// handshakeMagics and packetConn. Before writing anything, Register compares
// the mirrors with the types of x/crypto's own registered key exchanges by
// reflection (method names and signatures, struct field names, types,
// offsets and sizes). Any difference makes Register return an error naming
// it, and x/crypto/ssh keeps working exactly as before. x/crypto versions
// from v0.39.0 on are supported and tested; an x/crypto without the
// registry variables fails to link rather than misbehave at run time.
//
// # Defaults
//
// After Register, a Config whose KeyExchanges is empty negotiates
// mlkem768x25519-sha256, sntrup761x25519-sha512,
// sntrup761x25519-sha512@openssh.com, then x/crypto's classical defaults:
// the order of OpenSSH 10. Advertising both sntrup761 names keeps post-quantum
// protection with OpenSSH 9.0–9.8, which only know the @openssh.com name.
// RecommendedKeyExchanges returns that list for explicit configurations;
// Options.KeepDefaults leaves x/crypto's default list alone.
package sshkex

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

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
)

// postQuantum is the PQ part of the recommended order (OpenSSH 10).
var postQuantum = []string{KeyExchangeMLKEM768X25519, KeyExchangeSNTRUP761X25519, KeyExchangeSNTRUP761X25519OpenSSH}

// Options adjusts what Register changes in x/crypto/ssh.
type Options struct {
	// KeepBuiltinMLKEM leaves x/crypto's own mlkem768x25519-sha256 in
	// place instead of pqkex's (which is byte-compatible and faster).
	KeepBuiltinMLKEM bool
	// KeepDefaults leaves x/crypto's default key exchange list (used when
	// a Config's KeyExchanges is empty) unchanged; the sntrup761 methods
	// are then negotiated only if listed explicitly.
	KeepDefaults bool
}

var (
	regMu   sync.Mutex
	regDone bool
	regOpts Options
)

// Register installs pqkex's key exchanges in x/crypto/ssh with the default
// Options. See RegisterWith.
func Register() error { return RegisterWith(Options{}) }

// RegisterWith installs pqkex's key exchanges in x/crypto/ssh. It must
// complete before any x/crypto/ssh handshake starts in the process:
// x/crypto reads its registry without locking.
//
// It first verifies that sshkex's mirrors of x/crypto's internal types
// match exactly; if not, it returns an error naming the difference and
// changes nothing. It registers all methods or none. Calling it again with
// the same options is a no-op; with different options it returns an error.
// It is safe to call from several goroutines.
//
// In FIPS 140 mode it returns an error and changes nothing: sntrup761 and
// X25519 are not FIPS 140 approved.
func RegisterWith(opts Options) error { return registerWith(opts, ourMirrors) }

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
	if fips140.Enabled() {
		return errors.New("sshkex: FIPS 140 mode is enabled; sntrup761x25519 and X25519 are not approved, nothing registered")
	}
	if err := checkMirrors(mirrors, kexAlgoMap); err != nil {
		return fmt.Errorf("sshkex: x/crypto/ssh internals differ from what sshkex expects, nothing registered: %w", err)
	}

	// From here on nothing can fail.
	sntrup := &hybridKEX{sntrupMethod}
	kexAlgoMap[KeyExchangeSNTRUP761X25519] = sntrup
	kexAlgoMap[KeyExchangeSNTRUP761X25519OpenSSH] = sntrup
	if !opts.KeepBuiltinMLKEM {
		kexAlgoMap[KeyExchangeMLKEM768X25519] = &hybridKEX{mlkemMethod}
	}
	supportedKexAlgos = withPQFirst(supportedKexAlgos)
	if !opts.KeepDefaults {
		defaultKexAlgos = withPQFirst(defaultKexAlgos)
	}
	regDone, regOpts = true, opts
	return nil
}

// withPQFirst returns list with the post-quantum names first, in the
// recommended order, followed by the list's other names in their order.
func withPQFirst(list []string) []string {
	out := slices.Clone(postQuantum)
	for _, name := range list {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// RecommendedKeyExchanges returns the key exchange list Register makes the
// default: the three post-quantum names in OpenSSH 10's order, then
// x/crypto/ssh's classical defaults. Use it for a Config that sets
// KeyExchanges explicitly; names x/crypto does not know (for example
// before Register) are ignored by x/crypto.
func RecommendedKeyExchanges() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var classical []string
	for _, name := range defaultKexAlgos {
		if !slices.Contains(postQuantum, name) {
			classical = append(classical, name)
		}
	}
	return append(slices.Clone(postQuantum), classical...)
}

var (
	mlkemMethod = &method{
		name: KeyExchangeMLKEM768X25519,
		hash: mlkem768x25519.Hash,
		newClient: func(rand io.Reader) (client, error) {
			return mlkem768x25519.NewClient(rand)
		},
		respond: mlkem768x25519.Respond,
	}
	sntrupMethod = &method{
		name: KeyExchangeSNTRUP761X25519,
		hash: sntrup761x25519.Hash,
		newClient: func(rand io.Reader) (client, error) {
			if pool := keyPool.Load(); pool != nil {
				dk, err := pool.Get()
				if err != nil {
					return nil, err
				}
				return sntrup761x25519.NewClientWithKey(dk, rand)
			}
			return sntrup761x25519.NewClient(rand)
		},
		respond: sntrup761x25519.Respond,
	}
)

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

var _ = ssh.KeyExchangeCurve25519
