package ref

// Sizes of the encodings (NTRU Prime round 3, section 3.5 and 3.1).
const (
	SmallBytes   = (P + 3) / 4 // 191
	RqBytes      = 1158        // Encode of p values modulo q
	RoundedBytes = 1007        // Encode of p values modulo (q+2)/3
)

// Encode is the mixed-radix encoder of section 3.1: it writes the integers
// R[i] in [0, M[i]) to out, whose length depends only on M. Every M[i] must
// be in [1, 16384]. The values may be secret: the control flow and the
// output positions depend only on M.
func Encode(out []byte, R, M []uint32) []byte {
	if len(R) == 1 {
		r, m := R[0], M[0]
		for m > 1 {
			out = append(out, byte(r))
			r >>= 8
			m = (m + 255) >> 8
		}
		return out
	}
	half := (len(R) + 1) / 2
	R2 := make([]uint32, half)
	M2 := make([]uint32, half)
	i := 0
	for ; i+1 < len(R); i += 2 {
		m0 := M[i]
		r := R[i] + R[i+1]*m0
		m := M[i+1] * m0
		for m >= 16384 {
			out = append(out, byte(r))
			r >>= 8
			m = (m + 255) >> 8
		}
		R2[i/2] = r
		M2[i/2] = m
	}
	if i < len(R) {
		R2[i/2] = R[i]
		M2[i/2] = M[i]
	}
	return Encode(out, R2, M2)
}

// Decode inverts Encode. It is total: any byte string of the right length
// decodes, and every output R[i] is reduced into [0, M[i]) (section 3.1).
// Decode only ever sees public data (public keys and ciphertexts), so it
// may use ordinary division.
func Decode(S []byte, M []uint32) []uint32 {
	out := make([]uint32, len(M))
	decode(out, S, M)
	return out
}

func decode(out []uint32, S []byte, M []uint32) {
	if len(M) == 1 {
		switch {
		case M[0] == 1:
			out[0] = 0
		case M[0] <= 256:
			out[0] = uint32(S[0]) % M[0]
		default:
			out[0] = (uint32(S[0]) | uint32(S[1])<<8) % M[0]
		}
		return
	}
	half := (len(M) + 1) / 2
	M2 := make([]uint32, half)
	bottomR := make([]uint32, len(M)/2)
	bottomT := make([]uint32, len(M)/2)
	i := 0
	for ; i+1 < len(M); i += 2 {
		m := M[i] * M[i+1]
		switch {
		case m > 256*16383:
			bottomT[i/2] = 256 * 256
			bottomR[i/2] = uint32(S[0]) | uint32(S[1])<<8
			S = S[2:]
			M2[i/2] = (((m + 255) >> 8) + 255) >> 8
		case m >= 16384:
			bottomT[i/2] = 256
			bottomR[i/2] = uint32(S[0])
			S = S[1:]
			M2[i/2] = (m + 255) >> 8
		default:
			bottomT[i/2] = 1
			bottomR[i/2] = 0
			M2[i/2] = m
		}
	}
	if i < len(M) {
		M2[i/2] = M[i]
	}
	R2 := make([]uint32, half)
	decode(R2, S, M2)
	for i = 0; i+1 < len(M); i += 2 {
		r := bottomR[i/2] + bottomT[i/2]*R2[i/2]
		out[i] = r % M[i]
		out[i+1] = (r / M[i]) % M[i+1] // the second reduction matters only for invalid input
	}
	if i < len(M) {
		out[i] = R2[i/2]
	}
}

func constM(m uint32) []uint32 {
	M := make([]uint32, P)
	for i := range M {
		M[i] = m
	}
	return M
}

// RqEncode encodes an element of R/q in RqBytes bytes (section 3.5,
// "Rq_encode"): coefficient + Q12 in radix q.
func RqEncode(r *[P]int16) []byte {
	R := make([]uint32, P)
	for i := range P {
		R[i] = uint32(int32(r[i]) + Q12)
	}
	return Encode(make([]byte, 0, RqBytes), R, constM(Q))
}

// RqDecode decodes RqBytes bytes to an element of R/q. Total.
func RqDecode(s []byte) (r [P]int16) {
	R := Decode(s[:RqBytes], constM(Q))
	for i := range P {
		r[i] = int16(int32(R[i]) - Q12)
	}
	return r
}

// RoundedEncode encodes an element of R/q whose coefficients are multiples
// of 3 in RoundedBytes bytes: (coefficient + Q12)/3 in radix (q+2)/3.
func RoundedEncode(r *[P]int16) []byte {
	R := make([]uint32, P)
	for i := range P {
		// (x*10923)>>15 = floor(x/3) for 0 <= x <= 4590
		R[i] = (uint32(int32(r[i])+Q12) * 10923) >> 15
	}
	return Encode(make([]byte, 0, RoundedBytes), R, constM(QR))
}

// RoundedDecode decodes RoundedBytes bytes to 3*R - Q12. Total.
func RoundedDecode(s []byte) (r [P]int16) {
	R := Decode(s[:RoundedBytes], constM(QR))
	for i := range P {
		r[i] = int16(3*int32(R[i]) - Q12)
	}
	return r
}

// SmallEncode packs coefficient+1 (in {0,1,2}) into two bits, four per
// byte, low bits first; the last coefficient sits alone in the last byte.
func SmallEncode(f *[P]int8) []byte {
	out := make([]byte, SmallBytes)
	for i := range P / 4 {
		var x byte
		for j := range 4 {
			x |= byte(f[4*i+j]+1) << (2 * j)
		}
		out[i] = x
	}
	out[P/4] = byte(f[P-1] + 1)
	return out
}

// SmallDecode inverts SmallEncode; unused bits are ignored, and the bit
// pattern 3 decodes to 2 like the reference code does.
func SmallDecode(s []byte) (f [P]int8) {
	for i := range P / 4 {
		x := s[i]
		for j := range 4 {
			f[4*i+j] = int8(x&3) - 1
			x >>= 2
		}
	}
	f[P-1] = int8(s[P/4]&3) - 1
	return f
}
