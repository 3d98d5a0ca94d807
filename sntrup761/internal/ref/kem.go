package ref

import (
	"crypto/sha512"
	"encoding/binary"
	"io"
)

// Sizes of the KEM's byte strings (section 3.5).
const (
	PublicKeySize  = RqBytes                                  // 1158
	SecretKeySize  = 2*SmallBytes + RqBytes + SmallBytes + 32 // 1763
	CiphertextSize = RoundedBytes + 32                        // 1039
	SharedKeySize  = 32
	InputsBytes    = SmallBytes // r_enc and rho
	RandomBytes    = 4 * P      // one 761-entry array of uint32
)

// Hash prefixes (section 3.5 / the "Hash_prefix" byte of the reference code).
const (
	prefixRejected = 0 // session key on implicit rejection
	prefixSession  = 1 // session key
	prefixConfirm  = 2 // plaintext confirmation
	prefixInput    = 3 // hash of the encoded input r
	prefixCache    = 4 // hash of the public key, cached in the secret key
)

// HashPrefix returns the first 32 bytes of SHA-512(b || in).
func HashPrefix(b byte, in ...[]byte) [32]byte {
	h := sha512.New()
	h.Write([]byte{b})
	for _, x := range in {
		h.Write(x)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// SortUint32 sorts x in place with Batcher's merge-exchange network (Knuth,
// TAOCP vol. 3, Algorithm 5.2.2M). Which pairs are compared depends only on
// len(x), and each compare-exchange is branch-free, so the running time is
// independent of the values.
func SortUint32(x []uint32) {
	n := len(x)
	if n < 2 {
		return
	}
	t := 1
	for 1<<t < n {
		t++
	}
	for p := 1 << (t - 1); p > 0; p >>= 1 {
		q, r, d := 1<<(t-1), 0, p
		for d > 0 {
			for i := 0; i+d < n; i++ {
				if i&p == r {
					minmax(&x[i], &x[i+d])
				}
			}
			d, q, r = q-p, q>>1, p
		}
	}
}

// minmax puts the smaller of *a, *b in *a, without branching on them.
func minmax(a, b *uint32) {
	x, y := *a, *b
	d := uint64(y) - uint64(x) // negative (top bit set) iff y < x
	m := uint32(0 - (d >> 63)) // all ones iff y < x
	t := m & (x ^ y)
	*a, *b = x^t, y^t
}

// ShortFromList turns 761 random 32-bit words into a Short element: exactly
// W coefficients ±1, the rest 0, in random positions (section 2.3.7 and the
// reference "Short_fromlist"). The sort is constant time.
func ShortFromList(in *[P]uint32) (out [P]int8) {
	var L [P]uint32
	for i := range P {
		if i < W { // public index
			L[i] = in[i] &^ 1
		} else {
			L[i] = in[i]&^3 | 1
		}
	}
	SortUint32(L[:])
	for i := range P {
		out[i] = int8(L[i]&3) - 1
	}
	return out
}

// SmallFromList maps 761 random 32-bit words to a small element with
// coefficients ((x mod 2^30) * 3) >> 30 - 1, as "Small_random" does.
func SmallFromList(in *[P]uint32) (out [P]int8) {
	for i := range P {
		out[i] = int8(((in[i]&0x3fffffff)*3)>>30) - 1
	}
	return out
}

// ReadList reads one array of 761 little-endian uint32 with a single Read
// of RandomBytes bytes (the call pattern the NIST KAT depends on).
func ReadList(rand io.Reader) (*[P]uint32, error) {
	var buf [RandomBytes]byte
	if _, err := io.ReadFull(rand, buf[:]); err != nil {
		return nil, err
	}
	var L [P]uint32
	for i := range P {
		L[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	return &L, nil
}

// KeyGen generates a key pair, reading randomness from rand exactly as the
// reference code does: 3044 bytes for g (again while g is not invertible in
// R/3), 3044 bytes for f, 191 bytes for rho. Section 2.3.2 and 2.3.6 (KEM
// key generation with the cached public key hash).
func KeyGen(rand io.Reader) (pk, sk []byte, err error) {
	var g, v [P]int8
	for {
		L, err := ReadList(rand)
		if err != nil {
			return nil, nil, err
		}
		g = SmallFromList(L)
		var ok int32
		v, ok = R3Recip(&g)
		if ok == 0 { // declassified: whether g was invertible reveals nothing about the key kept
			break
		}
	}
	L, err := ReadList(rand)
	if err != nil {
		return nil, nil, err
	}
	f := ShortFromList(L)
	finv, _ := RqRecip3(&f) // always succeeds: R/q is a field and f != 0
	h := RqMultSmall(&finv, &g)

	pk = RqEncode(&h)
	sk = make([]byte, 0, SecretKeySize)
	sk = append(sk, SmallEncode(&f)...)
	sk = append(sk, SmallEncode(&v)...)
	sk = append(sk, pk...)
	rho := make([]byte, InputsBytes)
	if _, err := io.ReadFull(rand, rho); err != nil {
		return nil, nil, err
	}
	sk = append(sk, rho...)
	cache := HashPrefix(prefixCache, pk)
	sk = append(sk, cache[:]...)
	return pk, sk, nil
}

// Hide is the deterministic part of encapsulation (section 2.3.7): it
// encrypts r under pk and appends the confirmation hash. It returns the
// ciphertext and r encoded as bytes.
func Hide(r *[P]int8, pk []byte, cache [32]byte) (ct, rEnc []byte) {
	rEnc = SmallEncode(r)
	h := RqDecode(pk)
	hr := RqMultSmall(&h, r)
	c := Round(&hr)
	ct = RoundedEncode(&c)
	hr3 := HashPrefix(prefixInput, rEnc)
	confirm := HashPrefix(prefixConfirm, hr3[:], cache[:])
	ct = append(ct, confirm[:]...)
	return ct, rEnc
}

// hashSession returns Hash_b(Hash_3(rEnc) || ct).
func hashSession(b byte, rEnc, ct []byte) [32]byte {
	h3 := HashPrefix(prefixInput, rEnc)
	return HashPrefix(b, h3[:], ct)
}

// Encap encapsulates to pk with randomness read as one 3044-byte array.
func Encap(pk []byte, rand io.Reader) (ct []byte, k [32]byte, err error) {
	L, err := ReadList(rand)
	if err != nil {
		return nil, k, err
	}
	r := ShortFromList(L)
	return EncapShort(pk, &r)
}

// EncapShort encapsulates to pk with the given Short r (section 2.3.7).
func EncapShort(pk []byte, r *[P]int8) (ct []byte, k [32]byte, err error) {
	ct, rEnc := Hide(r, pk, HashPrefix(prefixCache, pk))
	return ct, hashSession(prefixSession, rEnc, ct), nil
}

// Decap decapsulates ct with sk (section 2.3.8). It never fails: a
// ciphertext that does not re-encrypt to itself yields the implicit
// rejection key Hash_0(Hash_3(rho) || ct), chosen by mask.
func Decap(ct, sk []byte) [32]byte {
	f := SmallDecode(sk[:SmallBytes])
	v := SmallDecode(sk[SmallBytes : 2*SmallBytes])
	pk := sk[2*SmallBytes : 2*SmallBytes+RqBytes]
	rho := sk[2*SmallBytes+RqBytes : 2*SmallBytes+RqBytes+SmallBytes]
	var cache [32]byte
	copy(cache[:], sk[SecretKeySize-32:])

	c := RoundedDecode(ct[:RoundedBytes])
	r := Decrypt(&c, &f, &v)

	cnew, rEnc := Hide(&r, pk, cache)
	mask := ctDiffMask(ct[:CiphertextSize], cnew) // 0 if equal, 0xff otherwise
	for i := range rEnc {
		rEnc[i] ^= mask & (rEnc[i] ^ rho[i])
	}
	// prefix is 1 on success and 0 on rejection: 1 + (int8)mask.
	return hashSession(byte(1+int8(mask)), rEnc, ct[:CiphertextSize])
}

// Decrypt recovers r from c = Round(h*r) with the secret f and v = 1/g
// (section 2.3.4). If the result does not have weight W it is replaced, by
// mask, with the fixed vector (1,...,1,0,...,0) of weight W.
func Decrypt(c *[P]int16, f, v *[P]int8) (r [P]int8) {
	cf := RqMultSmall(c, f)
	cf3 := RqMult3(&cf)
	e := R3FromRq(&cf3)
	ev := R3Mult(&e, v)
	mask := int8(WeightMask(&ev))
	for i := range P {
		if i < W { // public index
			r[i] = ((ev[i] ^ 1) &^ mask) ^ 1
		} else {
			r[i] = ev[i] &^ mask
		}
	}
	return r
}

// ctDiffMask returns 0 if a and b are equal and 0xff otherwise, in time
// independent of their contents.
func ctDiffMask(a, b []byte) byte {
	var diff byte
	for i := range a {
		diff |= a[i] ^ b[i]
	}
	// (diff-1)>>8 has bit 0 set iff diff == 0
	return byte((1 & ((uint32(diff) - 1) >> 8)) - 1)
}
