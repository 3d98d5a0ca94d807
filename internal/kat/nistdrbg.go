package kat

import (
	"crypto/aes"
	"crypto/cipher"
)

// DRBGSeedSize is the size of the entropy input of NewDRBG.
const DRBGSeedSize = 48

// DRBG is the AES-256 CTR-DRBG (no derivation function, no
// personalization, no reseeding) of NIST's PQC known-answer-test harness
// (rng.c of the NIST submission package; NIST SP 800-90A section 10.2.1).
//
// It exists to reproduce the published .rsp known-answer files and must
// never be used as a source of real randomness.
//
// Every Read is one call of the harness's randombytes(): it produces len(p)
// bytes and then updates the state. Output therefore depends on how the
// bytes are split into calls, which is exactly what the KAT files record.
type DRBG struct {
	key [32]byte
	v   [16]byte
}

// NewDRBG instantiates the DRBG: Key = 0, V = 0, then Update(seed).
func NewDRBG(seed *[DRBGSeedSize]byte) *DRBG {
	d := new(DRBG)
	d.update(seed)
	return d
}

func (d *DRBG) block() cipher.Block {
	b, err := aes.NewCipher(d.key[:])
	if err != nil {
		panic(err) // unreachable: the key is always 32 bytes
	}
	return b
}

// increment adds one to V as a 128-bit big-endian integer.
func (d *DRBG) increment() {
	for i := 15; i >= 0; i-- {
		d.v[i]++
		if d.v[i] != 0 {
			return
		}
	}
}

// update is CTR_DRBG_Update: three AES blocks of V+1, V+2, V+3, xored with
// data when present, become the new Key and V.
func (d *DRBG) update(data *[DRBGSeedSize]byte) {
	b := d.block()
	var temp [DRBGSeedSize]byte
	for i := range 3 {
		d.increment()
		b.Encrypt(temp[16*i:], d.v[:])
	}
	if data != nil {
		for i := range temp {
			temp[i] ^= data[i]
		}
	}
	copy(d.key[:], temp[:32])
	copy(d.v[:], temp[32:])
}

// Read fills p with one randombytes() call and never fails.
func (d *DRBG) Read(p []byte) (int, error) {
	b := d.block()
	var blk [16]byte
	for off := 0; off < len(p); off += 16 {
		d.increment()
		b.Encrypt(blk[:], d.v[:])
		copy(p[off:], blk[:])
	}
	d.update(nil)
	return len(p), nil
}
