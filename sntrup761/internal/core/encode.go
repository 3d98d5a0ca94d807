package core

import (
	"math/bits"
	"sync"
)

// Fast versions of the NTRU Prime mixed-radix Encode / Decode (section 3.1)
// for the two moduli lists sntrup761 uses: 761 values below q (public keys)
// and 761 values below (q+2)/3 (ciphertexts). The recursion of the
// reference is flattened into levels computed once from the moduli, so
// encoding and decoding are loops without allocation.
//
// Both are applied to public data only (public keys and ciphertexts). They
// are nonetheless free of data-dependent branches and memory indexes; the
// divisions in decoding use precomputed reciprocals (on the assembly path,
// decodeBulk1AVX2 and decodeBulk2AVX2 divide with VDIVPD, whose latency
// may depend on its operands: the decoders must stay on public data).

const (
	rqBytes      = 1158
	roundedBytes = 1007
	smallBytes   = (P + 3) / 4
)

// codecLevel is one level of the recursion: the moduli of its values and,
// per pair, how many bytes the encoder emits (the last level has one value
// and emits its bytes whole).
type codecLevel struct {
	m     []uint32
	recip []uint64 // ceil(2^64 / m[i]) for the exact division of decode
	emit  []int    // bytes emitted per pair (or, for one value, in total)
	off   int      // offset of this level's bytes in the encoding
	// The first bulk pairs all have modulus bm for both values and emit
	// bk bytes (1 or 2): encode and decode run them in a loop with these
	// constants, and only the pairs after them use the tables.
	bulk   int
	bm     uint32
	brecip uint64
	bk     int
}

type radixCodec struct {
	levels []codecLevel
	size   int
}

func newRadixCodec(n int, m0 uint32) *radixCodec {
	c := new(radixCodec)
	M := make([]uint32, n)
	for i := range M {
		M[i] = m0
	}
	off := 0
	for {
		lv := codecLevel{m: M, off: off}
		for _, m := range M {
			lv.recip = append(lv.recip, ^uint64(0)/uint64(m)+1)
		}
		if len(M) == 1 {
			k := 0
			for m := M[0]; m > 1; m = (m + 255) >> 8 {
				k++
			}
			lv.emit = []int{k}
			off += k
			c.levels = append(c.levels, lv)
			break
		}
		M2 := make([]uint32, (len(M)+1)/2)
		for i := 0; i+1 < len(M); i += 2 {
			m, k := M[i]*M[i+1], 0
			for m >= 16384 {
				m = (m + 255) >> 8
				k++
			}
			lv.emit = append(lv.emit, k)
			off += k
			M2[i/2] = m
		}
		if len(M)%2 == 1 {
			M2[len(M2)-1] = M[len(M)-1]
		}
		lv.bm, lv.brecip, lv.bk = M[0], lv.recip[0], lv.emit[0]
		for lv.bulk < len(lv.emit) && M[2*lv.bulk] == lv.bm && M[2*lv.bulk+1] == lv.bm &&
			lv.emit[lv.bulk] == lv.bk && (lv.bk == 1 || lv.bk == 2) {
			lv.bulk++
		}
		c.levels = append(c.levels, lv)
		M = M2
	}
	c.size = off
	return c
}

// rqCodec and roundedCodec return the codecs of public keys (P values
// below Q) and of rounded ciphertexts (below (Q+2)/3), built on first use
// (see plan768).
var (
	rqCodec      = sync.OnceValue(func() *radixCodec { return newRadixCodec(P, Q) })
	roundedCodec = sync.OnceValue(func() *radixCodec { return newRadixCodec(P, (Q+2)/3) })
)

// encode writes the values R[i] < m[i] (len P) to out (len c.size).
func (c *radixCodec) encode(out []byte, R []uint32) {
	out = out[:c.size]
	var buf [P]uint32
	cur := buf[:copy(buf[:], R)]
	for li := range c.levels {
		lv := &c.levels[li]
		o := out[lv.off:]
		if len(cur) == 1 {
			r := cur[0]
			for k := range lv.emit[0] {
				o[k] = byte(r)
				r >>= 8
			}
			return
		}
		n := len(cur)
		w := encodeBulk(o, cur, lv)
		for i := 2 * lv.bulk; i+1 < n; i += 2 {
			r := cur[i] + cur[i+1]*lv.m[i]
			for range lv.emit[i/2] {
				o[w] = byte(r)
				w++
				r >>= 8
			}
			cur[i/2] = r
		}
		if n%2 == 1 {
			cur[n/2] = cur[n-1]
		}
		cur = cur[:(n+1)/2]
	}
}

// decode reads values R[i] < m[i] (len P) from s (len c.size). It is total:
// every value is reduced modulo its m[i].
func (c *radixCodec) decode(R []uint32, s []byte) {
	s = s[:c.size]
	var a, b [P]uint32
	top := len(c.levels) - 1
	lv := &c.levels[top]
	var r uint32
	for k := lv.emit[0] - 1; k >= 0; k-- {
		r = r<<8 | uint32(s[lv.off+k])
	}
	cur := a[:1]
	cur[0] = mod(r, lv.m[0], lv.recip[0])
	next := b[:]
	for li := top - 1; li >= 0; li-- {
		lv := &c.levels[li]
		n := len(lv.m)
		nx := next[:n]
		o := s[lv.off:]
		w := decodeBulk(nx, cur, o, lv)
		for i := 2 * lv.bulk; i+1 < n; i += 2 {
			var lo uint32
			k := lv.emit[i/2]
			for t := range k {
				lo |= uint32(o[w+t]) << (8 * t)
			}
			w += k
			r := lo + cur[i/2]<<(8*k)
			q, rem := divmod(r, lv.m[i], lv.recip[i])
			nx[i] = rem
			nx[i+1] = mod(q, lv.m[i+1], lv.recip[i+1])
		}
		if n%2 == 1 {
			nx[n-1] = cur[n/2]
		}
		cur, next = nx, cur[:cap(cur)]
	}
	copy(R, cur)
}

// encodeBulk encodes the level's first lv.bulk pairs of cur into o,
// leaving the combined values in cur[:lv.bulk], and returns the number of
// bytes written.
func encodeBulk(o []byte, cur []uint32, lv *codecLevel) int {
	m := lv.bm
	start := 0 // pairs done on the assembly path, eight at a time
	if asmEnabled && lv.bulk >= 8 {
		start = lv.bulk &^ 7
		if lv.bk == 1 {
			encodeBulk1AVX2(&o[:start][0], &cur[:2*start][0], m, start/8)
		} else {
			encodeBulk2AVX2(&o[:2*start][0], &cur[:2*start][0], m, start/8)
		}
	}
	// the rest (all of it on the scalar path), from pair start on
	pairs := cur[2*start : 2*lv.bulk]
	cur = cur[start:]
	if lv.bk == 1 {
		o := o[start:lv.bulk]
		for i := range o {
			r := pairs[2*i] + pairs[2*i+1]*m
			o[i] = byte(r)
			cur[i] = r >> 8
		}
		return lv.bulk
	}
	o = o[2*start : 2*lv.bulk]
	for i := 0; i+1 < len(o); i += 2 {
		r := pairs[i] + pairs[i+1]*m
		o[i], o[i+1] = byte(r), byte(r>>8)
		cur[i/2] = r >> 16
	}
	return 2 * lv.bulk
}

// decodeBulk decodes the level's first lv.bulk pairs from o and cur (the
// combined values of the level above) into nx, and returns the number of
// bytes read.
func decodeBulk(nx, cur []uint32, o []byte, lv *codecLevel) int {
	m, recip := lv.bm, lv.brecip
	start := 0 // pairs done on the assembly path, four at a time
	if asmEnabled && lv.bulk >= 4 {
		start = lv.bulk &^ 3
		if lv.bk == 1 {
			decodeBulk1AVX2(&nx[:2*start][0], &cur[:start][0], &o[:start][0], m, start/4)
		} else {
			decodeBulk2AVX2(&nx[:2*start][0], &cur[:start][0], &o[:2*start][0], m, start/4)
		}
	}
	// the rest (all of it on the scalar path), from pair start on
	nx = nx[2*start : 2*lv.bulk]
	cur = cur[start:lv.bulk]
	if lv.bk == 1 {
		o = o[start:lv.bulk]
		o = o[:len(cur)]
		for i, hi := range cur {
			q, rem := divmod(uint32(o[i])|hi<<8, m, recip)
			nx[2*i], nx[2*i+1] = rem, mod(q, m, recip)
		}
		return lv.bulk
	}
	o = o[2*start : 2*lv.bulk]
	o = o[:2*len(cur)]
	for i, hi := range cur {
		q, rem := divmod(uint32(o[2*i])|uint32(o[2*i+1])<<8|hi<<16, m, recip)
		nx[2*i], nx[2*i+1] = rem, mod(q, m, recip)
	}
	return 2 * lv.bulk
}

// divmod returns x / m and x % m using recip = ceil(2^64/m), exact for
// 32-bit x and m (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019).
func divmod(x, m uint32, recip uint64) (uint32, uint32) {
	q, _ := bits.Mul64(uint64(x), recip)
	return uint32(q), x - uint32(q)*m
}

func mod(x, m uint32, recip uint64) uint32 {
	_, r := divmod(x, m, recip)
	return r
}

// rqEncode encodes h (coefficients in [-Q12, Q12]) in rqBytes bytes.
func rqEncode(out []byte, h *[P]int16) {
	var R [P]uint32
	for i := range R {
		R[i] = uint32(int32(h[i]) + Q12)
	}
	rqCodec().encode(out, R[:])
}

// rqDecode decodes rqBytes bytes into h. Total.
func rqDecode(h *[P]int16, s []byte) {
	var R [P]uint32
	rqCodec().decode(R[:], s)
	for i := range R {
		h[i] = int16(int32(R[i]) - Q12)
	}
}

// roundedEncode encodes c (coefficients multiples of 3 in [-Q12, Q12]).
func roundedEncode(out []byte, c *[P]int16) {
	var R [P]uint32
	for i := range R {
		R[i] = (uint32(int32(c[i])+Q12) * 10923) >> 15 // (c+Q12)/3
	}
	roundedCodec().encode(out, R[:])
}

// roundedDecode decodes roundedBytes bytes into 3*R - Q12. Total.
func roundedDecode(c *[P]int16, s []byte) {
	var R [P]uint32
	roundedCodec().decode(R[:], s)
	for i := range R {
		c[i] = int16(3*int32(R[i]) - Q12)
	}
}

// smallEncode packs coefficients (plus one) two bits each, low bits first.
func smallEncode(out []byte, f *[P]int8) {
	out = out[:smallBytes]
	if asmEnabled {
		smallEncodeAVX2((*[smallBytes]byte)(out), f)
		out[P/4] = byte(f[P-1] + 1)
		return
	}
	for i := range P / 4 {
		out[i] = byte(f[4*i]+1) | byte(f[4*i+1]+1)<<2 | byte(f[4*i+2]+1)<<4 | byte(f[4*i+3]+1)<<6
	}
	out[P/4] = byte(f[P-1] + 1)
}

// smallDecode inverts smallEncode; unused bits are ignored and the bit
// pattern 3 decodes to 2, like the reference.
func smallDecode(f *[P]int8, s []byte) {
	s = s[:smallBytes]
	for i := range P / 4 {
		x := s[i]
		f[4*i] = int8(x&3) - 1
		f[4*i+1] = int8(x>>2&3) - 1
		f[4*i+2] = int8(x>>4&3) - 1
		f[4*i+3] = int8(x>>6&3) - 1
	}
	f[P-1] = int8(s[P/4]&3) - 1
}
