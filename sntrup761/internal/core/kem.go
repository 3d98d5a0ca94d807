package core

import (
	"crypto/sha512"
	"crypto/subtle"
	"encoding/binary"
	"io"
)

// Sizes of the KEM's byte strings (NTRU Prime round 3, section 3.5).
const (
	PublicKeySize  = rqBytes                                  // 1158
	PrivateKeySize = 2*smallBytes + rqBytes + smallBytes + 32 // 1763
	CiphertextSize = roundedBytes + 32                        // 1039
	SharedKeySize  = 32
	randomBytes    = 4 * P // one list of 761 uint32
)

// Hash prefixes (the first byte hashed by Hash_b).
const (
	prefixRejected = 0
	prefixSession  = 1
	prefixConfirm  = 2
	prefixInput    = 3
	prefixCache    = 4
)

// PublicKey is a parsed encapsulation key with the transform of h cached.
type PublicKey struct {
	bytes [PublicKeySize]byte
	sh    spectrum
	cache [32]byte // Hash_4(pk)
}

// PrivateKey is a parsed decapsulation key. Everything in it but pk is
// secret.
type PrivateKey struct {
	bytes   [PrivateKeySize]byte
	sf, sv  spectrum // transforms of f and v = 1/g in R/3
	pk      PublicKey
	rhoHash [32]byte // Hash_3(rho), the rejection input
}

// Bytes returns the encoded key.
func (pk *PublicKey) Bytes() *[PublicKeySize]byte { return &pk.bytes }

// Bytes returns the encoded key.
func (sk *PrivateKey) Bytes() *[PrivateKeySize]byte { return &sk.bytes }

// PublicKey returns the public half of sk.
func (sk *PrivateKey) PublicKey() *PublicKey { return &sk.pk }

// hashPrefix returns Hash_b(x...): the first 32 bytes of SHA-512(b || x...).
// The inputs are at most a public key (1158 bytes) or 32+1039 bytes.
func hashPrefix(b byte, x ...[]byte) (out [32]byte) {
	var buf [1 + PublicKeySize]byte
	buf[0] = b
	n := 1
	for _, s := range x {
		n += copy(buf[n:], s)
	}
	sum := sha512.Sum512(buf[:n])
	copy(out[:], sum[:32])
	clear(buf[:n])
	return out
}

// NewPublicKey parses a 1158-byte encapsulation key. Decoding is total.
func NewPublicKey(b *[PublicKeySize]byte) *PublicKey {
	pk := new(PublicKey)
	pk.init(b)
	return pk
}

func (pk *PublicKey) init(b *[PublicKeySize]byte) {
	pk.bytes = *b
	var h [P]int16
	rqDecode(&h, b[:])
	pk.sh.transformRq(&h)
	pk.cache = hashPrefix(prefixCache, b[:])
}

// NewPrivateKey parses a 1763-byte decapsulation key: f, v = 1/g, pk, rho
// and Hash_4(pk). Decoding is total; the cached hash is used as stored, like
// the reference does.
func NewPrivateKey(b *[PrivateKeySize]byte) *PrivateKey {
	sk := new(PrivateKey)
	sk.bytes = *b
	var f, v [P]int8
	smallDecode(&f, b[:smallBytes])
	smallDecode(&v, b[smallBytes:2*smallBytes])
	sk.sf.transformSmall(&f)
	sk.sv.transformSmall(&v)
	sk.pk.init((*[PublicKeySize]byte)(b[2*smallBytes:]))
	copy(sk.pk.cache[:], b[PrivateKeySize-32:])
	sk.initRhoHash()
	return sk
}

// initRhoHash caches Hash_3(rho) for implicit rejection.
func (sk *PrivateKey) initRhoHash() {
	const off = 2*smallBytes + rqBytes
	sk.rhoHash = hashPrefix(prefixInput, sk.bytes[off:off+smallBytes])
}

// decodeList reads 761 little-endian uint32 and clears buf.
func decodeList(L *[P]uint32, buf *[randomBytes]byte) {
	if asmEnabled {
		decodeListAVX2(L, buf)
		L[P-1] = binary.LittleEndian.Uint32(buf[4*(P-1):])
		clear(buf[:])
		return
	}
	for i := range L {
		L[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	clear(buf[:])
}

// shortFromList turns a random list into a Short element (exactly W
// nonzero coefficients ±1) by sorting, as the reference "Short_fromlist":
// the first W keys lose bit 0, the others become odd with bit 1 clear,
// and the coefficients are the low two bits of the sorted words, minus 1.
// Constant time: masks by public index, then the sorting network. W is
// even, so each packed word of two keys gets one kind of mask.
func shortFromList(out *[P]int8, L *[P]uint32) {
	if asmEnabled {
		shortFromListAVX2(out, L)
		return
	}
	var w [sortW]uint64
	for i := range W / 2 {
		w[i] = (uint64(L[2*i]) | uint64(L[2*i+1])<<32) &^ (1 | 1<<32)
	}
	for i := W / 2; i < P/2; i++ {
		w[i] = (uint64(L[2*i])|uint64(L[2*i+1])<<32)&^(3|3<<32) | (1 | 1<<32)
	}
	w[sortW-1] = uint64(L[P-1]&^3|1) | 0xffffffff<<32
	var x [sortW][2]uint32
	sortKeys(&x, &w)
	for k := range P / 2 {
		out[2*k] = int8(x[k][0]&3) - 1
		out[2*k+1] = int8(x[k][1]&3) - 1
	}
	out[P-1] = int8(x[P/2][0]&3) - 1
	clear(x[:])
	clear(w[:])
}

// smallFromList maps random words to small coefficients ("Small_random").
func smallFromList(out *[P]int8, L *[P]uint32) {
	if asmEnabled {
		smallFromListAVX2(out, L)
		out[P-1] = int8(((L[P-1]&0x3fffffff)*3)>>30) - 1
		return
	}
	for i := range out {
		out[i] = int8(((L[i]&0x3fffffff)*3)>>30) - 1
	}
}

// GenerateKey generates a key pair, reading randomness exactly as the
// reference does (section 2.3.2 and 2.3.6; see readList) from rand, or
// from crypto/rand if rand is nil.
func GenerateKey(rand io.Reader) (*PrivateKey, error) {
	rand = source(rand)
	var L [P]uint32
	var g, v, f [P]int8
	var finv, f16 [P]int16
	var rho [smallBytes]byte
	defer func() {
		// Every return clears the secrets, a failed (or panicking) read's
		// too: g and v = 1/g are the key's once the loop is left.
		clear(L[:])
		clear(g[:])
		clear(v[:])
		clear(f[:])
		clear(f16[:])
		clear(finv[:])
		clear(rho[:])
	}()
	for {
		if err := readList(rand, &L); err != nil {
			return nil, err
		}
		smallFromList(&g, &L)
		// Whether g is invertible is declassified: a rejected g is
		// discarded and tells nothing about the key that is kept.
		if r3Recip(&v, &g) == 0 {
			break
		}
	}
	if err := readList(rand, &L); err != nil {
		return nil, err
	}
	shortFromList(&f, &L)
	if _, err := io.ReadFull(rand, rho[:]); err != nil {
		return nil, err
	}
	for i := range f {
		f16[i] = int16(f[i])
	}
	recipRq(&finv, &f16, recipQ(3)) // 1/(3f): always exists, R/q is a field
	return assembleKey(&f, &g, &v, &finv, &rho), nil
}

// assembleKey computes h = g/(3f) from finv = 1/(3f) and builds the key.
func assembleKey(f, g, v *[P]int8, finv *[P]int16, rho *[smallBytes]byte) *PrivateKey {
	sk := new(PrivateKey)
	sk.sf.transformSmall(f)
	var sg, sfinv spectrum
	sg.transformSmall(g)
	sfinv.transformRq(finv)
	var h [P]int16
	mulRq(&h, &sfinv, &sfinv, &sg)
	sk.assemble(f, v, &h, rho)
	clear(sg[:])
	clear(sfinv[:])
	return sk
}

// assemble fills in sk from f, v = 1/g in R/3, the public h = g/(3f) in
// R/q and rho; sk.sf must already hold the transform of f.
func (sk *PrivateKey) assemble(f, v *[P]int8, h *[P]int16, rho *[smallBytes]byte) {
	// sk = Small_encode(f) || Small_encode(v) || pk || rho || Hash_4(pk)
	const pkOff = 2 * smallBytes
	smallEncode(sk.bytes[:smallBytes], f)
	smallEncode(sk.bytes[smallBytes:pkOff], v)
	pk := (*[PublicKeySize]byte)(sk.bytes[pkOff : pkOff+rqBytes])
	rqEncode(pk[:], h)
	copy(sk.bytes[pkOff+rqBytes:], rho[:])
	cache := hashPrefix(prefixCache, pk[:])
	copy(sk.bytes[PrivateKeySize-32:], cache[:])

	sk.pk.bytes = *pk
	sk.pk.sh.transformRq(h)
	sk.pk.cache = cache
	sk.sv.transformSmall(v)
	sk.initRhoHash()
}

// hide encrypts the Short r under pk and appends the confirmation hash
// (section 2.3.7): ct = Rounded_encode(Round(h*r)) || Hash_2(Hash_3(r_enc)
// || Hash_4(pk)). It returns Hash_3(r_enc), which the session key hashes
// again. Constant time in r.
func (pk *PublicKey) hide(ct *[CiphertextSize]byte, r *[P]int8) (h3 [32]byte) {
	var R [P]uint32 // Round(h*r), as digits of Rounded_encode
	var sr spectrum
	sr.transformSmall(r)
	mulRounded(&R, &sr, &sr, &pk.sh)
	clear(sr[:])
	roundedCodec().encode(ct[:roundedBytes], R[:])
	clear(R[:])
	var rEnc [smallBytes]byte
	smallEncode(rEnc[:], r)
	h3 = hashPrefix(prefixInput, rEnc[:])
	clear(rEnc[:])
	confirm := hashPrefix(prefixConfirm, h3[:], pk.cache[:])
	copy(ct[roundedBytes:], confirm[:])
	return h3
}

// Encapsulate reads 3044 random bytes for r from rand (crypto/rand if
// nil) and returns the ciphertext and shared key (section 2.3.7).
func (pk *PublicKey) Encapsulate(rand io.Reader, ct *[CiphertextSize]byte, k *[SharedKeySize]byte) error {
	rand = source(rand)
	var L [P]uint32
	if err := readList(rand, &L); err != nil {
		return err
	}
	var r [P]int8
	shortFromList(&r, &L)
	clear(L[:])
	h3 := pk.hide(ct, &r)
	clear(r[:])
	*k = hashPrefix(prefixSession, h3[:], ct[:])
	clear(h3[:])
	return nil
}

// Decapsulate recovers the shared key from ct (section 2.3.8). It never
// fails: if ct does not re-encrypt to itself, the key is Hash_0(Hash_3(rho)
// || ct), selected by mask.
func (sk *PrivateKey) Decapsulate(ct *[CiphertextSize]byte, k *[SharedKeySize]byte) {
	var c [P]int16
	roundedDecode(&c, ct[:roundedBytes])
	var r [P]int8
	sk.decrypt(&r, &c)

	var cnew [CiphertextSize]byte
	h3 := sk.pk.hide(&cnew, &r)
	clear(r[:])
	// equal is 1 if the ciphertexts match (all 1039 bytes compared in
	// constant time); otherwise Hash_3(r_enc) is replaced by Hash_3(rho),
	// by mask.
	equal := subtle.ConstantTimeCompare(ct[:], cnew[:])
	subtle.ConstantTimeCopy(1-equal, h3[:], sk.rhoHash[:])
	*k = hashPrefix(byte(equal), h3[:], ct[:]) // prefix 1 on success, 0 on rejection
	clear(h3[:])
}

// decrypt computes r from c (section 2.3.4): e = 3*f*c in R/q lifted to
// R/3, ev = e*v; if ev does not have weight W it becomes the fixed vector
// (1,...,1,0,...,0), by mask. Constant time.
func (sk *PrivateKey) decrypt(r *[P]int8, c *[P]int16) {
	var sc spectrum
	sc.transformRq(c)
	var e [P]int8
	mulLift3(&e, &sc, &sc, &sk.sf) // e = 3*f*c in R/q, lifted to R/3
	var se spectrum
	se.transformSmall(&e)
	var evb [768]int8 // zero past p, for decryptFinishAVX2
	ev := (*[P]int8)(evb[:P])
	mulR3(ev, &se, &se, &sk.sv)
	if asmEnabled {
		decryptFinishAVX2(r, &evb)
		clear(sc[:])
		clear(e[:])
		clear(se[:])
		clear(evb[:])
		return
	}
	weight := int32(0)
	for i := range ev {
		weight += int32(ev[i]) & 1
	}
	mask := int8(nzMask(weight - W)) // 0 if weight W, -1 otherwise
	for i := range W {
		r[i] = ((ev[i] ^ 1) &^ mask) ^ 1
	}
	for i := W; i < P; i++ {
		r[i] = ev[i] &^ mask
	}
	clear(sc[:])
	clear(e[:])
	clear(se[:])
	clear(evb[:])
}
