package conformance

// Leading zero bytes of the two shared secrets. K hashes K_PQ and K_CL as
// fixed-length byte strings (RFC 10042 §2.4: "encoded as fixed-length
// byte arrays, not as integers"; RFC 9941 §3 likewise for the 32-byte
// sntrup761 key and X25519 result): a peer that drops their leading zero
// bytes, as the mpint of the classical methods does, computes another K
// once in 256 exchanges per part. As a server check chooses its own
// values, so it draws them until a part starts with zero bytes; as a
// client it can only count what the server's values give (the soak), or
// choose its X25519 / ECDH key against a server key that comes back.
//
// Every value here is check's own throwaway secret of one exchange: the
// grinding branches on it (how many leading zero bytes it has), which is
// no leak that matters, since check keeps nothing from the exchange and
// the result says what was drawn for anyway.

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pqkex/pqkex/sntrup761"
)

// leadingZeros is the number of zero bytes b starts with. It branches on
// b, which is only ever check's own secret of a throwaway exchange.
func leadingZeros(b []byte) int {
	for i, x := range b {
		if x != 0 {
			return i
		}
	}
	return len(b)
}

// grindBound is how many draws a search for n leading zero bytes makes
// before it gives up: 32·256^n, so that honest draws all miss with
// probability (1 - 256^-n)^(32·256^n) < e^-32.
func grindBound(n int) int { return 32 << (8 * n) }

// errCannotRun marks an error of check's own (not the peer's) that keeps
// a case from running: its result is NotRun, not a failure of the peer.
var errCannotRun = errors.New("the case cannot run")

// zerosWant says what the shared secrets of an answer must start with.
type zerosWant struct{ pq, cl int }

func (z zerosWant) String() string {
	switch {
	case z.pq > 0 && z.cl > 0:
		return fmt.Sprintf("K_PQ starts with %d and K_CL with %d zero bytes", z.pq, z.cl)
	case z.pq > 0:
		return fmt.Sprintf("K_PQ starts with %s", zeroBytes(z.pq))
	case z.cl > 0:
		return fmt.Sprintf("K_CL starts with %s", zeroBytes(z.cl))
	}
	return "any shared secrets"
}

// zeroBytes is "00", "00 00", ...
func zeroBytes(n int) string {
	s := "00"
	for range n - 1 {
		s += " 00"
	}
	return s
}

// encapsulate runs m's KEM encapsulation to ek (already checked), drawing
// until K_PQ starts with zeros zero bytes (0: the first draw). For
// ML-KEM the draws are cheap: K_PQ is the first half of G(m ‖ H(ek))
// (FIPS 203 Algorithm 17, G = SHA3-512, H = SHA3-256), so each try is one
// SHA3-512 of a fresh 32-byte m from crypto/rand, and only the m that
// gives the zeros is encapsulated, with crypto/mlkem/mlkemtest's
// derandomized encapsulation (which FIPS 140-3 mode refuses); the K_PQ it
// returns is compared with the one drawn. sntrup761's K_PQ hashes the
// whole ciphertext, so each try is a whole encapsulation.
func (m *method) encapsulate(ek []byte, zeros int) (kPQ, ct []byte, err error) {
	switch m.kem {
	case "ML-KEM-768":
		k, err := mlkem.NewEncapsulationKey768(ek)
		if err != nil {
			return nil, nil, err
		}
		if zeros == 0 {
			kPQ, ct = k.Encapsulate()
			return kPQ, ct, nil
		}
		return grindMLKEM(ek, zeros, func(msg []byte) ([]byte, []byte, error) { return mlkemtest.Encapsulate768(k, msg) })
	case "ML-KEM-1024":
		k, err := mlkem.NewEncapsulationKey1024(ek)
		if err != nil {
			return nil, nil, err
		}
		if zeros == 0 {
			kPQ, ct = k.Encapsulate()
			return kPQ, ct, nil
		}
		return grindMLKEM(ek, zeros, func(msg []byte) ([]byte, []byte, error) { return mlkemtest.Encapsulate1024(k, msg) })
	case "sntrup761":
		k, err := sntrup761.NewEncapsulationKey(ek)
		if err != nil {
			return nil, nil, err
		}
		for range grindBound(zeros) {
			kPQ, ct = k.Encapsulate()
			if leadingZeros(kPQ) >= zeros {
				return kPQ, ct, nil
			}
			clear(kPQ)
		}
		return nil, nil, fmt.Errorf("%w: no sntrup761 encapsulation in %d gave a K_PQ starting with %s (each does with probability 256^-%d)",
			errCannotRun, grindBound(zeros), zeroBytes(zeros), zeros)
	}
	return nil, nil, errors.New("unknown KEM " + m.kem)
}

// grindMLKEM draws 32-byte messages m until the K_PQ of encapsulating m
// to ek starts with zeros zero bytes, and encapsulates that one with
// encaps (derandomized).
func grindMLKEM(ek []byte, zeros int, encaps func(msg []byte) (kPQ, ct []byte, err error)) ([]byte, []byte, error) {
	hek := sha3.Sum256(ek)
	in := make([]byte, 64) // m ‖ H(ek)
	copy(in[32:], hek[:])
	defer clear(in)
	// m is 24 random bytes and a counter: each m tried is as
	// unpredictable as a fresh one, at one read of crypto/rand in all.
	if _, err := rand.Read(in[:24]); err != nil {
		return nil, nil, err
	}
	for i := range grindBound(zeros) {
		binary.BigEndian.PutUint64(in[24:32], uint64(i))
		g := sha3.Sum512(in)
		ok := leadingZeros(g[:32]) >= zeros
		want := g[:32:32]
		if !ok {
			clear(g[:])
			continue
		}
		kPQ, ct, err := encaps(in[:32])
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", errCannotRun, err)
		}
		same := string(kPQ) == string(want)
		clear(g[:])
		if !same {
			return nil, nil, fmt.Errorf("%w: the derandomized ML-KEM encapsulation gave another K_PQ than G(m ‖ H(ek)) (FIPS 203 Algorithm 17)", errCannotRun)
		}
		return kPQ, ct, nil
	}
	return nil, nil, fmt.Errorf("%w: no ML-KEM message in %d gave a K_PQ starting with %s", errCannotRun, grindBound(zeros), zeroBytes(zeros))
}

// classicalWith returns a private key on curve whose shared secret with
// peer starts with zeros zero bytes (0: the first one drawn), and that
// secret. It walks (walk.go), and draws key pairs when a walk meets what
// its formulas do not cover.
func classicalWith(curve ecdh.Curve, peer *ecdh.PublicKey, zeros int) (*ecdh.PrivateKey, []byte, error) {
	if zeros > 0 {
		var priv *ecdh.PrivateKey
		var kCL []byte
		var err error
		switch curve {
		case ecdh.X25519():
			priv, kCL, err = walkX25519Secret(peer, zeros, grindBound(zeros))
		case ecdh.P256():
			priv, kCL, err = walkNISTSecret(curve, elliptic.P256(), peer, zeros, grindBound(zeros))
		case ecdh.P384():
			priv, kCL, err = walkNISTSecret(curve, elliptic.P384(), peer, zeros, grindBound(zeros))
		default:
			err = errWalk
		}
		switch {
		case err == nil:
			return priv, kCL, nil
		case errors.Is(err, errCannotRun):
			return nil, nil, fmt.Errorf("%w: no %v key in %d gave a shared secret starting with %s (each does with probability 256^-%d)",
				errCannotRun, curve, grindBound(zeros), zeroBytes(zeros), zeros)
		case !errors.Is(err, errWalk):
			return nil, nil, err
		}
	}
	return drawClassical(curve, peer, zeros)
}

// drawClassical draws key pairs on curve until the shared secret with
// peer starts with zeros zero bytes.
func drawClassical(curve ecdh.Curve, peer *ecdh.PublicKey, zeros int) (*ecdh.PrivateKey, []byte, error) {
	for range grindBound(zeros) {
		priv, err := curve.GenerateKey(nil)
		if err != nil {
			return nil, nil, err
		}
		kCL, err := priv.ECDH(peer)
		if err != nil {
			return nil, nil, err
		}
		if leadingZeros(kCL) >= zeros {
			return priv, kCL, nil
		}
		clear(kCL)
	}
	return nil, nil, fmt.Errorf("%w: no %v key pair in %d gave a shared secret starting with %s (each does with probability 256^-%d)",
		errCannotRun, curve, grindBound(zeros), zeroBytes(zeros), zeros)
}

// keyWhosePublic returns a key pair on m's curve whose public key, as
// sent, want accepts (at most grindBound(1) tries: want is expected to
// hold of about one key in 256). It walks, and draws key pairs when a
// walk meets what its formulas do not cover.
func (m *method) keyWhosePublic(want func(pub []byte) bool) (*ecdh.PrivateKey, error) {
	var priv *ecdh.PrivateKey
	var err error
	switch m.curve {
	case "X25519":
		priv, err = walkX25519Public(want, grindBound(1))
	default:
		priv, err = walkNISTPublic(m.ecdhCurve(), m.ellipticCurve(), want, grindBound(1))
	}
	if err == nil || !errors.Is(err, errWalk) {
		if errors.Is(err, errCannotRun) {
			err = fmt.Errorf("%w: no %s key pair as wanted in %d", errCannotRun, m.curve, grindBound(1))
		}
		return priv, err
	}
	for range grindBound(1) {
		priv, err := m.ecdhCurve().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		if want(priv.PublicKey().Bytes()) {
			return priv, nil
		}
	}
	return nil, fmt.Errorf("%w: no %s key pair as wanted in %d", errCannotRun, m.curve, grindBound(1))
}
